// The OpenAPI document as the app serves it at GET /api/v1/openapi.json, made by the function the app
// serves it with (app.ts, openApiDocument) from the project's composition, without booting the app: an
// embedded database started and migrated for it was most of a step's cost, and the document reads
// nothing from a database. Used by `npm run lint:openapi`, and by `npm run generate` for the typed
// client and the docs (generate-composed.ts).
import { composedOpenApiDocument } from '../src/app.js';

export async function servedOpenApi(): Promise<Record<string, unknown>> {
  return JSON.parse(JSON.stringify(composedOpenApiDocument())) as Record<string, unknown>; // as the client reads it
}
