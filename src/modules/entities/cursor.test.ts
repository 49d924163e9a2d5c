// Keyset cursors (cursor.ts) as clients use them: walking a list by `first`/`after` (GraphQL edges,
// REST `cursor` and `pagination.nextCursor`) or back by `last`/`before` gives exactly the order of
// the page-numbered list, for every sort (empty values included); records inserted or deleted
// between two pages neither repeat nor skip one; Relay's pageInfo tells the truth at both ends; a
// cursor altered, or made for another sort or other filters, is 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
let owner: SignedUpUser;
const as = () => ({ cookie: owner.cookie });

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t);
  for (let i = 0; i < 23; i++) {
    const input = { title: `task ${String(i % 7).padStart(2, '0')}`, dueDate: i % 4 === 0 ? undefined : `2026-0${1 + (i % 3)}-1${i % 2}`, estimatedHours: i % 5 === 0 ? undefined : i % 6 };
    expect((await t.json('POST', '/api/v1/tasks', input, as())).status).toBe(201);
  }
});
afterAll(() => t?.close());

const page = `edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } page`;
const listQuery = `query($first: Int, $after: String, $last: Int, $before: String, $sortBy: TaskSortField, $sortOrder: SortOrder, $w: TaskWhere) {
  tasks(first: $first, after: $after, last: $last, before: $before, sortBy: $sortBy, sortOrder: $sortOrder, where: $w) { ${page} } }`;

async function tasks(variables: Row): Promise<Row> {
  const res = await t.graphql(listQuery, variables, as());
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data.tasks;
}

/** The page-numbered order of the whole list. */
async function offsetOrder(sortBy: string, sortOrder: string): Promise<string[]> {
  const res = await t.graphql(`{ tasks(limit: 100, sortBy: ${sortBy}, sortOrder: ${sortOrder}) { items { id } } }`, {}, as());
  return res.body.data.tasks.items.map((r: Row) => r.id);
}

/** Walks forward by `size`, checking pageInfo on the way. */
async function walkForward(sort: Row, size: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let n = 0; n < 20; n++) {
    const p: Row = await tasks({ ...sort, first: size, after });
    expect(p.page).toBeNull();
    expect(p.pageInfo.hasPreviousPage).toBe(after !== null);
    ids.push(...p.edges.map((e: Row) => e.node.id));
    expect(p.pageInfo.endCursor).toBe(p.edges.at(-1)?.cursor ?? null);
    if (!p.pageInfo.hasNextPage) return ids;
    after = p.pageInfo.endCursor;
  }
  throw new Error('never reached the last page');
}

async function walkBackward(sort: Row, size: number): Promise<string[]> {
  const ids: string[] = [];
  let before: string | null = null;
  for (let n = 0; n < 20; n++) {
    const p: Row = await tasks({ ...sort, last: size, before });
    expect(p.pageInfo.hasNextPage).toBe(before !== null);
    ids.unshift(...p.edges.map((e: Row) => e.node.id));
    if (!p.pageInfo.hasPreviousPage) return ids;
    before = p.pageInfo.startCursor;
  }
  throw new Error('never reached the first page');
}

describe('walking a list', () => {
  it.each([
    ['createdAt', 'desc'],
    ['createdAt', 'asc'],
    ['dueDate', 'asc'],
    ['dueDate', 'desc'],
    ['estimatedHours', 'desc'],
    ['estimatedHours', 'asc'],
    ['title', 'asc'],
  ])('by %s %s gives the page-numbered order, forwards and backwards', async (sortBy, sortOrder) => {
    const expected = await offsetOrder(sortBy, sortOrder);
    expect(expected).toHaveLength(23);
    const sort = { sortBy, sortOrder };
    expect(await walkForward(sort, 5)).toEqual(expected);
    expect(await walkBackward(sort, 4)).toEqual(expected);
  });

  it('through REST: cursor and pagination.nextCursor', async () => {
    const expected = await offsetOrder('dueDate', 'asc');
    const first = await t.json('GET', '/api/v1/tasks?limit=6&sortBy=dueDate&sortOrder=asc', undefined, as());
    expect(first.body.pagination).toMatchObject({ page: 1, limit: 6, total: 23, totalPages: 4, nextCursor: expect.any(String) });
    const ids = first.body.data.map((r: Row) => r.id);
    let cursor = first.body.pagination.nextCursor as string | null;
    while (cursor) {
      const next = await t.json('GET', `/api/v1/tasks?limit=6&sortBy=dueDate&sortOrder=asc&cursor=${encodeURIComponent(cursor)}`, undefined, as());
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      expect(next.body.pagination).toMatchObject({ page: null, limit: 6, total: 23 });
      ids.push(...next.body.data.map((r: Row) => r.id));
      cursor = next.body.pagination.nextCursor;
    }
    expect(ids).toEqual(expected);
  });
});

