// Hostile input that reached the database or a prototype and answered 500: NUL characters anywhere,
// integers past 32 bits and out-of-range dates in filters and paging, look-ups by Object.prototype
// member names, single-valued query parameters given twice, and two deletes of one record at once.
// Every answer is a 4xx in the envelope, and nothing the app logs carries a configuration secret or
// key material (the app's own logger writes into this test).
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { bearer, createKey, type MintedKey } from '../testkit/api-keys.js';
import { pngFile, upload } from '../testkit/media.js';
import { addMember, createTeam } from '../testkit/teams.js';
import { createEndpoint } from '../testkit/webhooks.js';
import { rawExchange, rawRequestBytes } from '../testkit/raw-http.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';
import { createLogger } from '../logger.js';

const databasePassword = 'pw-Zq8vW3kLr9Tx';
const cronSecret = 'cron-secret-0123456789abcdef0123456789abcdef';
let logs = '';
let t: TestApp;
let alice: SignedUpUser;
let key: MintedKey;
beforeAll(async () => {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs += chunk.toString();
      done();
    },
  });
  t = await createTestApp(
    {
      RATE_LIMIT_ENABLED: 'false',
      LOG_LEVEL: 'info',
      // Held in the configuration only (the test database is handed to the app): what must never be logged.
      DATABASE_URL: `postgresql://app:${databasePassword}@db.example.invalid:5432/platform`,
      CRON_SECRET: cronSecret,
      WEBHOOKS_ALLOW_PRIVATE: 'true',
    },
    undefined,
    { logDestination: destination },
  );
  alice = await signUp(t);
  key = await createKey(t, alice, { name: 'hostile', scopes: ['tasks:read'] });
}, 120_000);
afterAll(() => t.close());

const as = () => ({ cookie: alice.cookie });

