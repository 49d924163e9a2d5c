// Aggregation (aggregate.ts) as clients see it, through GraphQL (`tasksAggregate`) and REST
// (`/api/v1/tasks/aggregate`): counts, sums, averages, minimums and maximums equal to what a plain
// computation over the caller's records gives, per group and with LIST's filters; never over
// records the caller cannot list (another user's private tasks, another team's, unpublished posts
// for anonymous callers); refused parameters are 400 with their path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { countStatements } from '../../testkit/statements.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
let owner: SignedUpUser;
const tasks: Row[] = [];
const as = () => ({ cookie: owner.cookie });

const inputs = [
  { title: 'a', status: 'todo', estimatedHours: 1, dueDate: '2026-01-10', completed: false },
  { title: 'b', status: 'todo', estimatedHours: 2.5, dueDate: '2026-03-01' },
  { title: 'c', status: 'done', estimatedHours: 4, completed: true },
  { title: 'd', status: 'done', dueDate: '2026-02-01', completed: true },
  { title: 'e', status: 'review', estimatedHours: 8, dueDate: '2026-01-05' },
];

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t);
  for (const input of inputs) tasks.push((await t.json('POST', '/api/v1/tasks', input, as())).body.data);
  // Another user's tasks (another team, and private anyway) never count.
  const other = await signUp(t);
  await t.json('POST', '/api/v1/tasks', { title: 'x', status: 'todo', estimatedHours: 100, dueDate: '2020-01-01' }, { cookie: other.cookie });
});
afterAll(() => t?.close());

/** What a group of `rows` should answer. */
function expected(rows: Row[]) {
  const hours = rows.map((r) => r.estimatedHours).filter((h): h is number => h !== null);
  const days = rows.map((r) => r.dueDate).filter((d): d is string => d !== null).sort();
  return {
    count: rows.length,
    sum: { estimatedHours: hours.length ? hours.reduce((a, b) => a + b, 0) : null },
    avg: { estimatedHours: hours.length ? hours.reduce((a, b) => a + b, 0) / hours.length : null },
    min: { estimatedHours: hours.length ? Math.min(...hours) : null, dueDate: days[0] ?? null },
    max: { estimatedHours: hours.length ? Math.max(...hours) : null, dueDate: days.at(-1) ?? null },
  };
}

const selection = 'count sum { estimatedHours } avg { estimatedHours } min { estimatedHours dueDate } max { estimatedHours dueDate }';

describe('GraphQL', () => {
  it('aggregates every record the caller can list, in one group without groupBy', async () => {
    const res = await t.graphql(`{ tasksAggregate { groups { ${selection} } } }`, {}, as());
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.tasksAggregate.groups).toEqual([expected(tasks)]);
  });

  it('groups by a field, sorted by key, with the filters LIST takes', async () => {
    const res = await t.graphql(`{ tasksAggregate(groupBy: [status]) { groups { key { status } ${selection} } } }`, {}, as());
    const statuses = ['todo', 'done', 'review'].sort();
    expect(res.body.data.tasksAggregate.groups).toEqual(
      statuses.map((status) => ({ key: { status: status.toUpperCase() }, ...expected(tasks.filter((r) => r.status === status)) })),
    );
    const filtered = await t.graphql('query($w: TaskWhere) { tasksAggregate(groupBy: [completed, status], where: $w) { groups { key { completed status } count } } }', { w: { dueDate: { isNull: false } } }, as());
    const dated = tasks.filter((r) => r.dueDate !== null);
    expect(filtered.body.data.tasksAggregate.groups).toEqual([
      { key: { completed: false, status: 'REVIEW' }, count: dated.filter((r) => !r.completed && r.status === 'review').length },
      { key: { completed: false, status: 'TODO' }, count: dated.filter((r) => !r.completed && r.status === 'todo').length },
      { key: { completed: true, status: 'DONE' }, count: dated.filter((r) => r.completed && r.status === 'done').length },
    ]);
  });

  it('computes the measures asked, however they are asked: through fragments, aliases and @include', async () => {
    const whole = expected(tasks);
    const query = `query($min: Boolean!, $max: Boolean!) {
      tasksAggregate { groups { ...Measured hours: sum { estimatedHours } max @include(if: $max) { dueDate } } }
    }
    fragment Measured on TaskAggregateGroup { count ... on TaskAggregateGroup { min @include(if: $min) { estimatedHours } } }`;
    const both = await t.graphql(query, { min: true, max: true }, as());
    expect(both.body.errors).toBeUndefined();
    expect(both.body.data.tasksAggregate.groups).toEqual([{ count: whole.count, min: { estimatedHours: whole.min.estimatedHours }, hours: whole.sum, max: { dueDate: whole.max.dueDate } }]);
    const fewer = await t.graphql(query, { min: false, max: false }, as());
    expect(fewer.body.data.tasksAggregate.groups).toEqual([{ count: whole.count, hours: whole.sum }]);
  });

  it('asks the list scope, and counts only published posts for anonymous callers', async () => {
    const key = (await t.json('POST', '/api/v1/api-keys', { name: 'writer', scopes: ['tasks:write'] }, as())).body.data.key as string;
    const refused = await t.graphql('{ tasksAggregate { groups { count } } }', {}, { authorization: `Bearer ${key}` });
    expect(refused.body.errors[0].message).toBe('Insufficient permissions - tasks:read scope required');
    await t.json('POST', '/api/v1/posts', { title: 'Draft', slug: 'draft' }, as());
    await t.json('POST', '/api/v1/posts', { title: 'Out', slug: 'out', status: 'published' }, as());
    const anonymous = await t.graphql('{ postsAggregate(groupBy: [status]) { groups { key { status } count } } }');
    expect(anonymous.body.data.postsAggregate.groups).toEqual([{ key: { status: 'PUBLISHED' }, count: 1 }]);
    const member = await t.graphql('{ postsAggregate { groups { count } } }', {}, as());
    expect(member.body.data.postsAggregate.groups).toEqual([{ count: 2 }]);
  });
});

