// Concurrent cron callers on two app instances over one database: 2,000 due actions on PostgreSQL
// (300 on PGlite, whose single connection serialises the claims), some sharing lock groups. Every
// execution is recorded by the handler with its start and end: each action runs exactly once, and no
// two actions of one lock group ever run at the same time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testDatabaseUrl } from '../../testkit/database.js';
import { cronSecret, runCron, withActions } from '../../testkit/scheduled-actions.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { defineAction } from '../module-description.js';
import { claimDue, settle } from './repository.js';

const onPostgres = testDatabaseUrl !== undefined;
const total = onPostgres ? 2000 : 300;
const groups = onPostgres ? 20 : 10;
const perGroup = onPostgres ? 10 : 5;
const batchSize = 50;
const lateRounds = 10;

interface Execution {
  id: string;
  group: string | null;
  start: number;
  end: number;
}
const executions: Execution[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const record = defineAction({ handler: {
  actionType: 'test:record',
  payload: z.object({ n: z.number() }),
  run: async (_payload, { action }) => {
    const start = performance.now();
    // Grouped actions take longer, so that other callers' claims meet their group running.
    await sleep(action.lockGroup ? 2 + Math.random() * 6 : Math.random() * 3);
    executions.push({ id: action.id, group: action.lockGroup, start, end: performance.now() });
  },
} });

let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  const env = { CRON_SECRET: cronSecret, SCHEDULED_ACTIONS_BATCH_SIZE: String(batchSize) };
  a = await createTestApp(env, undefined, { modules: withActions(record) });
  b = await createTestApp(env, a, { modules: withActions(record) });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function remaining(): Promise<number> {
  return a.database.prisma.scheduledAction.count({ where: { status: { in: ['pending', 'running'] } } });
}

/** Calls the cron route until nothing is left to run; the actions it processed. */
async function caller(app: TestApp): Promise<number> {
  let processed = 0;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const res = await runCron(app);
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([]);
    processed += res.body.processed;
    if (res.body.processed === 0) {
      if ((await remaining()) === 0) return processed;
      await sleep(2);
    }
  }
  throw new Error('the queue did not drain in time');
}

