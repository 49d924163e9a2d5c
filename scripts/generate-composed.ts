// The part of `npm run generate` made from the app's composition, once codegen has typed its documents:
// the console's definitions and documents (generate-console.ts), and from the OpenAPI document the app
// serves (served-openapi.ts) the typed client's REST types and the generated parts of the docs. One
// process for the three: each loaded the app's modules again (~2 s of CPU).
import { writeClientTypes } from './generate-client.js';
import { writeConsoleFiles } from './generate-console.js';
import { writeGeneratedDocs } from './generate-docs.js';
import { servedOpenApi } from './served-openapi.js';

writeConsoleFiles();
const document = await servedOpenApi();
await writeClientTypes(document);
await writeGeneratedDocs(document);
