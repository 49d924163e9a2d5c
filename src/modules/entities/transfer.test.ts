// Export and import of an entity's records (issue 38), through HTTP: export with LIST's filters under
// the caller's rights (another user's private tasks and another team's never), ndjson and csv, streamed
// in batches; export → import into another team (new ids, equal fields); a dry run that writes nothing
// and refuses what a real import refuses; bad lines in both modes (validation, enum, unknown field,
// relation, malformed line, a unique value the database refuses); hooks on import; limits. On PGlite
// and, with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { csvRecords } from './csv.js';
import { exportBatchSize } from './export.js';

type Row = Record<string, any>;
let t: TestApp;
/** Owner of a team; `mate` a member of it; `stranger` of another team. */
let owner: SignedUpUser;
let mate: SignedUpUser;
let stranger: SignedUpUser;
const as = (u: SignedUpUser, headers: Record<string, string> = {}) => ({ cookie: u.cookie, ...headers });

async function created(u: SignedUpUser, slug: string, body: Row): Promise<Row> {
  const res = await t.json('POST', `/api/v1/${slug}`, body, as(u));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

async function exported(u: SignedUpUser | null, path: string): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await t.fetch(path, { headers: u ? as(u) : {} });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const ndjson = (text: string): Row[] => text.split('\n').filter(Boolean).map((line) => JSON.parse(line));

async function csv(text: string): Promise<Row[]> {
  const rows: string[][] = [];
  for await (const r of csvRecords([text] as unknown as AsyncIterable<string>)) if ('cells' in r) rows.push(r.cells);
  const [header, ...records] = rows;
  return records.map((cells) => Object.fromEntries(header!.map((name, i) => [name, cells[i]])));
}

async function imported(u: SignedUpUser, slug: string, body: string, query = '', type = 'application/x-ndjson'): Promise<{ status: number; body: Row }> {
  const res = await t.fetch(`/api/v1/${slug}/import${query}`, { method: 'POST', body, headers: as(u, { 'content-type': type }) });
  return { status: res.status, body: await res.json() };
}

const lines = (records: Row[]) => records.map((r) => JSON.stringify(r)).join('\n');
const count = async (u: SignedUpUser, slug: string) => (await t.json('GET', `/api/v1/${slug}?limit=1`, undefined, as(u))).body.pagination.total as number;
const fieldsOf = ({ id: _id, createdAt: _c, updatedAt: _u, userId: _user, teamId: _team, ...fields }: Row) => fields;

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
  [owner, mate, stranger] = [await signUp(t), await signUp(t), await signUp(t)];
  await joinTeam(t, owner, owner.activeTeamId, mate, 'member');
  await created(owner, 'tasks', { title: 'Plan, "draft"\nand ship', status: 'done', tags: ['a', 'b'], estimatedHours: 3, dueDate: '2025-01-31', metas: { source: 'x' } });
  await created(owner, 'tasks', { title: 'Review', status: 'review', estimatedHours: 1 });
  await created(owner, 'tasks', { title: 'Done too', status: 'done', estimatedHours: 8 });
  await created(mate, 'tasks', { title: 'Mate private', status: 'done' });
  await created(stranger, 'tasks', { title: 'Stranger', status: 'done' });
});
afterAll(async () => {
  await t?.close();
});

