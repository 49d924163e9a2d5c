// The HTML pages over HTTP: each carries the content-security policy it needs and no more (GraphiQL's
// was the API's, so a browser showed a blank page), GRAPHIQL and GRAPHQL_INTROSPECTION with their
// defaults, and the landing page at `/`. The browser test (pages.browser.test.ts) runs the pages.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../config/env.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

const introspection = '{ __schema { queryType { name } } }';
const html = { accept: 'text/html' };

/** The policy's directives by name. */
function directives(csp: string | null): Map<string, string[]> {
  return new Map((csp ?? '').split(';').map((part) => part.trim().split(/\s+/)).filter((words) => words[0]).map(([name, ...sources]) => [name!, sources]));
}

describe('with the defaults of development and tests', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("GraphiQL's page runs its inline script by hash, loads nothing from elsewhere, and its policy is GraphiQL's alone", async () => {
    const res = await t.fetch('/graphql', { headers: html });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    const policy = directives(res.headers.get('content-security-policy'));
    // The page's one inline script, hashed: what a browser computes before running it.
    const script = /<script>([\s\S]*?)<\/script>/.exec(page)![1]!;
    const hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
    expect(policy.get('script-src')).toEqual([hash]);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('connect-src')).toEqual(["'self'"]);
    expect(policy.get('worker-src')).toEqual(['blob:']);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    // Every source is this origin, the page itself (data:, blob:) or a hash: no CDN, no other host.
    for (const sources of policy.values()) for (const source of sources) expect(source).toMatch(/^('self'|'none'|'unsafe-inline'|'sha256-[A-Za-z0-9+/=]+'|data:|blob:)$/);
    expect(page).not.toMatch(/<script[^>]+src=|<link[^>]+href="https?:/);
    // One Content-Type header (lower-cased, not doubled with yoga's "Content-Type").
    expect(res.headers.get('content-type')).not.toContain(',');

    // The API's answers keep the strict policy.
    const api = await t.graphql('{ __typename }');
    expect(api.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  test('the docs page runs no inline script: its policy allows scripts and styles from this origin only', async () => {
    const res = await t.fetch('/api/v1/docs');
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).not.toMatch(/<script>/);
    const policy = directives(res.headers.get('content-security-policy'));
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('style-src')).toEqual(["'self'"]);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    for (const src of page.matchAll(/(?:src|href)="([^"]+)"/g)) {
      if (src[1] === 'data:,') continue;
      const asset = await t.fetch(src[1]!);
      expect(asset.status, src[1]).toBe(200);
    }
    // An asset name that is an Object.prototype member is no asset.
    expect((await t.fetch('/api/v1/docs/constructor')).status).toBe(404);
  });

  test('introspection and GraphiQL are on', async () => {
    const res = await t.graphql(introspection);
    expect(res.status).toBe(200);
    expect(res.body.data.__schema.queryType.name).toBe('Query');
  });

  test('`/` is a page that points to the console, GraphiQL, the docs, the OpenAPI document and the health routes', async () => {
    const res = await t.fetch('/', { headers: html });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    const links = [...page.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual(['/console', '/graphql', '/api/v1/docs', '/api/v1/openapi.json', '/healthz', '/readyz']);
    const policy = directives(res.headers.get('content-security-policy'));
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toBeUndefined();
    expect(policy.get('style-src')).toHaveLength(1);
    // HEAD (uptime checkers, curl -I) gets the same status and headers, without the page.
    const head = await t.fetch('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await head.text()).toBe('');
  });
});

describe('GRAPHIQL=false, GRAPHQL_INTROSPECTION=false and CONSOLE=false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ GRAPHIQL: 'false', GRAPHQL_INTROSPECTION: 'false', CONSOLE: 'false' });
  });

  test('no console: /console and its assets are 404, and the landing page does not link to it', async () => {
    for (const route of ['/console', '/console/', '/console/assets/app.js']) {
      const res = await t.fetch(route, { headers: html });
      expect(res.status, route).toBe(404);
      expect(await res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    }
    expect(await (await t.fetch('/')).text()).not.toContain('href="/console"');
  });
  afterAll(() => t.close());

  test('no GraphiQL page, and the landing page does not link to it', async () => {
    const res = await t.fetch('/graphql', { headers: html });
    expect(res.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
    expect(await res.text()).not.toContain('GraphiQL');
    const landing = await (await t.fetch('/')).text();
    expect(landing).not.toContain('href="/graphql"');
  });

  test('introspection is refused, by POST (the fast path), by GET and for __type; other queries run', async () => {
    const post = await t.graphql(introspection);
    expect(post.body.data).toBeUndefined();
    expect(post.body.errors[0].message).toMatch(/introspection/i);
    const get = await t.fetch(`/graphql?query=${encodeURIComponent(introspection)}`, { headers: { accept: 'application/json' } });
    const getBody = await get.json();
    expect(getBody.errors[0].message).toMatch(/introspection/i);
    const type = await t.graphql('{ __type(name: "Query") { name } }');
    expect(type.body.errors[0].message).toMatch(/introspection/i);
    const plain = await t.graphql('{ __typename }');
    expect(plain.body).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('in production', () => {
  test('GraphiQL and introspection are off unless turned on', () => {
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ graphiql: false, graphqlIntrospection: false });
    expect(loadConfig({ NODE_ENV: 'production', GRAPHIQL: 'true', GRAPHQL_INTROSPECTION: '1' })).toMatchObject({ graphiql: true, graphqlIntrospection: true });
    expect(loadConfig({ NODE_ENV: 'development' })).toMatchObject({ graphiql: true, graphqlIntrospection: true });
    // The console stays on in production (CONSOLE=false turns it off).
    expect(loadConfig({ NODE_ENV: 'production' }).console).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', CONSOLE: 'false' }).console).toBe(false);
    expect(() => loadConfig({ GRAPHIQL: 'yes' })).toThrow(/GRAPHIQL/);
  });

  test('a production server serves neither', async () => {
    const t = await createTestApp({ NODE_ENV: 'production' });
    try {
      const page = await t.fetch('/graphql', { headers: html });
      expect(await page.text()).not.toContain('GraphiQL');
      const res = await t.graphql(introspection);
      expect(res.body.errors[0].message).toMatch(/introspection/i);
    } finally {
      await t.close();
    }
  });
});
