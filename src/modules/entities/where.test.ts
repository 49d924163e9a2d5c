// LIST's operators and AND/OR/NOT (where.ts, rest-where.ts), as clients see them: every operator of
// every field type, through GraphQL (`where`), REST parameters (`{field}[op]=`) and REST `filter`
// (the JSON of the same `where`), each answered with exactly the records a plain predicate over the
// seeded records picks; and what is refused, with 400 and the offending path, before anything runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
let owner: SignedUpUser;
const tasks: Row[] = [];
const customers: Row[] = [];
const as = () => ({ cookie: owner.cookie });

const taskInputs = [
  { title: 'one', status: 'todo', priority: 'low', tags: ['x'], dueDate: '2026-01-10', estimatedHours: 1, completed: false },
  { title: 'two', status: 'in-progress', priority: 'high', tags: ['x', 'y'], dueDate: '2026-02-01', estimatedHours: 3 },
  { title: 'three', status: 'review', priority: 'urgent', tags: [], estimatedHours: 5, completed: true },
  { title: 'four', status: 'done', priority: 'medium', tags: ['y'], dueDate: '2026-03-15' },
  { title: 'five', status: 'blocked', priority: 'low', tags: ['z', 'x'], dueDate: '2026-01-10', estimatedHours: 2.5, completed: true },
  { title: 'six', status: 'todo', priority: 'urgent', tags: ['y', 'z'], estimatedHours: 8 },
];
const customerInputs = [
  { name: 'A', account: 1, office: 'Madrid', salesRep: 'Ana', visitDays: ['lun', 'mar'] },
  { name: 'B', account: 2, office: 'madrid north', visitDays: ['mar'] },
  { name: 'C', account: 3, office: 'Bilbao', salesRep: 'Luis', visitDays: [] },
  { name: 'D', account: 40, office: 'Sevilla_1', salesRep: 'ana', visitDays: ['lun', 'mar', 'vie'] },
  { name: 'E', account: 50, office: '50%off', visitDays: ['jue'] },
];

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t);
  for (const input of taskInputs) tasks.push((await t.json('POST', '/api/v1/tasks', input, as())).body.data);
  for (const input of customerInputs) customers.push((await t.json('POST', '/api/v1/customers', input, as())).body.data);
  expect(tasks.every((r) => r?.id) && customers.every((r) => r?.id)).toBe(true);
});
afterAll(() => t?.close());

interface Case {
  name: string;
  /** GraphQL `where`, enum values by name. */
  where: Row;
  /** The same as REST `{field}[op]` parameters, when it can be said without groups. */
  rest?: string;
  picks: (r: Row) => boolean;
}

const has = (r: Row, v: string) => (r.tags as string[]).includes(v);
const lower = (s: string | null) => s?.toLowerCase() ?? null;

