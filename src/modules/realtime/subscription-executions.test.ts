// A GraphQL subscription's nested selection per event (issue 36: ~0.6 ms per event and subscriber
// with a nested relation, even when all are alike): executed once per event for all of one user's
// subscriptions with the same document and authority, and apart for a caller who may see differently
// (a teammate: the owner's private task stays null for them; a key without projects:read: refused).
// Statements are counted at the driver (testkit/statements.ts), one write at a time, over graphql-ws.
// On PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { subscribeOverWs, wsClient, type Subscription } from '../../testkit/graphql-subscriptions.js';
import { countStatements } from '../../testkit/statements.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
const closers: Array<() => unknown> = [];
const as = (u: SignedUpUser) => ({ cookie: u.cookie });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  // No credential rechecks while statements are counted; no request limits on the many opens.
  t = await createTestApp({ REALTIME_RECHECK_MS: '60000', RATE_LIMIT_ENABLED: 'false' });
});
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await t?.close();
});

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

/** The fewest statements of three runs of `act`: background work (a key's usage flushed) lands in some. */
async function fewestStatementsOf(act: (round: number) => Promise<unknown>): Promise<number> {
  const counts: number[] = [];
  for (let round = 0; round < 3; round += 1) counts.push(await statementsOf(() => act(round)));
  return Math.min(...counts);
}

describe('GraphQL: a nested selection per event', () => {
  const query = 'subscription { customerEvents { id record { name projects { name milestone { title } } } } }';

  it('is executed once for one user’s alike subscriptions, and apart for a caller who may see differently', async () => {
    const owner = await signUp(t);
    const mate = await signUp(t);
    await joinTeam(t, owner, owner.activeTeamId, mate, 'member');
    const task = await write(owner, 'POST', '/api/v1/tasks', { title: 'Owner’s milestone' }); // private to its creator
    const customer = await write(owner, 'POST', '/api/v1/customers', { name: 'With projects', account: 1, office: 'Madrid' });
    await write(owner, 'POST', '/api/v1/projects', { name: 'Shared project', customerId: customer.id, milestoneId: task.id });
    const narrow = await createKey(t, owner, { scopes: ['customers:read'] }); // no projects:read

    const client = (headers: Record<string, string>) => {
      const c = 'cookie' in headers ? wsClient(t.origin, { headers }) : wsClient(t.origin, { connectionParams: headers });
      closers.push(() => c.dispose());
      return c;
    };
    const subscribe = (c: ReturnType<typeof wsClient>) => {
      const sub = subscribeOverWs(c, query);
      closers.push(sub.close);
      return sub;
    };
    // The teammate and the narrow key are there from the start: what grows is the owner's subscriptions.
    const ownerClient = client(as(owner));
    const first = subscribe(ownerClient);
    const mates = subscribe(client(as(mate)));
    const narrowed = subscribe(client(bearer(narrow.key)));
    // What each subscription received, in order: told when a check fails (one event behind, or twice).
    const received = new Map<Subscription, string[]>();
    const rename = (subs: Subscription[], name: string) => async () => {
      await write(owner, 'PATCH', `/api/v1/customers/${customer.id}`, { name });
      const results = await Promise.all(subs.map((s) => s.next(20_000)));
      results.forEach((r, i) => received.set(subs[i]!, [...(received.get(subs[i]!) ?? []), `${name}: ${r.data?.customerEvents?.record?.name ?? JSON.stringify(r.errors ?? r)}`]));
      return results;
    };
    await sleep(500); // the subscriptions are open once the server answered their subscribe messages
    // Every subscriber's event is awaited, the narrow key's too (its execution refused per event), so
    // that each count holds one write's executions, none of the previous write's.
    await rename([first, mates, narrowed], 'Warm')();
    const alone = await fewestStatementsOf((round) => rename([first, mates, narrowed], `One ${round}`)());

    const more = Array.from({ length: 19 }, () => subscribe(ownerClient));
    await sleep(1_000);
    let results: any[] = [];
    const twenty = await fewestStatementsOf(async (round) => (results = await rename([first, ...more, mates, narrowed], `Twenty ${round}`)()));
    // Before: one execution (BEGIN, set_config, the projects, their milestones, COMMIT) per subscription.
    console.log(`statements of a write: ${alone} with one subscription of the owner, ${twenty} with twenty (and the teammate's, the narrow key's)`);
    expect(twenty).toBeLessThanOrEqual(alone + 2);

    const mine = results.slice(0, 20);
    const sequences = () => JSON.stringify([...received.values()], null, 1);
    mine.forEach((result, i) => expect(result.data.customerEvents.record, `subscription ${i}; what each received: ${sequences()}`).toEqual({ name: 'Twenty 2', projects: [{ name: 'Shared project', milestone: { title: 'Owner’s milestone' } }] }));
    // The teammate sees the project, not the owner's private task; the narrow key not the projects.
    expect(results[20].data.customerEvents.record).toEqual({ name: 'Twenty 2', projects: [{ name: 'Shared project', milestone: null }] });
    // The narrow key gets the event with a refusal of the projects (their rule), never the projects.
    const refused = results[21];
    expect(refused.data.customerEvents.id).toBe(customer.id);
    expect(JSON.stringify(refused.errors)).toContain('Insufficient permissions - projects:read scope required');
    expect(JSON.stringify(refused)).not.toContain('Shared project');
  }, 120_000);
});