describe(`${onPostgres ? 'PostgreSQL' : 'PGlite'}: 4 concurrent cron callers on 2 instances over ${total} due actions`, () => {
  it('runs each action exactly once and never two actions of one lock group at once', async () => {
    // Due in a shuffled order over the last hour; the first groups × perGroup actions share lock groups.
    await a.database.prisma.$executeRaw`
      INSERT INTO scheduled_actions (id, action_type, payload, scheduled_at, slot_at, lock_group)
      SELECT gen_random_uuid(), 'test:record', jsonb_build_object('n', i), due, due,
             CASE WHEN i <= ${groups * perGroup} THEN 'group-' || (i % ${groups}) END
        FROM generate_series(1, ${total}) AS i, LATERAL (SELECT now() - random() * interval '1 hour' - interval '1 second' AS due) AS d`;

    // While the callers run, late actions of the same groups arrive, scheduled earlier than any
    // waiting one: a claimer whose snapshot predates another's claim then sees one of them as its
    // group's first (the race SKIP LOCKED alone loses).
    const producer = (async () => {
      for (let round = 0; round < lateRounds; round++) {
        await sleep(15);
        await a.database.prisma.$executeRaw`
          INSERT INTO scheduled_actions (id, action_type, payload, scheduled_at, slot_at, lock_group)
          SELECT gen_random_uuid(), 'test:record', jsonb_build_object('n', -g), now() - interval '2 hours', now() - interval '2 hours', 'group-' || g
            FROM generate_series(0, ${groups - 1}) AS g`;
      }
    })();
    const processed = await Promise.all([caller(a), caller(a), caller(b), caller(b), producer.then(() => 0)]);
    const all = total + lateRounds * groups;

    expect(processed.reduce((n, p) => n + p, 0)).toBe(all);
    expect(executions).toHaveLength(all);
    expect(new Set(executions.map((e) => e.id)).size).toBe(all);
    const rows = await a.database.prisma.scheduledAction.groupBy({ by: ['status', 'attempts'], _count: true });
    expect(rows).toEqual([{ status: 'completed', attempts: 1, _count: all }]);

    const byGroup = new Map<string, Execution[]>();
    for (const e of executions) if (e.group) byGroup.set(e.group, [...(byGroup.get(e.group) ?? []), e]);
    expect(byGroup.size).toBe(groups);
    for (const [group, runs] of byGroup) {
      expect(runs, group).toHaveLength(perGroup + lateRounds);
      runs.sort((x, y) => x.start - y.start);
      for (let i = 1; i < runs.length; i++) expect(runs[i]!.start, `${group} run ${i} started before run ${i - 1} ended`).toBeGreaterThanOrEqual(runs[i - 1]!.end);
    }

    // Batches really overlapped: at some instant more handlers ran than one batch holds.
    const edges = executions.flatMap((e) => [{ at: e.start, d: 1 }, { at: e.end, d: -1 }]).sort((x, y) => x.at - y.at || x.d - y.d);
    let running = 0;
    let most = 0;
    for (const edge of edges) most = Math.max(most, (running += edge.d));
    expect(most).toBeGreaterThan(batchSize);
  }, 180_000);

  it.runIf(onPostgres)('claims through the index on (status, scheduled_at, id)', async () => {
    await a.database.prisma.$executeRaw`ANALYZE scheduled_actions`;
    const plan = await a.database.prisma.$queryRaw<{ 'QUERY PLAN': unknown }[]>`
      EXPLAIN (FORMAT JSON) SELECT id FROM scheduled_actions WHERE status = 'pending' AND scheduled_at <= now() ORDER BY scheduled_at, id LIMIT 50 FOR UPDATE SKIP LOCKED`;
    expect(JSON.stringify(plan)).toContain('scheduled_actions_status_scheduled_at_id_idx');
  });

  it.runIf(onPostgres)('starts no action of a group whose claim is still uncommitted, even one scheduled earlier that arrived meanwhile', async () => {
    const prisma = a.database.prisma;
    const seed = (minutesAgo: number) => prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO scheduled_actions (id, action_type, payload, scheduled_at, slot_at, lock_group)
      VALUES (gen_random_uuid(), 'test:record', '{"n": 0}', now() - ${minutesAgo} * interval '1 minute', now() - ${minutesAgo} * interval '1 minute', 'held') RETURNING id::text`;
    const [first] = await seed(10);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let claimedByA: string[] = [];
    // Claimer A claims the group's action in a transaction it keeps open (a claim statement in flight).
    const a1 = prisma.$transaction(async (tx) => {
      claimedByA = (await claimDue(tx, new Date(), 10)).map((r) => r.id);
      await held;
    }, { timeout: 20_000 });
    while (claimedByA.length === 0) await sleep(5);
    expect(claimedByA).toEqual([first!.id]);
    // Meanwhile an earlier action of the group arrives: in claimer B's snapshot it is the group's first
    // pending action and nothing of the group runs yet.
    const [late] = await seed(20);
    const byB = await Promise.race([claimDue(prisma, new Date(), 10), sleep(3000).then(() => 'blocked' as const)]);
    expect(byB).toEqual([]);
    release();
    await a1;
    // A committed: the group has a running action, seen by the next claim.
    expect(await claimDue(prisma, new Date(), 10)).toEqual([]);
    const now = new Date();
    await settle(prisma, { id: first!.id, attempts: 1, status: 'completed', scheduledAt: null, completedAt: now, errorMessage: null, result: null, next: null }, now);
    expect((await claimDue(prisma, new Date(), 10)).map((r) => r.id)).toEqual([late!.id]);
  });
});