const taskCases: Case[] = [
  { name: 'select eq', where: { status: { eq: 'IN_PROGRESS' } }, rest: 'status[eq]=in-progress', picks: (r) => r.status === 'in-progress' },
  { name: 'select ne', where: { status: { ne: 'DONE' } }, rest: 'status[ne]=done', picks: (r) => r.status !== 'done' },
  { name: 'select in', where: { status: { in: ['TODO', 'REVIEW'] } }, rest: 'status[in]=todo,review', picks: (r) => ['todo', 'review'].includes(r.status) },
  { name: 'select notIn', where: { priority: { notIn: ['LOW', 'URGENT'] } }, rest: 'priority[notIn]=low,urgent', picks: (r) => !['low', 'urgent'].includes(r.priority) },
  { name: 'select isNull', where: { status: { isNull: false } }, rest: 'status[isNull]=false', picks: () => true },
  { name: 'number gt', where: { estimatedHours: { gt: 2.5 } }, rest: 'estimatedHours[gt]=2.5', picks: (r) => r.estimatedHours !== null && r.estimatedHours > 2.5 },
  { name: 'number gte and lte', where: { estimatedHours: { gte: 2.5, lte: 5 } }, rest: 'estimatedHours[gte]=2.5&estimatedHours[lte]=5', picks: (r) => r.estimatedHours !== null && r.estimatedHours >= 2.5 && r.estimatedHours <= 5 },
  { name: 'number lt', where: { estimatedHours: { lt: 3 } }, rest: 'estimatedHours[lt]=3', picks: (r) => r.estimatedHours !== null && r.estimatedHours < 3 },
  { name: 'number eq', where: { estimatedHours: { eq: 8 } }, rest: 'estimatedHours[eq]=8', picks: (r) => r.estimatedHours === 8 },
  { name: 'number ne (never an empty field)', where: { estimatedHours: { ne: 3 } }, rest: 'estimatedHours[ne]=3', picks: (r) => r.estimatedHours !== null && r.estimatedHours !== 3 },
  { name: 'number in', where: { estimatedHours: { in: [1, 8] } }, rest: 'estimatedHours[in]=1,8', picks: (r) => [1, 8].includes(r.estimatedHours) },
  { name: 'number notIn (never an empty field)', where: { estimatedHours: { notIn: [1] } }, rest: 'estimatedHours[notIn]=1', picks: (r) => r.estimatedHours !== null && r.estimatedHours !== 1 },
  { name: 'number isNull', where: { estimatedHours: { isNull: true } }, rest: 'estimatedHours[isNull]=true', picks: (r) => r.estimatedHours === null },
  { name: 'date lt', where: { dueDate: { lt: '2026-02-01' } }, rest: 'dueDate[lt]=2026-02-01', picks: (r) => r.dueDate !== null && r.dueDate < '2026-02-01' },
  { name: 'date gte', where: { dueDate: { gte: '2026-02-01' } }, rest: 'dueDate[gte]=2026-02-01', picks: (r) => r.dueDate !== null && r.dueDate >= '2026-02-01' },
  { name: 'date eq', where: { dueDate: { eq: '2026-01-10' } }, rest: 'dueDate[eq]=2026-01-10', picks: (r) => r.dueDate === '2026-01-10' },
  { name: 'date in', where: { dueDate: { in: ['2026-03-15', '2026-02-01'] } }, rest: 'dueDate[in]=2026-03-15,2026-02-01', picks: (r) => ['2026-03-15', '2026-02-01'].includes(r.dueDate) },
  { name: 'date isNull', where: { dueDate: { isNull: true } }, rest: 'dueDate[isNull]=true', picks: (r) => r.dueDate === null },
  { name: 'boolean eq', where: { completed: { eq: true } }, rest: 'completed[eq]=true', picks: (r) => r.completed === true },
  { name: 'boolean ne', where: { completed: { ne: true } }, rest: 'completed[ne]=true', picks: (r) => r.completed === false },
  { name: 'multiselect has', where: { tags: { has: 'x' } }, rest: 'tags[has]=x', picks: (r) => has(r, 'x') },
  { name: 'multiselect hasSome', where: { tags: { hasSome: ['y', 'z'] } }, rest: 'tags[hasSome]=y,z', picks: (r) => has(r, 'y') || has(r, 'z') },
  { name: 'multiselect hasEvery', where: { tags: { hasEvery: ['x', 'y'] } }, rest: 'tags[hasEvery]=x,y', picks: (r) => has(r, 'x') && has(r, 'y') },
  { name: 'multiselect isEmpty', where: { tags: { isEmpty: true } }, rest: 'tags[isEmpty]=true', picks: (r) => r.tags.length === 0 },
  { name: 'multiselect isEmpty false', where: { tags: { isEmpty: false } }, rest: 'tags[isEmpty]=false', picks: (r) => r.tags.length > 0 },
  { name: 'two fields (AND)', where: { status: { eq: 'TODO' }, priority: { eq: 'URGENT' } }, rest: 'status[eq]=todo&priority[eq]=urgent', picks: (r) => r.status === 'todo' && r.priority === 'urgent' },
  {
    name: 'OR',
    where: { OR: [{ status: { eq: 'DONE' } }, { priority: { in: ['HIGH', 'URGENT'] } }] },
    picks: (r) => r.status === 'done' || ['high', 'urgent'].includes(r.priority),
  },
  { name: 'NOT', where: { NOT: { tags: { has: 'x' } } }, picks: (r) => !has(r, 'x') },
  {
    name: 'AND of OR and NOT',
    where: { AND: [{ OR: [{ estimatedHours: { isNull: true } }, { estimatedHours: { gte: 5 } }] }, { NOT: { status: { eq: 'TODO' } } }] },
    picks: (r) => (r.estimatedHours === null || r.estimatedHours >= 5) && r.status !== 'todo',
  },
  { name: 'empty OR matches nothing', where: { OR: [] }, picks: () => false },
  { name: 'empty AND matches everything', where: { AND: [] }, picks: () => true },
  { name: 'NOT of no condition matches nothing', where: { NOT: {} }, picks: () => false },
  { name: 'NOT of an empty OR matches everything', where: { NOT: { OR: [] } }, picks: () => true },
];

