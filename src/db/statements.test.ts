// Which statements PostgreSQL keeps prepared on a connection (database.ts statementName): the short
// ones, planned once; never a count or an aggregate, which must be planned with the values they read
// by (a generic plan misjudges how many rows a filter selects). Seen from the connection itself, on
// a server whose pool holds one, after REST requests that count and group.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from '../testkit/database.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';
import { openDatabase, type Database } from './database.js';

describe.runIf(testDatabaseUrl !== undefined)('prepared statements on PostgreSQL', () => {
  let created: TestDatabase;
  let one: Database;
  let t: TestApp;
  let user: SignedUpUser;
  beforeAll(async () => {
    created = await createTestDatabase();
    one = await openDatabase({ url: created.url!, dataDir: '', poolSize: 1 });
    t = await createTestApp({}, { database: one } as TestApp);
    user = await signUp(t);
  });
  afterAll(async () => {
    await t?.close();
    await one?.close();
    await created?.drop();
  });

  it('prepares the page a LIST reads, but plans its total and an aggregate with their values every time', async () => {
    const as = { cookie: user.cookie };
    for (const [title, status] of [['a', 'done'], ['b', 'done'], ['c', 'todo']]) expect((await t.json('POST', '/api/v1/tasks', { title, status }, as)).status).toBe(201);
    // Six times each (PostgreSQL turns a prepared statement generic after five runs), each filter new.
    for (let n = 1; n <= 6; n++) {
      const filter = JSON.stringify({ OR: [{ status: { eq: 'done' } }, { estimatedHours: { lt: -n } }] });
      const list = await t.json('GET', `/api/v1/tasks?limit=1&filter=${encodeURIComponent(filter)}`, undefined, as);
      expect(list.body.pagination.total).toBe(2);
      const groups = await t.json('GET', '/api/v1/tasks/aggregate?groupBy=status&count=true', undefined, as);
      expect(groups.status).toBe(200);
      await t.json('POST', '/api/v1/tasks', { title: `more ${n}`, status: 'todo' }, as);
    }
    const prepared = (await one.hotQuery<{ statement: string }>('prepared_statements', 'SELECT statement FROM pg_prepared_statements', [])).map((r) => r.statement);
    expect(prepared.some((sql) => /^SELECT .* FROM "public"\."tasks" .*ORDER BY/s.test(sql))).toBe(true);
    // Prisma's statements (the session lookup, hand-written, groups one user's teams: prepared).
    const prismas = prepared.filter((sql) => sql.includes('"public"."tasks"'));
    expect(prismas.filter((sql) => /^SELECT (COUNT|SUM|AVG|MIN|MAX)\(|\sGROUP BY\s/.test(sql))).toEqual([]);
  });
});