describe('export', () => {
  it('streams ndjson of the records LIST would answer for the same filters, as the caller sees them', async () => {
    const res = await exported(owner, '/api/v1/tasks/export?status=done');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="tasks-\d{4}-\d{2}-\d{2}\.ndjson"$/);
    const records = ndjson(res.text);
    // Oldest first; the mate's private task and the stranger's are never there.
    expect(records.map((r) => r.title)).toEqual(['Plan, "draft"\nand ship', 'Done too']);
    expect(records[0]).toMatchObject({ status: 'done', tags: ['a', 'b'], estimatedHours: 3, dueDate: '2025-01-31', metas: { source: 'x' }, teamId: owner.activeTeamId, userId: owner.id });
    const listed = (await t.json('GET', '/api/v1/tasks?status=done&sortOrder=asc&metas=all', undefined, as(owner))).body.data;
    expect(records).toEqual(listed);
    // Operators and filter JSON, as LIST takes them.
    expect(ndjson((await exported(owner, '/api/v1/tasks/export?estimatedHours[gte]=2&sortBy=estimatedHours&sortOrder=desc')).text).map((r) => r.title)).toEqual(['Done too', 'Plan, "draft"\nand ship']);
    expect(ndjson((await exported(mate, '/api/v1/tasks/export')).text).map((r) => r.title)).toEqual(['Mate private']);
  });

  it('writes csv with a header row, RFC 4180 quoting, and lists and metas as JSON text', async () => {
    const res = await exported(owner, '/api/v1/tasks/export?format=csv&search=plan');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.text.split('\r\n')[0]).toBe('id,title,description,status,priority,tags,dueDate,estimatedHours,completed,metas,createdAt,updatedAt,userId,teamId');
    const [record] = await csv(res.text);
    expect(record).toMatchObject({ title: 'Plan, "draft"\nand ship', tags: '["a","b"]', metas: '{"source":"x"}', estimatedHours: '3', completed: 'false', description: '' });
    // No record: the header alone.
    expect((await exported(owner, '/api/v1/tasks/export?format=csv&status=blocked')).text.split('\r\n')).toHaveLength(2);
  });

  it('refuses what LIST refuses, and what is not an export, with the contract envelope; ids stay ids', async () => {
    const bad = await t.json('GET', '/api/v1/tasks/export?format=xml&page=2&status=nope', undefined, as(owner));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', error: 'Invalid query parameters' });
    expect(bad.body.details.errors.map((e: Row) => e.path).sort()).toEqual(['format', 'page']);
    expect((await t.json('GET', '/api/v1/tasks/export?status=nope', undefined, as(owner))).status).toBe(400);
    expect((await t.json('GET', '/api/v1/tasks/export')).status).toBe(401);
    const reader = (await t.json('POST', '/api/v1/api-keys', { name: 'writer', scopes: ['tasks:write'] }, as(owner))).body.data.key as string;
    expect((await t.json('GET', '/api/v1/tasks/export', undefined, { authorization: `Bearer ${reader}` })).status).toBe(403);
    // A filter through a relation needs the target's read scope (projects → customers).
    const projects = (await t.json('POST', '/api/v1/api-keys', { name: 'projects', scopes: ['projects:read'] }, as(owner))).body.data.key as string;
    expect((await t.json('GET', `/api/v1/projects/export?filter=${encodeURIComponent('{"customer":{"office":{"eq":"x"}}}')}`, undefined, { authorization: `Bearer ${projects}` })).status).toBe(403);
    // READ is untouched: `export` is no id, an id is still read.
    const one = ndjson((await exported(owner, '/api/v1/tasks/export?search=Review')).text)[0]!;
    expect((await t.json('GET', `/api/v1/tasks/${one.id}`, undefined, as(owner))).body.data.title).toBe('Review');
    expect((await t.json('PATCH', '/api/v1/tasks/export', { title: 'x' }, as(owner))).status).toBe(404);
  });

  it('exports a public entity to anonymous callers as LIST shows it to them (published only)', async () => {
    await created(owner, 'posts', { title: 'Out', slug: 'out', status: 'published' });
    await created(owner, 'posts', { title: 'Draft', slug: 'draft' });
    const records = ndjson((await exported(null, '/api/v1/posts/export')).text);
    expect(records.map((r) => r.title)).toEqual(['Out']);
    expect(records[0]).not.toHaveProperty('teamId');
  });

  it(`streams a large export in batches of ${exportBatchSize}, every record once, in order`, async () => {
    const user = await signUp(t);
    const teamId = (await created(user, 'tasks', { title: 'first' })).teamId as string;
    const n = 2 * exportBatchSize + 500;
    await t.database.prisma.$executeRaw`
      INSERT INTO tasks (id, team_id, user_id, title, status, priority, estimated_hours, completed, created_at, updated_at)
      SELECT gen_random_uuid(), ${teamId}::uuid, ${user.id}::uuid, 'bulk ' || i, 'todo', 'medium', i % 7, false, now() + (i % 3) * interval '1 second', now() FROM generate_series(1, ${n}) AS i`;
    const res = await t.fetch('/api/v1/tasks/export?sortBy=estimatedHours', { headers: as(user) });
    expect(res.headers.get('content-length')).toBeNull(); // streamed, not one buffer
    const records = ndjson(await res.text());
    expect(records).toHaveLength(n + 1);
    expect(new Set(records.map((r) => r.id)).size).toBe(n + 1);
    // Ascending, empty values last (as LIST sorts).
    const hours = records.map((r) => r.estimatedHours ?? Infinity);
    expect(hours).toEqual([...hours].sort((a, b) => a - b));
  });
});

