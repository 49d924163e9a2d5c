// yoga refuses a media type it does not read (415) and a request that accepts no answer it can give
// (406) with an empty body; the endpoint gives both a GraphQL `errors` body saying why (found by the
// fuzzer: a GraphQL client had nothing to read).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t.close();
});

describe('POST /graphql refused before it runs', () => {
  const query = JSON.stringify({ query: '{ __typename }' });
  const cases: [string, Record<string, string>, number, string][] = [
    ['text/plain', { 'content-type': 'text/plain', 'graphql-preflight': '1' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['application/xml', { 'content-type': 'application/xml', 'graphql-preflight': '1' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['an Accept of text/html only', { 'content-type': 'application/json', accept: 'text/html' }, 406, 'NOT_ACCEPTABLE'],
  ];
  for (const [what, headers, status, code] of cases) {
    it(`${what}: ${status} with errors[].extensions.code ${code}`, async () => {
      const response = await t.fetch('/graphql', { method: 'POST', headers, body: query });
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe(code);
      expect(body.errors[0]!.message.length).toBeGreaterThan(10);
    });
  }
});