describe('REST', () => {
  it('answers only what was asked for, values as REST gives them', async () => {
    const res = await t.json('GET', '/api/v1/tasks/aggregate?groupBy=status&sum=estimatedHours&status[ne]=review', undefined, as());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: ['done', 'todo'].map((status) => ({ key: { status }, count: expected(tasks.filter((r) => r.status === status)).count, sum: expected(tasks.filter((r) => r.status === status)).sum })),
    });
    const bare = await t.json('GET', '/api/v1/tasks/aggregate?count=false&min=dueDate&max=dueDate,createdAt&completed=true', undefined, as());
    const done = tasks.filter((r) => r.completed);
    expect(bare.body.data).toEqual([{ min: { dueDate: expected(done).min.dueDate }, max: { dueDate: expected(done).max.dueDate, createdAt: done.map((r) => r.createdAt).sort().at(-1) } }]);
  });

  it.each([
    ['groupBy=title', 'groupBy'],
    ['groupBy=status,priority,completed,dueDate', 'groupBy'],
    ['sum=status', 'sum'],
    ['avg=dueDate', 'avg'],
    ['min=title', 'min'],
    ['count=maybe', 'count'],
    ['page=1', 'page'],
    ['nope=1', 'nope'],
    ['status[like]=x', 'status[like]'],
  ])('refuses %s with 400 naming %s', async (query, path) => {
    const res = await t.json('GET', `/api/v1/tasks/aggregate?${query}`, undefined, as());
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'Invalid query parameters', code: 'VALIDATION_ERROR' });
    expect(res.body.details.errors.map((e: { path: string }) => e.path)).toEqual([path]);
  });

  it('asks the list scope, and answers 401 to nobody on a private entity', async () => {
    expect((await t.json('GET', '/api/v1/tasks/aggregate')).status).toBe(401);
    const key = (await t.json('POST', '/api/v1/api-keys', { name: 'deleter', scopes: ['tasks:delete'] }, as())).body.data.key as string;
    expect((await t.json('GET', '/api/v1/tasks/aggregate', undefined, { authorization: `Bearer ${key}` })).status).toBe(403);
  });
});

describe('a count without groups', () => {
  it("is LIST's total for the same filters, counted once while the team's rows are unchanged, again after a write", async () => {
    const path = '/api/v1/tasks/aggregate?status=todo&estimatedHours[gte]=0.5';
    const counted = async () => {
      const counter = countStatements();
      try {
        const res = await t.json('GET', path, undefined, as());
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return { count: res.body.data[0].count as number, statements: counter.statements() };
      } finally {
        counter.stop();
      }
    };
    const todo = () => tasks.filter((r) => r.status === 'todo' && r.estimatedHours !== null && r.estimatedHours >= 0.5);
    const first = await counted();
    expect(first.count).toBe(todo().length);
    // The same count again: the team's rows have not changed, so it is not counted again.
    const again = await counted();
    expect(again).toEqual({ count: first.count, statements: first.statements - 1 });
    // LIST with the same filters reads the same remembered total.
    const list = await t.json('GET', '/api/v1/tasks?status=todo&estimatedHours[gte]=0.5', undefined, as());
    expect(list.body.pagination.total).toBe(first.count);
    // A write renews the version: the next count is counted, and right.
    tasks.push((await t.json('POST', '/api/v1/tasks', { title: 'f', status: 'todo', estimatedHours: 3 }, as())).body.data);
    const after = await counted();
    expect(after).toEqual({ count: first.count + 1, statements: first.statements });
    // With a measure asked the rows are read as before, and agree.
    const measured = await t.json('GET', `${path}&sum=estimatedHours`, undefined, as());
    expect(measured.body.data[0]).toEqual({ count: todo().length, sum: expected(todo()).sum });
  });
});