/** A refusal in the envelope: 4xx, success false, no stack trace. */
function expectRefused(res: { status: number; body: any }, what: string): void {
  expect(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${JSON.stringify(res.body)}`).toBe(true);
  if (res.body && 'success' in res.body) expect(res.body.success).toBe(false);
  expect(JSON.stringify(res.body ?? '')).not.toMatch(/\n\s+at |\\n\s+at /);
}

describe('look-ups by Object.prototype member names', () => {
  const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'prototype'];

  it('team usage of a prototype member is 404, never 500', async () => {
    for (const name of names) {
      const res = await t.json('GET', `/api/v1/teams/${alice.activeTeamId}/usage/${encodeURIComponent(name)}`, undefined, as());
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(404);
      expect(res.body.success).toBe(false);
    }
    const ok = await t.json('GET', `/api/v1/teams/${alice.activeTeamId}/usage/team_members`, undefined, as());
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ limitSlug: 'team_members', current: 1 });
  });

  it('entity routes, entity parameters and GraphQL entity look-ups by prototype member names are 4xx', async () => {
    for (const name of names) {
      const paths = [
        `/api/v1/${encodeURIComponent(name)}`,
        `/api/v1/tasks?sort=${encodeURIComponent(name)}`,
        `/api/v1/tasks?fields=${encodeURIComponent(name)}`,
        `/api/v1/tasks?${encodeURIComponent(name)}=1`,
        `/api/v1/tasks?${encodeURIComponent(name)}[gte]=1`,
        `/api/v1/tasks?include=${encodeURIComponent(name)}`,
      ];
      for (const path of paths) {
        // A parameter named like a prototype member is refused or ignored, never a 500.
        const res = await t.json('GET', path, undefined, as());
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
        expect(typeof res.body.success).toBe('boolean');
      }
      const gql = await t.graphql('query($e: ID!, $s: String) { task(id: $e) { id } tasks(search: $s) { total } }', { e: name, s: name }, as());
      expect(gql.body.errors?.[0]?.extensions?.code, `${name}: ${JSON.stringify(gql.body)}`).not.toBe('INTERNAL_ERROR');
    }
  });
});

describe('NUL and other control characters', () => {
  it('NUL in a signup body is a 4xx, not a 500 (unauthenticated)', async () => {
    const res = await t.json('POST', '/api/auth/signup', { email: 'nul\u0000@example.com', password: 'correct horse battery', firstName: 'A\u0000', lastName: 'B' });
    expectRefused(res, 'signup');
    const other = await t.json('POST', '/api/auth/signup', { email: 'ok-nul@example.com', password: 'correct horse battery', firstName: 'A\u0000b', lastName: 'B' });
    expectRefused(other, 'signup first name');
  });

  it('NUL in REST bodies, query strings, GraphQL variables, paths and headers is a 4xx', async () => {
    const created = await t.json('POST', '/api/v1/tasks', { title: 'bad\u0000title' }, as());
    expectRefused(created, 'task title');
    const team = await t.json('POST', '/api/v1/teams', { name: 'x\u0000y', slug: 'nul-team' }, as());
    expectRefused(team, 'team name');
    const query = await t.json('GET', '/api/v1/tasks?search=a%00b', undefined, as());
    expectRefused(query, 'search');
    const filter = await t.json('GET', '/api/v1/tasks?title=a%00b', undefined, as());
    expectRefused(filter, 'filter');
    const gql = await t.graphql('mutation($n: String!) { createMediaTag(input: { name: $n }) { id } }', { n: 'tag\u0000' }, as());
    expect(gql.body.errors?.[0]?.extensions?.code, JSON.stringify(gql.body)).not.toBe('INTERNAL_ERROR');
    expect(gql.status).toBeLessThan(500);
    const keyName = await t.json('POST', '/api/v1/api-keys', { name: 'k\u0000', scopes: ['tasks:read'] }, as());
    expectRefused(keyName, 'key name');
    // In a path or a header.
    expectRefused(await t.json('GET', '/api/v1/tasks/%00', undefined, as()), 'path');
    expect((await t.json('GET', '/api/v1/teams', undefined, { ...as(), 'x-team-id': 'a%00' })).status).toBeLessThan(500);
    // A raw NUL byte in a header value: node's parser refuses it before the app (answered in the envelope).
    const raw = await rawExchange(t.origin, rawRequestBytes('GET', '/api/v1/teams', { cookie: alice.cookie, 'x-team-id': 'a\u0000b' }));
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.body)).toMatchObject({ success: false, code: 'BAD_REQUEST' });
  });

  it('other control characters are kept as sent (docs/api/README.md: only NUL is refused)', async () => {
    const title = 'line one\nline\ttwo\r bell\u0007 escape\u001b del\u007f';
    const kept = await t.json('POST', '/api/v1/tasks', { title }, as());
    expect(kept.status, JSON.stringify(kept.body)).toBe(201);
    expect(kept.body.data.title).toBe(title);
    const read = await t.json('GET', `/api/v1/tasks/${kept.body.data.id}`, undefined, as());
    expect(read.body.data.title).toBe(title);
  });
});

describe('numbers and dates past what the database holds', () => {
  it('integers past 32 bits in filters and paging are 400', async () => {
    for (const path of ['/api/v1/customers?account=99999999999', '/api/v1/teams?page=2147483648', '/api/v1/teams?limit=99999999999', '/api/v1/tasks?page=99999999999', '/api/v1/customers?account[gte]=-99999999999']) {
      const res = await t.json('GET', path, undefined, as());
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.success).toBe(false);
    }
  });

  it('year-0 and out-of-range dates are 400', async () => {
    for (const path of ['/api/v1/tasks?dueDate=0000-01-01', '/api/v1/tasks?dueDate=99999-01-01', '/api/v1/tasks?dueDate[lt]=-001000-01-01', '/api/v1/tasks?createdAt[gte]=0000-12-31T00:00:00Z']) {
      const res = await t.json('GET', path, undefined, as());
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(400);
    }
    const created = await t.json('POST', '/api/v1/tasks', { title: 'old', dueDate: '0000-01-01' }, as());
    expectRefused(created, 'create with year 0');
  });
});

describe('a single-valued query parameter given twice', () => {
  it('is 400; a comma list stays a list', async () => {
    for (const path of ['/api/v1/teams?limit=1&limit=2', '/api/v1/tasks?page=1&page=2', '/api/v1/tasks?sort=title&sort=-title', '/api/v1/tasks?title=a&title=b']) {
      const res = await t.json('GET', path, undefined, as());
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.success).toBe(false);
    }
    const list = await t.json('GET', '/api/v1/tasks?fields=id,title&limit=5', undefined, as());
    expect(list.status, JSON.stringify(list.body)).toBe(200);
  });
});

describe('two deletes of one record at once', () => {
  it('one is 200, the other 404', async () => {
    for (let i = 0; i < 5; i++) {
      const created = await t.json('POST', '/api/v1/tasks', { title: `twice ${i}` }, as());
      expect(created.status).toBe(201);
      const id = created.body.data.id;
      const [a, b] = await Promise.all([t.json('DELETE', `/api/v1/tasks/${id}`, undefined, as()), t.json('DELETE', `/api/v1/tasks/${id}`, undefined, as())]);
      expect([a.status, b.status].sort(), JSON.stringify([a.body, b.body])).toEqual([200, 404]);
    }
  });

  it('of teams, members, webhooks and media: one succeeds, the other is 404 (API keys: revoked twice)', async () => {
    const twice = async (what: string, path: string) => {
      const [a, b] = await Promise.all([t.json('DELETE', path, undefined, as()), t.json('DELETE', path, undefined, as())]);
      const statuses = [a.status, b.status].sort();
      expect(statuses[0]! < 300 && statuses[1] === 404, `${what}: ${JSON.stringify([a, b].map((r) => [r.status, r.body]))}`).toBe(true);
    };
    for (let i = 0; i < 3; i++) {
      const teamId = await createTeam(t, alice, `twice-${i}-${Date.now()}`);
      const bob = await signUp(t);
      const memberId = await addMember(t, alice, teamId, bob);
      await twice('member', `/api/v1/teams/${teamId}/members/${memberId}`);
      await twice('team', `/api/v1/teams/${teamId}`);
      const minted = await createKey(t, alice, { name: `twice ${i}`, scopes: ['tasks:read'] });
      // A key is revoked, not deleted (it stays listed as inactive): revoking twice is 200 twice.
      const revocations = await Promise.all([0, 1].map(() => t.json('DELETE', `/api/v1/api-keys/${minted.id}`, undefined, as())));
      expect(revocations.map((r) => r.status)).toEqual([200, 200]);
      const endpoint = await createEndpoint(t, alice, { url: `http://127.0.0.1:9/hook-${i}` });
      await twice('webhook', `/api/v1/webhooks/${endpoint.id}`);
      const uploaded = await upload(t, [{ name: `twice-${i}.png`, content: await pngFile(4 + i, 4) }], as());
      expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
      await twice('media', `/api/v1/media/${uploaded.body.data.media[0].id}`);
    }
  });
});

