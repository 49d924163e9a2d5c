// A plan's limit on an entity (tasks: `planLimit: 'tasks'`) holds exactly: the create that reaches
// the limit passes, the next is refused, however many creates arrive at once, and counting is bounded
// by the limit rather than the team's table. Over HTTP, on either database (TEST_DATABASE_URL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

const limit = 5;
const as = (user: SignedUpUser) => ({ cookie: user.cookie });

describe('the tasks plan limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The free plan allows `limit` tasks; pro allows none at all, enterprise any number.
    t = await createTestApp({ PLANS_JSON: JSON.stringify({ free: { limits: { tasks: limit } } }) });
  });
  afterAll(() => t.close());

  const create = (user: SignedUpUser, title: string) => t.json('POST', '/api/v1/tasks', { title }, as(user));
  const usage = async (user: SignedUpUser) => (await t.json('GET', `/api/v1/teams/${user.activeTeamId}/usage/tasks`, undefined, as(user))).body.data;

  it('lets the create that reaches the limit pass and refuses the next with PLAN_LIMIT_REACHED', async () => {
    const user = await signUp(t);
    for (let n = 1; n <= limit; n++) expect((await create(user, `task ${n}`)).status).toBe(201);
    const over = await create(user, 'one too many');
    expect(over).toMatchObject({ status: 403, body: { success: false, code: 'PLAN_LIMIT_REACHED', details: { limitSlug: 'tasks', max: limit, current: limit } } });
    expect(await usage(user)).toMatchObject({ current: limit, max: limit, remaining: 0, allowed: false });
    // The refused create was counted after its INSERT, which its refusal rolled back: no row, no event.
    const sql = t.database.prisma;
    const rows = await sql.$queryRawUnsafe<[{ n: bigint }]>('SELECT count(*) AS n FROM tasks WHERE team_id = $1::uuid', user.activeTeamId);
    const events = await sql.$queryRawUnsafe<[{ n: bigint }]>("SELECT count(*) AS n FROM entity_events WHERE entity = 'tasks' AND team_id = $1::uuid", user.activeTeamId);
    expect([Number(rows[0].n), Number(events[0].n)]).toEqual([limit, limit]);

    // A deleted task frees its place, for exactly one create.
    const list = await t.json('GET', '/api/v1/tasks?limit=1', undefined, as(user));
    expect((await t.json('DELETE', `/api/v1/tasks/${list.body.data[0].id}`, undefined, as(user))).status).toBe(200);
    expect((await create(user, 'in the freed place')).status).toBe(201);
    expect((await create(user, 'again too many')).status).toBe(403);
  });

  it('counts every member’s tasks in the team, not only the caller’s', async () => {
    const owner = await signUp(t);
    const member = await signUp(t);
    const invited = await t.json('POST', `/api/v1/teams/${owner.activeTeamId}/members`, { email: member.email, role: 'member' }, as(owner));
    expect((await t.json('POST', `/api/v1/team-invitations/${invited.body.data.token}/accept`, {}, as(member))).status).toBe(200);
    for (let n = 1; n < limit; n++) expect((await create(owner, `owner's ${n}`)).status).toBe(201);
    expect((await t.json('POST', '/api/v1/teams/switch', { teamId: owner.activeTeamId }, as(member))).status).toBe(200);
    expect((await create(member, 'the last place')).status).toBe(201);
    expect((await create(member, 'no place left')).body.code).toBe('PLAN_LIMIT_REACHED');
    expect((await create(owner, 'nor for the owner')).status).toBe(403);
  });

  it('lets exactly the remaining creates pass when many arrive at once', async () => {
    const user = await signUp(t);
    for (let n = 1; n <= limit - 2; n++) expect((await create(user, `before ${n}`)).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, n) => create(user, `at once ${n}`)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 201, ...Array(10).fill(403)]);
    expect(await usage(user)).toMatchObject({ current: limit, max: limit });
  });
});