describe('import', () => {
  it('imports an export into another team as new records with equal fields (ndjson and csv)', async () => {
    const source = ndjson((await exported(owner, '/api/v1/tasks/export')).text);
    const res = await imported(stranger, 'tasks', lines(source));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ dryRun: false, mode: 'all', lines: 3, created: 3, refused: 0, errors: [] });
    const copies = ndjson((await exported(stranger, '/api/v1/tasks/export')).text).filter((r) => r.title !== 'Stranger');
    expect(copies.map(fieldsOf)).toEqual(source.map(fieldsOf));
    expect(copies.every((r) => r.teamId === stranger.activeTeamId && !source.some((s) => s.id === r.id))).toBe(true);
    expect(res.body.data.records.map((r: Row) => r.id)).toEqual(copies.map((r) => r.id));

    // csv: customers (integers, multiselect, metas) round trip the same way.
    await created(owner, 'customers', { name: 'Acme, Inc.', account: 7, office: 'Madrid', visitDays: ['lun', 'vie'], metas: { tier: 'gold' } });
    const text = (await exported(owner, '/api/v1/customers/export?format=csv')).text;
    const back = await imported(stranger, 'customers', text, '', 'text/csv');
    expect(back.body.data).toMatchObject({ created: 1, refused: 0 });
    const [mine, theirs] = [ndjson((await exported(owner, '/api/v1/customers/export')).text), ndjson((await exported(stranger, '/api/v1/customers/export')).text)];
    expect(theirs.map(fieldsOf)).toEqual(mine.map(fieldsOf));
  });

  const badLines = () => [
    { title: 'good one' },
    { status: 'todo' }, // title required
    { title: 'bad enum', status: 'nope' },
    { title: 'unknown', colour: 'red' },
    { title: 'good two', id: '00000000-0000-4000-8000-000000000000', createdAt: '2020-01-01T00:00:00.000Z' },
  ];
  const expectedErrors = [
    { line: 2, status: 422, code: 'VALIDATION_FAILED', details: { title: 'is required' } },
    { line: 3, status: 422, code: 'VALIDATION_FAILED', details: { status: expect.stringMatching(/must be one of/) } },
    { line: 4, status: 422, code: 'VALIDATION_FAILED', details: { colour: 'is not a field of this entity' } },
    { line: 6, status: 422, code: 'VALIDATION_FAILED', details: { line: 'is not JSON' } },
  ];

  it('all or nothing by default: any bad line answers 422 with every line’s errors and keeps nothing', async () => {
    const before = await count(owner, 'tasks');
    const res = await imported(owner, 'tasks', `${lines(badLines())}\n{not json\n\n`);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', details: { lines: 6, created: 0, refused: 4, errors: expectedErrors } });
    expect(await count(owner, 'tasks')).toBe(before);
  });

  it('a dry run writes nothing and reports what a real import in lines mode then does', async () => {
    const body = `${lines(badLines())}\n{not json`;
    const before = await count(owner, 'tasks');
    const dry = await imported(owner, 'tasks', body, '?dryRun=true&mode=lines');
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({ dryRun: true, created: 2, refused: 4, records: [], errors: expectedErrors });
    expect(await count(owner, 'tasks')).toBe(before);
    const real = await imported(owner, 'tasks', body, '?mode=lines');
    expect(real.status).toBe(200);
    expect(real.body.data).toMatchObject({ dryRun: false, created: 2, refused: 4, errors: dry.body.data.errors });
    expect(await count(owner, 'tasks')).toBe(before + 2);
    // The ignored id and stamp: a new record, created now.
    const two = (await t.json('GET', `/api/v1/tasks/${real.body.data.records[1].id}`, undefined, as(owner))).body.data;
    expect(two.title).toBe('good two');
    expect(two.createdAt > '2021').toBe(true);
  });

  it('refuses relation ids the caller cannot see, line by line, the rest kept', async () => {
    const theirs = await created(stranger, 'customers', { name: 'Theirs', account: 501, office: 'Paris' });
    const mine = await created(owner, 'customers', { name: 'Mine', account: 502, office: 'Paris' });
    const projects = [{ name: 'ok', customerId: mine.id }, { name: 'other team', customerId: theirs.id }, { name: 'nowhere', customerId: '00000000-0000-4000-8000-000000000001' }];
    const res = await imported(owner, 'projects', lines(projects), '?mode=lines');
    expect(res.body.data).toMatchObject({ created: 1, refused: 2, errors: [{ line: 2, details: { customerId: expect.stringMatching(/you can see/) } }, { line: 3, details: { customerId: expect.stringMatching(/you can see/) } }] });
  });

  // The request transaction survives a statement rolled back to its savepoint: the COMMIT check
  // (db/commits.ts) reads the database's answer, a COMMIT once the savepoint was rolled back.
  it('keeps the other lines when the database refuses one (a unique value taken): savepoints', async () => {
    await created(owner, 'customers', { name: 'Holder', account: 503, office: 'Paris' });
    const customers = [{ name: 'A', account: 601, office: 'x' }, { name: 'Taken', account: 503, office: 'x' }, { name: 'B', account: 602, office: 'x' }];
    const dup = await imported(owner, 'customers', lines(customers), '?mode=lines');
    expect(dup.status, JSON.stringify(dup.body)).toBe(200);
    expect(dup.body.data).toMatchObject({ created: 2, refused: 1, errors: [{ line: 2, status: 409, code: 'CONFLICT' }] });
    expect(ndjson((await exported(owner, '/api/v1/customers/export?account[in]=601,602')).text).map((r) => r.name)).toEqual(['A', 'B']);
  });

  it('runs the definition’s hooks (orders are numbered by beforeChange; a virtual field is ignored)', async () => {
    const customerId = (await created(owner, 'customers', { name: 'Buyer', account: 900, office: 'x' })).id;
    const res = await imported(owner, 'orders', lines([{ customerId, amount: '12.30', lineCount: 9, number: 'MINE' }, { customerId, amount: '0.10', lines: [{ a: 1 }] }]));
    expect(res.body.data).toMatchObject({ created: 2, refused: 0 });
    const orders = ndjson((await exported(owner, '/api/v1/orders/export')).text);
    expect(orders.map((o) => [o.number, o.amount, o.lineCount])).toEqual([['ORD-0001', '12.30', 0], ['ORD-0002', '0.10', 1]]);
  });

  it('refuses a body it cannot take: unknown type, too many lines, bad parameters, a viewer', async () => {
    expect((await imported(owner, 'tasks', 'x', '', 'text/plain')).status).toBe(415);
    expect((await imported(owner, 'tasks', 'title\nx\n', '?format=csv', 'text/plain')).body.data).toMatchObject({ created: 1 });
    const tooMany = await imported(owner, 'tasks', '{}\n'.repeat(5001));
    expect(tooMany).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
    expect((await imported(owner, 'tasks', '{}', '?mode=some&dryRun=yes')).status).toBe(400);
    const viewer = await signUp(t);
    await joinTeam(t, owner, owner.activeTeamId, viewer, 'viewer');
    expect((await imported(viewer, 'tasks', '{"title":"x"}')).status).toBe(403);
    expect((await t.fetch('/api/v1/tasks/import', { method: 'POST', body: '{}', headers: { 'content-type': 'application/x-ndjson' } })).status).toBe(401);
  });
});
