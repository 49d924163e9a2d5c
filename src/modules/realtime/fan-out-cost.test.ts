// What one write costs the server when one user holds many subscriptions (issue 36: 500 distinct
// filters of one user made every write 500 reads, and every tenant waited): the SQL statements of a
// write with 60 subscriptions of one user, each with its own filter, are those of a write with one;
// filters the database must decide (case-insensitive text, search, relations) are capped per user and
// per anonymous address (REALTIME_MAX_FILTER_GROUPS, 429 past it, also for a concurrent burst).
// Statements are counted at the driver (testkit/statements.ts), one write at a time. On PGlite and,
// with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { openEventStream, type SseClient } from '../../testkit/event-stream.js';
import { subscribeOverSse } from '../../testkit/graphql-subscriptions.js';
import { countStatements } from '../../testkit/statements.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
const maxFilterGroups = 3;
const closers: Array<() => unknown> = [];
const as = (u: SignedUpUser) => ({ cookie: u.cookie });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let account = 70_000;

beforeAll(async () => {
  // No credential rechecks while statements are counted; no request limits on the many opens.
  t = await createTestApp({ REALTIME_RECHECK_MS: '60000', REALTIME_MAX_FILTER_GROUPS: String(maxFilterGroups), RATE_LIMIT_ENABLED: 'false' });
});
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await t?.close();
});

async function stream(path: string, headers: Record<string, string> = {}): Promise<SseClient & { refusal: any }> {
  const opened = await openEventStream(`${t.origin}${path}`, headers);
  closers.push(opened.close);
  return opened;
}

async function write(u: SignedUpUser, method: string, path: string, body?: unknown): Promise<Row> {
  const res = await t.json(method, path, body, as(u));
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body?.data;
}

/** Statements sent while `act` runs and for a moment after (work the answer left behind). */
async function statementsOf(act: () => Promise<unknown>): Promise<number> {
  const counter = countStatements();
  try {
    await act();
    await sleep(300);
    return counter.statements();
  } finally {
    counter.stop();
  }
}

const where = (w: Row) => `filter=${encodeURIComponent(JSON.stringify(w))}`;

describe('distinct filters of one user', () => {
  it('cost a write no more statements than one subscription does', async () => {
    const user = await signUp(t);
    const first = await stream(`/api/v1/customers/events?${where({ account: { ne: -1 } })}`, as(user));
    expect(first.status).toBe(200);
    /** A customer every subscriber's filter keeps, written and received by all of `subs`. */
    const writeSeenBy = (subs: SseClient[]) => async () => {
      const made = await write(user, 'POST', '/api/v1/customers', { name: 'Costly', account: account++, office: 'Madrid' });
      for (const s of subs) expect((await s.next()).data).toMatchObject({ type: 'CREATED', id: made.id });
    };
    await writeSeenBy([first])(); // warm: the paths and statements of a write are prepared once
    const alone = await statementsOf(writeSeenBy([first]));

    const others = await Promise.all(Array.from({ length: 59 }, (_, i) => stream(`/api/v1/customers/events?${where({ account: { ne: i } })}`, as(user))));
    expect(others.map((s) => s.status)).toEqual(others.map(() => 200));
    const sixty = await statementsOf(writeSeenBy([first, ...others]));
    // Before: one read (BEGIN, set_config, SELECT, COMMIT) per distinct filter, 59 more reads.
    console.log(`statements of a write: ${alone} with one subscription, ${sixty} with sixty distinct filters`);
    expect(sixty).toBeLessThanOrEqual(alone + 2);
    expect(alone).toBeGreaterThan(0);
  }, 120_000);
});

describe('filters read from the database, per user', () => {
  const insensitive = (office: string) => `/api/v1/customers/events?${where({ office: { eq: office, mode: 'INSENSITIVE' } })}`;

  it(`at most ${maxFilterGroups} distinct at once, also in a concurrent burst (429); the same filter again, or exact filters, are not counted`, async () => {
    const user = await signUp(t);
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => stream(insensitive(`office ${i}`), as(user))));
    const statuses = burst.map((s) => s.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(maxFilterGroups);
    expect(statuses.filter((s) => s === 429)).toHaveLength(8 - maxFilterGroups);
    const refused = burst.find((s) => s.status === 429)!;
    expect(refused.refusal).toMatchObject({ success: false, code: 'RATE_LIMITED', error: expect.stringContaining(`At most ${maxFilterGroups}`) });

    // One of the open filters again shares its group; exact filters are decided in memory, uncounted.
    const openOne = burst.findIndex((s) => s.status === 200);
    const again = await stream(insensitive(`office ${openOne}`), as(user));
    expect(again.status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await stream(`/api/v1/customers/events?office=Exact${i}`, as(user))).status).toBe(200);
    expect((await stream(`/api/v1/customers/events?search=acme`, as(user))).status).toBe(429);
    // GraphQL counts alike: refused with the same code.
    const graphql = await subscribeOverSse(t.origin, 'subscription { customerEvents(search: "other") { id } }', {}, as(user));
    closers.push(graphql.close);
    expect(JSON.stringify(await graphql.next().catch(() => graphql.body))).toContain('RATE_LIMITED');

    // Another user has places of their own; a key of the same user shares the user's.
    const other = await signUp(t);
    expect((await stream(insensitive('office new'), as(other))).status).toBe(200);
    const key = await createKey(t, user, { scopes: ['customers:read'] });
    expect((await stream(insensitive('office new'), bearer(key.key))).status).toBe(429);

    // Closing both subscriptions of a group frees its place (once the server notices they left).
    burst[openOne]!.close();
    again.close();
    const reopened = async () => {
      for (let i = 0; i < 100; i++) {
        const s = await stream(insensitive('office new'), as(user));
        if (s.status !== 429) return s.status;
        await sleep(100);
      }
      return 429;
    };
    expect(await reopened()).toBe(200);
  }, 120_000);

  it('the same filter on another entity is another read, counted apart', async () => {
    const user = await signUp(t);
    for (const term of ['a', 'b', 'c']) expect((await stream(`/api/v1/customers/events?search=${term}`, as(user))).status).toBe(200);
    expect((await stream('/api/v1/customers/events?search=a', as(user))).status).toBe(200);
    expect((await stream('/api/v1/posts/events?search=a', as(user))).status).toBe(429);
  });

  it('anonymous callers of a public entity are counted per address', async () => {
    const opened = await Promise.all(Array.from({ length: maxFilterGroups + 2 }, (_, i) => stream(`/api/v1/posts/events?${where({ slug: { startsWith: `post-${i}`, mode: 'INSENSITIVE' } })}`)));
    expect(opened.filter((s) => s.status === 200)).toHaveLength(maxFilterGroups);
    expect(opened.filter((s) => s.status === 429)).toHaveLength(2);
  });
});