const customerCases: Case[] = [
  { name: 'text contains (case-sensitive)', where: { office: { contains: 'adri' } }, rest: 'office[contains]=adri', picks: (r) => r.office.includes('adri') },
  { name: 'text contains, insensitive', where: { office: { contains: 'MADRID', mode: 'INSENSITIVE' } }, rest: 'office[contains]=MADRID&office[mode]=insensitive', picks: (r) => lower(r.office)!.includes('madrid') },
  { name: 'text startsWith', where: { office: { startsWith: 'mad' } }, rest: 'office[startsWith]=mad', picks: (r) => r.office.startsWith('mad') },
  { name: 'text startsWith, insensitive', where: { office: { startsWith: 'mad', mode: 'INSENSITIVE' } }, rest: 'office[startsWith]=mad&office[mode]=insensitive', picks: (r) => lower(r.office)!.startsWith('mad') },
  { name: 'text endsWith', where: { office: { endsWith: 'north' } }, rest: 'office[endsWith]=north', picks: (r) => r.office.endsWith('north') },
  { name: 'text % is literal', where: { office: { contains: '%' } }, rest: 'office[contains]=%25', picks: (r) => r.office.includes('%') },
  { name: 'text _ is literal', where: { office: { contains: '_' } }, rest: 'office[contains]=_', picks: (r) => r.office.includes('_') },
  { name: 'text eq, insensitive', where: { salesRep: { eq: 'ANA', mode: 'INSENSITIVE' } }, rest: 'salesRep[eq]=ANA&salesRep[mode]=insensitive', picks: (r) => lower(r.salesRep) === 'ana' },
  { name: 'text ne, insensitive', where: { salesRep: { ne: 'ANA', mode: 'INSENSITIVE' } }, rest: 'salesRep[ne]=ANA&salesRep[mode]=insensitive', picks: (r) => r.salesRep !== null && lower(r.salesRep) !== 'ana' },
  { name: 'text in, insensitive', where: { salesRep: { in: ['ANA', 'luis'], mode: 'INSENSITIVE' } }, rest: 'salesRep[in]=ANA,luis&salesRep[mode]=insensitive', picks: (r) => ['ana', 'luis'].includes(lower(r.salesRep)!) },
  { name: 'text notIn', where: { salesRep: { notIn: ['Ana'] } }, rest: 'salesRep[notIn]=Ana', picks: (r) => r.salesRep !== null && r.salesRep !== 'Ana' },
  { name: 'text isNull', where: { salesRep: { isNull: true } }, rest: 'salesRep[isNull]=true', picks: (r) => r.salesRep === null },
  { name: 'integer in and gte', where: { account: { in: [1, 3, 40], gte: 3 } }, rest: 'account[in]=1,3,40&account[gte]=3', picks: (r) => [3, 40].includes(r.account) },
  { name: 'integer lte', where: { account: { lte: 3 } }, rest: 'account[lte]=3', picks: (r) => r.account <= 3 },
  { name: 'enumerated multiselect has', where: { visitDays: { has: 'LUN' } }, rest: 'visitDays[has]=lun', picks: (r) => r.visitDays.includes('lun') },
  { name: 'enumerated multiselect hasEvery', where: { visitDays: { hasEvery: ['LUN', 'VIE'] } }, rest: 'visitDays[hasEvery]=lun,vie', picks: (r) => r.visitDays.includes('lun') && r.visitDays.includes('vie') },
  { name: 'enumerated multiselect hasSome', where: { visitDays: { hasSome: ['VIE', 'JUE'] } }, rest: 'visitDays[hasSome]=vie,jue', picks: (r) => r.visitDays.includes('vie') || r.visitDays.includes('jue') },
];