describe('an unlimited plan', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ PLANS_JSON: JSON.stringify({ free: { limits: { tasks: null } } }) });
  });
  afterAll(() => t.close());

  it('never refuses a create, and its usage counts every task', async () => {
    const user = await signUp(t);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, n) => t.json('POST', '/api/v1/tasks', { title: `task ${n}` }, as(user))));
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
    const usage = await t.json('GET', `/api/v1/teams/${user.activeTeamId}/usage/tasks`, undefined, as(user));
    expect(usage.body.data).toMatchObject({ current: 12, max: null, remaining: null, allowed: true });
  });

  it('keeps its count of a team\'s records equal to the rows, whatever writes them: the API, SQL, moves between teams, a rollback', async () => {
    const sql = t.database.prisma;
    const [a, b] = [await signUp(t), await signUp(t)];
    const current = async (user: SignedUpUser) => (await t.json('GET', `/api/v1/teams/${user.activeTeamId}/usage/tasks`, undefined, as(user))).body.data.current as number;
    const rows = async (user: SignedUpUser) => Number((await sql.$queryRawUnsafe<[{ n: bigint }]>('SELECT count(*) AS n FROM tasks WHERE team_id = $1::uuid', user.activeTeamId))[0].n);
    const agree = async () => {
      for (const user of [a, b]) expect(await current(user)).toBe(await rows(user));
    };
    const ids: string[] = [];
    for (let n = 0; n < 4; n++) ids.push((await t.json('POST', '/api/v1/tasks', { title: `a ${n}` }, as(a))).body.data.id);
    expect((await t.json('DELETE', `/api/v1/tasks/${ids[0]}`, undefined, as(a))).status).toBe(200);
    await agree();
    expect(await current(a)).toBe(3);
    // Straight in SQL: one statement moving two rows to another team, another inserting copies.
    await sql.$executeRawUnsafe('UPDATE tasks SET team_id = $1::uuid, user_id = $2::uuid WHERE id = ANY($3::uuid[])', b.activeTeamId, b.id, ids.slice(1, 3));
    await sql.$executeRawUnsafe("INSERT INTO tasks (id, team_id, user_id, title, status, priority, tags, completed, metas, created_at, updated_at) SELECT gen_random_uuid(), team_id, user_id, title || ' copy', status, priority, tags, completed, metas, now(), now() FROM tasks WHERE team_id = $1::uuid", b.activeTeamId);
    await agree();
    expect([await current(a), await current(b)]).toEqual([1, 4]);
    // A statement rolled back leaves the count as it was.
    await expect(
      sql.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('DELETE FROM tasks WHERE team_id = $1::uuid', b.activeTeamId);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await agree();
    await sql.$executeRawUnsafe('DELETE FROM tasks WHERE team_id = $1::uuid', b.activeTeamId);
    await agree();
    expect(await current(b)).toBe(0);
  });

  it('counts live records on a soft-deleting entity: a trashed one leaves the count, a restored one comes back, a purged one stays gone', async () => {
    const sql = t.database.prisma;
    const user = await signUp(t);
    const records = async () => Number((await sql.$queryRawUnsafe<{ records: number }[]>("SELECT records FROM record_versions WHERE table_name = 'posts' AND team_id = $1::uuid", user.activeTeamId))[0]?.records ?? 0);
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push((await t.json('POST', '/api/v1/posts', { title: `Post ${n}`, slug: `post-${n}` }, as(user))).body.data.id);
    expect(await records()).toBe(3);
    expect((await t.json('DELETE', `/api/v1/posts/${ids[0]}`, undefined, as(user))).status).toBe(200);
    expect(await records()).toBe(2);
    expect((await t.json('POST', `/api/v1/posts/${ids[0]}/restore`, {}, as(user))).status).toBe(200);
    expect(await records()).toBe(3);
    expect((await t.json('DELETE', `/api/v1/posts/${ids[1]}`, undefined, as(user))).status).toBe(200);
    expect((await t.json('DELETE', `/api/v1/posts/${ids[1]}?purge=true`, undefined, as(user))).status).toBe(200);
    expect((await t.json('DELETE', `/api/v1/posts/${ids[2]}?purge=true`, undefined, as(user))).status).toBe(200);
    expect(await records()).toBe(1);
  });
});