describe('while records come and go', () => {
  it('neither repeats nor skips a record when others are inserted or deleted between pages', async () => {
    const user = await signUp(t);
    const mine = { cookie: user.cookie };
    const create = async (title: string) => (await t.json('POST', '/api/v1/tasks', { title }, mine)).body.data.id as string;
    for (let i = 0; i < 12; i++) await create(`t${i}`);
    // The list's own order (records made in the same millisecond are ordered by id).
    const listed = async () => (await t.json('GET', '/api/v1/tasks?limit=100', undefined, mine)).body.data.map((r: Row) => r.id as string);
    const newestFirst = await listed();
    const read = async (after: string | null) => (await t.graphql(listQuery, { first: 4, after }, mine)).body.data.tasks;

    const one = await read(null);
    expect(one.edges.map((e: Row) => e.node.id)).toEqual(newestFirst.slice(0, 4));
    // Before the next page: three newer records, and one of the next page and one already read deleted.
    const newer = [await create('new 1'), await create('new 2'), await create('new 3')];
    const gone = [newestFirst[5]!, newestFirst[1]!];
    for (const id of gone) expect((await t.json('DELETE', `/api/v1/tasks/${id}`, undefined, mine)).status).toBe(200);

    const seen = one.edges.map((e: Row) => e.node.id);
    let after = one.pageInfo.endCursor;
    for (;;) {
      const p = await read(after);
      seen.push(...p.edges.map((e: Row) => e.node.id));
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor;
    }
    expect(seen).toEqual(newestFirst.filter((id: string) => id !== gone[0]));
    expect(seen.filter((id: string) => newer.includes(id))).toEqual([]);
    // Back from the first page's start: the three newer records, newest first.
    const back = (await t.graphql(listQuery, { last: 10, before: one.pageInfo.startCursor }, mine)).body.data.tasks;
    expect(back.edges.map((e: Row) => e.node.id)).toEqual((await listed()).slice(0, 3));
    expect([...back.edges.map((e: Row) => e.node.id)].sort()).toEqual([...newer].sort());
    expect(back.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
  });
});

describe('refused', () => {
  const refusedPath = async (variables: Row) => {
    const res = await t.graphql(listQuery, variables, as());
    expect(res.body.errors?.[0]?.message, JSON.stringify(res.body)).toBe('Invalid query parameters');
    return res.body.errors[0].extensions.details.errors.map((e: Row) => e.path);
  };

  it('a cursor altered, or made for another sort or other filters', async () => {
    const p = await tasks({ first: 2, sortBy: 'title', sortOrder: 'asc' });
    const cursor = p.pageInfo.endCursor as string;
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const altered = (change: (parts: unknown[]) => void) => {
      const parts = [...decoded];
      change(parts);
      return Buffer.from(JSON.stringify(parts)).toString('base64url');
    };
    for (const bad of ['x', `${cursor}x`, cursor.slice(1), altered((c) => (c[4] = 7)), altered((c) => (c[5] = 'not-an-id')), altered((c) => (c[3] = 'other'))]) {
      expect(await refusedPath({ first: 2, after: bad, sortBy: 'title', sortOrder: 'asc' }), bad).toEqual(['after']);
    }
    expect(await refusedPath({ first: 2, after: cursor, sortBy: 'title', sortOrder: 'desc' })).toEqual(['after']);
    expect(await refusedPath({ first: 2, after: cursor, sortBy: 'createdAt', sortOrder: 'asc' })).toEqual(['after']);
    expect(await refusedPath({ first: 2, after: cursor, sortBy: 'title', sortOrder: 'asc', w: { estimatedHours: { gt: 1 } } })).toEqual(['after']);
    expect(await refusedPath({ first: 2, last: 2 })).toEqual(['last']);
    const rest = await t.json('GET', `/api/v1/tasks?page=2&cursor=${cursor}`, undefined, as());
    expect(rest).toMatchObject({ status: 400, body: { error: 'Invalid query parameters', details: { errors: [{ path: 'page' }] } } });
    const tampered = await t.json('GET', `/api/v1/tasks?sortBy=title&sortOrder=asc&cursor=${cursor}x`, undefined, as());
    // REST names its own parameter.
    expect(tampered).toMatchObject({ status: 400, body: { details: { errors: [{ path: 'cursor' }] } } });
    const otherSort = await t.json('GET', `/api/v1/tasks?sortBy=title&sortOrder=desc&cursor=${cursor}`, undefined, as());
    expect(otherSort).toMatchObject({ status: 400, body: { details: { errors: [{ path: 'cursor' }] } } });
  });
});
