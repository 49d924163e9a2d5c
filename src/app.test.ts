// The shared machinery through the front door: health, headers, errors, docs, metrics, GraphQL errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composedOpenApiDocument } from './app.js';
import { printedSchema } from './module-list.js';
import { readFileSync } from 'node:fs';
import { loadConfig } from './config/env.js';
import { createTestApp, type TestApp } from './testkit/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CORS_ORIGINS: 'https://app.example' });
});
afterAll(() => t.close());

describe('http basics', () => {
  it('answers /healthz with 200 once ready', async () => {
    const res = await t.json('GET', '/healthz');
    expect(res).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('puts security headers and a request id on every response, echoing a valid incoming id', async () => {
    const res = await t.fetch('/nope', { headers: { 'x-request-id': 'trace-12345678' } });
    expect(res.headers.get('x-request-id')).toBe('trace-12345678');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const generated = await t.fetch('/nope', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown paths with a 404 envelope and wrong methods with 405', async () => {
    expect(await t.json('GET', '/api/v1/nothing-here')).toMatchObject({ status: 404, body: { success: false, code: 'NOT_FOUND' } });
    expect(await t.json('DELETE', '/api/auth/session')).toMatchObject({ status: 405, body: { success: false, code: 'METHOD_NOT_ALLOWED' } });
  });

  it('serves CORS preflights and allows credentials only for configured origins', async () => {
    const pre = await t.fetch('/api/auth/login', { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
    expect(pre.headers.get('access-control-allow-headers')).toContain('x-api-key');
    const other = await t.fetch('/healthz', { headers: { origin: 'https://other.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('GraphQL errors', () => {
  // GraphQL over HTTP: request errors are 400 for application/graphql-response+json, 200 for legacy JSON.
  const modern = { accept: 'application/graphql-response+json' };

  it('answers a malformed query with a request error, not a 500', async () => {
    const res = await t.graphql('{ me { ', undefined, modern);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/Syntax Error/);
    expect((await t.graphql('{ me { ')).status).toBe(200);
  });

  it('answers an unknown field with a request error', async () => {
    const res = await t.graphql('{ doesNotExist }', undefined, modern);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/doesNotExist/);
  });

  it('answers plain JSON requests (served directly) exactly as yoga does for the same operation', async () => {
    // An Accept list that is not one of the plain values sends the request through yoga's full handling.
    const viaYoga = { accept: 'application/json, text/plain;q=0.5' };
    const user = await t.json('POST', '/api/auth/signup', { email: 'same@example.com', password: 'password-123', firstName: 'S', lastName: 'A' });
    const cookie = { cookie: String(user.headers.get('set-cookie')).split(';')[0]! };
    const cases: [string, Record<string, unknown> | undefined, Record<string, string>][] = [
      ['query Me { me { user { email } activeTeamId } }', undefined, cookie],
      ['{ me { activeTeamId } }', undefined, {}],
      ['query Me($x: Int) { me { activeTeamId } }', { x: 'not a number' }, cookie],
      ['{ me { ', undefined, {}],
      ['mutation { logout }', undefined, { ...cookie, origin: 'https://evil.example' }],
    ];
    for (const [query, variables, headers] of cases) {
      const direct = await t.graphql(query, variables, headers);
      const full = await t.graphql(query, variables, { ...headers, ...viaYoga });
      expect({ query, status: direct.status, body: direct.body }).toEqual({ query, status: full.status, body: full.body });
      expect(direct.headers.get('content-type')).toBe(full.headers.get('content-type'));
    }
  });

  it('rejects a body that is not a GraphQL request with a 400', async () => {
    const res = await t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body: '{"query": 42}' });
    expect(res.status).toBe(400);
    const bad = await t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": "{ me { activeTeamId } }", "extra": 1}' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors[0].message).toMatch(/Unexpected parameter "extra"/);
  });

  it('serves GraphiQL to a browser', async () => {
    const res = await t.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('GraphiQL');
  });
});

describe('docs and operations', () => {
  it('publishes every REST route in the OpenAPI document', async () => {
    const res = await t.json('GET', '/api/v1/openapi.json');
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/api/auth/signup', '/api/auth/login', '/api/auth/logout', '/api/auth/session']));
    expect(res.body.paths['/api/auth/login'].post.requestBody.content['application/json'].schema.required).toEqual(['email', 'password']);
    // Routes that are not declarations are documented too: the multipart upload.
    expect(res.body.paths['/api/v1/media/upload'].post.requestBody.content['multipart/form-data'].schema.properties.files.type).toBe('array');
    expect(res.body.paths['/api/v1/media/{id}/render'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['id', 'w', 'h', 'fit', 'format']);
    expect(res.body.paths['/api/v1/media'].get).toBeDefined();
    const page = await t.fetch('/api/v1/docs');
    // The page's start-up script is an asset (no inline script: docs CSP), and it loads the document.
    expect(await page.text()).toContain('/api/v1/docs/init.js');
    expect(await (await t.fetch('/api/v1/docs/init.js')).text()).toContain('/api/v1/openapi.json');
    expect((await t.fetch('/api/v1/docs/swagger-ui-bundle.js')).status).toBe(200);
  });

  it('exposes Prometheus metrics by route and status', async () => {
    await t.fetch('/healthz');
    const text = await (await t.fetch('/metrics')).text();
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(text).toContain('http_request_duration_seconds_bucket');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toContain('db_pool_connections');
  });

  it('answers /metrics only to the bearer token when METRICS_TOKEN is set; a short token is refused at start', async () => {
    const token = 'metrics-'.padEnd(40, 'x');
    const guarded = await createTestApp({ METRICS_TOKEN: token });
    try {
      for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${token}`, `Bearer ${token}x`]) {
        const refused = await guarded.fetch('/metrics', { headers: authorization ? { authorization } : {} });
        expect(refused.status, authorization).toBe(401);
        expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(await refused.json()).toMatchObject({ success: false, code: 'UNAUTHENTICATED' });
      }
      const allowed = await guarded.fetch('/metrics', { headers: { authorization: `Bearer ${token}` } });
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain('http_requests_total');
    } finally {
      await guarded.close();
    }
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });

  it('keeps schema/schema.graphql in step with the code', () => {
    expect(readFileSync(new URL('../schema/schema.graphql', import.meta.url), 'utf8')).toBe(printedSchema());
  });

  it('serves at /api/v1/openapi.json the document npm run generate and lint:openapi make without a server (composedOpenApiDocument)', async () => {
    const served = await t.fetch('/api/v1/openapi.json');
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(JSON.stringify(composedOpenApiDocument()));
  });
});
