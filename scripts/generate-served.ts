// The part of `npm run generate` made from the OpenAPI document the app serves: the typed client's REST
// types and the generated parts of the docs, from one document (served-openapi.ts).
import { writeClientTypes } from './generate-client.js';
import { writeGeneratedDocs } from './generate-docs.js';
import { servedOpenApi } from './served-openapi.js';

const document = await servedOpenApi();
await writeClientTypes(document);
await writeGeneratedDocs(document);