describe('remembered', () => {
  it('answers a grouped aggregate again from memory while the team’s rows are unchanged, computes it after any write, and never gives one member’s to another', async () => {
    const user = await signUp(t);
    const mine = { cookie: user.cookie };
    for (const input of [{ title: 'p', status: 'todo', estimatedHours: 2 }, { title: 'q', status: 'done', estimatedHours: 3 }]) await t.json('POST', '/api/v1/tasks', input, mine);
    const path = '/api/v1/tasks/aggregate?groupBy=status&sum=estimatedHours';
    const asked = async (who: { cookie: string }) => {
      const counter = countStatements();
      try {
        const res = await t.json('GET', path, undefined, who);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return { groups: res.body.data as Row[], statements: counter.statements() };
      } finally {
        counter.stop();
      }
    };
    const first = await asked(mine);
    expect(first.groups).toEqual([
      { key: { status: 'done' }, count: 1, sum: { estimatedHours: 3 } },
      { key: { status: 'todo' }, count: 1, sum: { estimatedHours: 2 } },
    ]);
    // Unchanged: the version read alone, the grouping not run again.
    expect(await asked(mine)).toEqual({ groups: first.groups, statements: first.statements - 1 });
    // A write straight in SQL renews the version: computed again, and right.
    await t.database.prisma.$executeRaw`UPDATE tasks SET estimated_hours = 10 WHERE user_id = ${user.id}::uuid AND status = 'todo'`;
    const after = await asked(mine);
    expect(after).toEqual({ groups: [first.groups[0], { key: { status: 'todo' }, count: 1, sum: { estimatedHours: 10 } }], statements: first.statements });
    // A teammate asking the same of private tasks gets their own records' groups (none), not the remembered ones.
    const mate = await signUp(t);
    await joinTeam(t, user, user.activeTeamId, mate);
    expect((await asked({ cookie: mate.cookie })).groups).toEqual([]);
  });
});

describe('bounded', () => {
  it('refuses more than 1,000 groups with 400 rather than cut them, and answers 1,000', async () => {
    const user = await signUp(t);
    const teamId = (await t.json('POST', '/api/v1/tasks', { title: 'first', estimatedHours: 0 }, { cookie: user.cookie })).body.data.teamId as string;
    await t.database.prisma.$executeRaw`
      INSERT INTO tasks (id, team_id, user_id, title, status, priority, estimated_hours, completed, updated_at)
      SELECT gen_random_uuid(), ${teamId}::uuid, ${user.id}::uuid, 'g' || i, 'todo', 'medium', i, false, now() FROM generate_series(1, 999) AS i`;
    const query = '{ tasksAggregate(groupBy: [estimatedHours]) { groups { key { estimatedHours } count } } }';
    const fine = await t.graphql(query, {}, { cookie: user.cookie });
    expect(fine.body.data.tasksAggregate.groups).toHaveLength(1000);
    expect(fine.body.data.tasksAggregate.groups.slice(0, 2)).toEqual([{ key: { estimatedHours: 0 }, count: 1 }, { key: { estimatedHours: 1 }, count: 1 }]);
    // Past the free plan's 100 tasks: straight in SQL, as an import would.
    await t.database.prisma.$executeRaw`
      INSERT INTO tasks (id, team_id, user_id, title, status, priority, estimated_hours, completed, updated_at)
      VALUES (gen_random_uuid(), ${teamId}::uuid, ${user.id}::uuid, 'one more', 'todo', 'medium', 5000, false, now())`;
    const refused = await t.json('GET', '/api/v1/tasks/aggregate?groupBy=estimatedHours', undefined, { cookie: user.cookie });
    expect(refused).toMatchObject({ status: 400, body: { error: 'Invalid query parameters', details: { errors: [{ path: 'groupBy', message: expect.stringMatching(/more than 1000 groups/) }] } } });
  });
});