const ids = (rows: Row[]) => rows.map((r) => r.id as string).sort();

function casesOf(slug: 'tasks' | 'customers', list: 'tasks' | 'customers', whereType: string, cases: Case[], seeded: () => Row[]) {
  describe(`${slug}: each operator answers what a predicate over the records picks`, () => {
    it.each(cases)('$name', async (c) => {
      const expected = ids(seeded().filter(c.picks));
      const query = `query($where: ${whereType}) { ${list}(where: $where, limit: 100) { items { id } total } }`;
      const graphql = await t.graphql(query, { where: c.where }, as());
      expect(graphql.body.errors, JSON.stringify(graphql.body.errors)).toBeUndefined();
      expect(ids(graphql.body.data[list].items)).toEqual(expected);
      expect(graphql.body.data[list].total).toBe(expected.length);

      const json = await t.json('GET', `/api/v1/${slug}?limit=100&filter=${encodeURIComponent(JSON.stringify(c.where))}`, undefined, as());
      expect(json.status, JSON.stringify(json.body)).toBe(200);
      expect(ids(json.body.data)).toEqual(expected);
      expect(json.body.pagination.total).toBe(expected.length);
      if (c.rest) {
        const params = await t.json('GET', `/api/v1/${slug}?limit=100&${c.rest}`, undefined, as());
        expect(params.status, JSON.stringify(params.body)).toBe(200);
        expect(ids(params.body.data)).toEqual(expected);
      }
    });
  });
}

casesOf('tasks', 'tasks', 'TaskWhere', taskCases, () => tasks);
casesOf('customers', 'customers', 'CustomerWhere', customerCases, () => customers);

describe('combined with the other filters and the stamps', () => {
  it('ANDs operators with {field}=, _min/_max, search and the filter JSON', async () => {
    const res = await t.json('GET', `/api/v1/tasks?limit=100&status=todo&estimatedHours_min=1&priority[in]=low,urgent&filter=${encodeURIComponent(JSON.stringify({ OR: [{ tags: { has: 'x' } }, { completed: { eq: false } }] }))}`, undefined, as());
    expect(res.status).toBe(200);
    // 'one' (todo, low, 1 h, x) passes everything; 'six' (todo, urgent, 8 h, no x, completed false) too.
    expect(res.body.data.map((r: Row) => r.title).sort()).toEqual(['one', 'six']);
  });

  it('filters on createdAt like a datetime field', async () => {
    const third = tasks[2]!;
    const res = await t.graphql('query($w: TaskWhere) { tasks(where: $w, limit: 100) { items { id } } }', { w: { createdAt: { gte: third.createdAt } } }, as());
    expect(ids(res.body.data.tasks.items)).toEqual(ids(tasks.filter((r) => r.createdAt >= third.createdAt)));
    const rest = await t.json('GET', `/api/v1/tasks?limit=100&createdAt[lt]=${encodeURIComponent(third.createdAt)}`, undefined, as());
    expect(ids(rest.body.data)).toEqual(ids(tasks.filter((r) => r.createdAt < third.createdAt)));
  });

  it('never reaches another user’s private records or another team’s', async () => {
    const other = await signUp(t);
    await t.json('POST', '/api/v1/tasks', { title: 'theirs', status: 'todo' }, { cookie: other.cookie });
    const mine = await t.graphql('{ tasks(where: { status: { in: [TODO, DONE] } }, limit: 100) { items { title } } }', {}, as());
    expect(mine.body.data.tasks.items.map((r: Row) => r.title).sort()).toEqual(['four', 'one', 'six']);
    const theirs = await t.json('GET', '/api/v1/tasks?status[in]=todo,done', undefined, { cookie: other.cookie });
    expect(theirs.body.data.map((r: Row) => r.title)).toEqual(['theirs']);
  });
});