describe('logs', () => {
  it('carry neither the database URL, its password, the cron secret nor key material', async () => {
    // Requests that log: an unknown cron secret, a bad key, and everything above.
    await t.fetch('/api/v1/cron/process', { headers: { 'x-cron-secret': 'wrong' } });
    await t.json('GET', '/api/v1/tasks', undefined, bearer(`${key.key.slice(0, -4)}xxxx`));
    await t.json('GET', '/api/v1/tasks', undefined, bearer(key.key));
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(databasePassword);
    expect(logs).not.toContain('db.example.invalid');
    expect(logs).not.toContain(cronSecret);
    expect(logs).not.toContain(key.key);
    expect(logs).not.toContain(key.key.slice(-20));
  });

  it('a line that quotes a configuration secret anyway (an error message quoting an object) has it replaced', async () => {
    let line = '';
    const log = createLogger(t.config, new Writable({ write: (chunk: Buffer, _encoding, done) => void ((line += chunk.toString()), done()) }));
    log.error({ err: new Error(`failed: ${inspect({ config: t.config }, { depth: 3 })}`), context: { config: t.config } }, `quoting ${cronSecret}`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(line).toContain('[redacted]');
    expect(line).not.toContain(databasePassword);
    expect(line).not.toContain(cronSecret);
  });
});
