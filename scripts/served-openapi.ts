// The OpenAPI document as the app serves it: boots the app in process on a fresh embedded database
// (testkit's createTestApp, no server of ours to start) and reads GET /api/v1/openapi.json. Used by
// `npm run lint:openapi`, and by `npm run generate` for the typed client and the docs (generate-served.ts).
import { createTestApp } from '../src/testkit/test-app.js';

export async function servedOpenApi(): Promise<Record<string, unknown>> {
  const app = await createTestApp();
  try {
    const response = await app.fetch('/api/v1/openapi.json');
    if (response.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${response.status}`);
    return (await response.json()) as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
