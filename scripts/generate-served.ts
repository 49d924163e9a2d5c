// The part of `npm run generate` made from the OpenAPI document the app serves: the typed client's REST
// types and the generated parts of the docs. The app boots once for both (served-openapi.ts: a fresh
// embedded database, migrated, is most of a step's cost).
import { writeClientTypes } from './generate-client.js';
import { writeGeneratedDocs } from './generate-docs.js';
import { servedOpenApi } from './served-openapi.js';

const document = await servedOpenApi();
await writeClientTypes(document);
await writeGeneratedDocs(document);