describe('refused before anything runs', () => {
  const restPaths = async (query: string) => {
    const res = await t.json('GET', `/api/v1/tasks?${query}`, undefined, as());
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'Invalid query parameters', code: 'VALIDATION_ERROR' });
    return res.body.details.errors.map((e: { path: string }) => e.path) as string[];
  };

  it.each([
    ['status[contains]=x', 'status[contains]'],
    ['title[eq]=x', 'title[eq]'],
    ['nope[eq]=x', 'nope[eq]'],
    ['estimatedHours[gt]=abc', 'estimatedHours[gt]'],
    ['status[eq]=nope', 'status[eq]'],
    ['dueDate[lt]=2026-13-01', 'dueDate[lt]'],
    ['completed[isNull]=maybe', 'completed[isNull]'],
    ['status[in]=', 'status[in]'],
    ['status[mode]=insensitive', 'status[mode]'],
    ['filter={"OR":', 'filter'],
    ['filter=[]', 'filter'],
    ['filter={"OR":{"status":{"eq":"done"}}}', 'filter.OR'],
    ['filter={"status":"done"}', 'filter.status'],
    ['filter={"status":{"like":"d"}}', 'filter.status.like'],
    ['filter={"estimatedHours":{"gt":"x"}}', 'filter.estimatedHours.gt'],
    ['filter={"title":{"eq":"x"}}', 'filter.title'],
  ])('REST %s → 400 naming %s', async (query, path) => {
    expect(await restPaths(query)).toEqual([path]);
  });

  it('bounds the depth of groups and the number of conditions, on GraphQL as on REST', async () => {
    const deep = { NOT: { NOT: { NOT: { NOT: { status: { eq: 'DONE' } } } } } };
    const graphql = await t.graphql('query($w: TaskWhere) { tasks(where: $w) { total } }', { w: deep }, as());
    expect(graphql.body.errors[0]).toMatchObject({ message: 'Invalid query parameters', extensions: { code: 'VALIDATION_ERROR' } });
    expect(graphql.body.errors[0].extensions.details.errors[0].message).toMatch(/deeper than 4/);
    expect(await restPaths(`filter=${encodeURIComponent(JSON.stringify(deep))}`)).toEqual(['filter.NOT.NOT.NOT.NOT']);

    const many = { OR: Array.from({ length: 33 }, (_, i) => ({ estimatedHours: { eq: i } })) };
    const tooMany = await t.graphql('query($w: TaskWhere) { tasks(where: $w) { total } }', { w: many }, as());
    expect(tooMany.body.errors[0].extensions.details.errors[0].message).toMatch(/33 conditions; at most 32/);
    expect(await restPaths(`filter=${encodeURIComponent(JSON.stringify(many))}`)).toEqual(['where']);
    const fine = await t.graphql('query($w: TaskWhere) { tasks(where: $w) { total } }', { w: { OR: many.OR.slice(0, 32) } }, as());
    expect(fine.body.errors).toBeUndefined();
  });

  it('refuses lists over 100 values and texts that cannot be stored', async () => {
    const long = Array.from({ length: 101 }, (_, i) => `t${i}`);
    expect(await restPaths(`tags[hasSome]=${long.join(',')}`)).toEqual(['tags[hasSome]']);
    const graphql = await t.graphql('query($w: CustomerWhere) { customers(where: $w) { total } }', { w: { office: { contains: 'a\u0000b' } } }, as());
    expect(graphql.body.errors[0].extensions.details.errors[0]).toMatchObject({ path: 'where.office.contains' });
  });

  it('lets GraphQL refuse wrong types and unknown operators or fields', async () => {
    for (const w of [{ status: { eq: 'NOPE' } }, { status: { contains: 'x' } }, { title: { eq: 'x' } }, { estimatedHours: { gt: 'x' } }]) {
      const res = await t.graphql('query($w: TaskWhere) { tasks(where: $w) { total } }', { w }, as());
      expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(w)).toBe('BAD_REQUEST');
    }
  });
});
