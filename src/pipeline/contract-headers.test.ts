// Header details of the contract, over HTTP: a script on another origin may read the rate-limit
// answers and the request id (CORS exposes them), and every 405 says which methods the path takes.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { entityDefinitions } from '../config/entities/index.js';
import type { TestApp } from '../testkit/test-app.js';

const someId = '00000000-0000-4000-8000-000000000000';

/** An Allow header's methods, as a sorted list. */
const methodsOf = (allow: string | null) => (allow ?? '').split(',').map((m) => m.trim()).filter(Boolean).sort();

let t: TestApp;
// A deployment that turns operations off: customers cannot be deleted, and their children (notes)
// cannot be changed (`update`). The definitions are this process's own; the schema and the routes are
// built from them when the app's modules are first imported, so the app is imported after the change.
const customers = entityDefinitions.find((d) => d.slug === 'customers')!;
const saved = { ...customers.operations };

beforeAll(async () => {
  Object.assign(customers.operations, { delete: false, update: false });
  const { createTestApp } = await import('../testkit/test-app.js');
  t = await createTestApp();
});
afterAll(async () => {
  Object.assign(customers.operations, saved);
  await t.close();
});

describe('CORS', () => {
  test('exposes RateLimit-*, Retry-After and the request id to scripts of other origins', async () => {
    for (const path of ['/api/v1/teams', '/healthz']) {
      const res = await t.fetch(path, { headers: { origin: 'https://app.example.com' } });
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
      expect(exposed).toEqual(expect.arrayContaining(['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'x-request-id']));
    }
  });
});

describe('405 carries Allow', () => {
  test('a declared REST path with another method', async () => {
    const res = await t.fetch('/api/v1/api-keys', { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(methodsOf(res.headers.get('allow'))).toEqual(['GET', 'POST']);
    expect(await res.json()).toMatchObject({ success: false, code: 'METHOD_NOT_ALLOWED' });

    const item = await t.fetch(`/api/v1/api-keys/${someId}`, { method: 'POST' });
    expect(item.status).toBe(405);
    expect(methodsOf(item.headers.get('allow'))).toEqual(['DELETE', 'GET']);

    // A path that is no resource for any method is 404, not 405.
    expect((await t.fetch(`/api/v1/no-such-entity/${someId}`, { method: 'PUT' })).status).toBe(404);
  });

  test('the rendition route', async () => {
    const res = await t.fetch(`/api/v1/media/${someId}/render`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(methodsOf(res.headers.get('allow'))).toEqual(['GET', 'HEAD']);
  });

  test("an entity operation the definition turns off: Allow leaves it out, and lists the entity's other methods", async () => {
    const deleted = await t.fetch(`/api/v1/customers/${someId}`, { method: 'DELETE' });
    expect(deleted.status).toBe(405);
    expect(methodsOf(deleted.headers.get('allow'))).toEqual(['GET']);

    // A method the path does not declare at all, on the same entity: the same list.
    const put = await t.fetch(`/api/v1/customers/${someId}`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(methodsOf(put.headers.get('allow'))).toEqual(['GET']);

    // Children follow the parent's update: adding a note is off; listing them is not.
    const note = await t.json('POST', `/api/v1/customers/${someId}/child/notes`, { body: 'hello' });
    expect(note.status).toBe(405);
    expect(methodsOf(note.headers.get('allow'))).toEqual(['GET']);

    // Another entity keeps every method.
    const posts = await t.fetch(`/api/v1/posts/${someId}`, { method: 'PUT' });
    expect(posts.status).toBe(405);
    expect(methodsOf(posts.headers.get('allow'))).toEqual(['DELETE', 'GET', 'PATCH']);
  });

  test('GraphQL: a mutation by GET', async () => {
    const res = await t.fetch(`/graphql?query=${encodeURIComponent('mutation { logout }')}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(405);
    expect(methodsOf(res.headers.get('allow'))).toEqual(['POST']);
  });
});
