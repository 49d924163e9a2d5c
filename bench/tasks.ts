// The entities scenarios' tasks: one user's tasks in one team, 1k for one account and 100k for the
// bench user, so that both live in one database. Seeded straight in SQL as the database owner
// (bypassing the API, its validation and the free plan's task limit) with generate_series and hash
// functions, so every run seeds the same rows. Also here: the requests (REST and GraphQL, LIST with
// a filter and a sort, READ by id; issue 16's LIST with an OR of operators, aggregate by status, and
// pages 1 and 1,000 by cursor) and the answers they must give, read in SQL without RLS.
import { enumValueName } from '../src/modules/entities/graphql-names.js';
import { withClient } from './database.js';
import type { Account } from './session.js';

/** The account whose personal team holds the small dataset; the bench user holds the large one. */
export const smallTasksUser: Account = { email: 'bench-tasks@example.com', password: 'benchpassword', firstName: 'Tasks', lastName: 'Owner' };

export type TaskSize = '1k' | '100k';
export const taskCounts: Record<TaskSize, number> = { '1k': 1_000, '100k': 100_000 };

/** Whose tasks: the user and the team they were created in (the user's active team). */
export interface RecordOwner {
  userId: string;
  teamId: string;
}

/** LIST: one status, soonest due first, one page of 20. */
const listFilter = { status: 'todo' };
const listSort = { sortBy: 'dueDate', sortOrder: 'asc' } as const;
const listLimit = 20;
export const tasksListPath = `/api/v1/tasks?${new URLSearchParams({ ...listFilter, ...listSort, limit: String(listLimit) })}`;
export const taskPath = (id: string) => `/api/v1/tasks/${encodeURIComponent(id)}`;

/**
 * The same LIST, less the tasks without an estimate, in a new form every time: `estimatedHours_min`
 * = -n matches every estimate for any n ≥ 0, so every n answers the same rows, yet each is a query
 * the product has not seen, whose total it must count (its totals are remembered per query).
 */
export const uncountedListPath = (n: number) => `${tasksListPath}&estimatedHours_min=-${n}`;

/** Every field REST answers, so that both faces return the same data. */
const taskFields = 'id title description status priority tags dueDate estimatedHours completed createdAt updatedAt userId teamId';
export const taskQuery = `query Task($id: ID!) { task(id: $id) { ${taskFields} } }`;

/**
 * How a build's GraphQL speaks of tasks: `typed` (select fields as enums: `sortBy: title`,
 * `status: IN_PROGRESS`), or `strings` as before the typed schema (8df4d50 and earlier), which
 * `npm run bench -- --against` may measure beside this build.
 */
export type GraphqlTasks = 'typed' | 'strings';

export function tasksListGraphqlRequest(dialect: GraphqlTasks): { query: string; variables: Record<string, unknown> } {
  const typed = dialect === 'typed';
  const literal = (value: string) => (typed ? value : JSON.stringify(value));
  return {
    query: `query TasksList($f: TaskFilter) { tasks(filter: $f, sortBy: ${literal(listSort.sortBy)}, sortOrder: ${literal(listSort.sortOrder)}, limit: ${listLimit}) { items { ${taskFields} } page limit total totalPages } }`,
    variables: { f: { status: typed ? enumValueName(listFilter.status) : listFilter.status } },
  };
}

/**
 * Issue 16's operator filter: done, or high or urgent (about 58% of the tasks), as REST's `filter`
 * JSON and GraphQL's `where`, newest first (the default sort), one page of 20 with the total.
 */
const orWhere = { OR: [{ status: { eq: 'done' } }, { priority: { in: ['high', 'urgent'] } }] };
const orWhereSql = `(status = 'done' OR priority IN ('high', 'urgent'))`;
export const tasksOrFilterPath = `/api/v1/tasks?${new URLSearchParams({ filter: JSON.stringify(orWhere), limit: String(listLimit) })}`;
/**
 * The same OR filter with a third operand, `estimatedHours lt -n`, which no task meets (estimates are
 * 0 or more, or none): every n answers the rows of tasksOrFilterPath, yet each is a filter the product
 * has not counted (its totals are remembered per filter), so each request counts its total.
 */
export const tasksOrFilterUncountedPath = (n: number) =>
  `/api/v1/tasks?${new URLSearchParams({ filter: JSON.stringify({ OR: [...orWhere.OR, { estimatedHours: { lt: -n } }] }), limit: String(listLimit) })}`;
export const tasksOrFilterGraphql = {
  query: `query TasksOr($w: TaskWhere) { tasks(where: $w, limit: ${listLimit}) { items { ${taskFields} } page limit total totalPages } }`,
  variables: { w: { OR: [{ status: { eq: enumValueName('done') } }, { priority: { in: ['high', 'urgent'].map(enumValueName) } }] } },
};

/** Issue 16's aggregate: per status, the count and the sum of the estimates, over every task of the dataset. */
export const tasksAggregatePath = '/api/v1/tasks/aggregate?groupBy=status&count=true&sum=estimatedHours';
export const tasksAggregateQuery = 'query TasksByStatus { tasksAggregate(groupBy: [status]) { groups { key { status } count sum { estimatedHours } } } }';

/**
 * Issue 16's keyset pages: 10 tasks newest first (the default sort), page 1 and page 1,000. Page
 * 1,000's cursor is page 999's `pagination.nextCursor`, asked of the product once (deepCursorOf).
 */
const cursorLimit = 10;
export const cursorPage = 1000;
export const tasksCursorPath = (cursor: string | null) => `/api/v1/tasks?${new URLSearchParams({ limit: String(cursorLimit), ...(cursor === null ? {} : { cursor }) })}`;
export const tasksCursorQuery = `query TasksAfter($after: String) { tasks(first: ${cursorLimit}, after: $after) { items { ${taskFields} } page limit total totalPages } }`;

/** Page 999's nextCursor (the product's cursors are opaque), through the owner's session. */
export async function deepCursorOf(baseUrl: string, cookie: string): Promise<string> {
  const path = `/api/v1/tasks?${new URLSearchParams({ page: String(cursorPage - 1), limit: String(cursorLimit) })}`;
  const response = await fetch(`${baseUrl}${path}`, { headers: { cookie } });
  const text = await response.text();
  const cursor = response.status === 200 ? (JSON.parse(text) as { pagination?: { nextCursor?: unknown } }).pagination?.nextCursor : undefined;
  if (typeof cursor !== 'string' || !cursor) throw new Error(`GET ${path}: no nextCursor in ${response.status} ${text.slice(0, 500)}`);
  return cursor;
}

/** A task as GraphQL shows it: with the typed schema, select fields as enum value names (`in-progress` → `IN_PROGRESS`). */
export function graphqlTask(r: TaskRecord, dialect: GraphqlTasks): TaskRecord {
  return dialect === 'typed' ? { ...r, status: r.status && enumValueName(r.status), priority: r.priority && enumValueName(r.priority) } : r;
}

/** A task as the API shows it. */
export interface TaskRecord {
  id: string;
  title: string;
  description: string | null;
  status: string | null;
  priority: string | null;
  tags: string[];
  dueDate: string | null;
  estimatedHours: number | null;
  completed: boolean | null;
  createdAt: string;
  updatedAt: string;
  userId: string;
  teamId: string;
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

/** A page of tasks; `page` is null in cursor mode. */
export interface TaskPage {
  data: TaskRecord[];
  pagination: Omit<Pagination, 'page'> & { page: number | null };
}

/** One group of tasksAggregatePath's answer (REST's values). */
export interface StatusGroup {
  key: { status: string | null };
  count: number;
  sum: { estimatedHours: number | null };
}

/** What the scenarios must answer for one dataset. */
export interface TaskAnswers {
  list: { data: TaskRecord[]; pagination: Pagination };
  /** The answer of every uncountedListPath(n). */
  uncounted: { data: TaskRecord[]; pagination: Pagination };
  /** The task READ asks for: the one in the middle of the dataset. */
  record: TaskRecord;
  /** tasksOrFilterPath. */
  orFilter: { data: TaskRecord[]; pagination: Pagination };
  /** tasksAggregatePath, sorted by status. */
  byStatus: StatusGroup[];
  /** tasksCursorPath: page 1, and page 1,000 (from page 999's cursor: page null); null for a dataset without 1,000 pages. */
  cursorPages: { first: TaskPage; deep: TaskPage } | null;
}

export interface TaskDataset {
  size: TaskSize;
  /** The owner's session. */
  cookie: string;
  owner: RecordOwner;
  expected: TaskAnswers;
}

/** Ids derived from the dataset's name and the row number (an SQL expression): the same rows on every run. */
const taskId = (size: TaskSize, n: string) => `md5('bench-task-${size}-' || ${n})::uuid`;

/**
 * `h1`…`h6` are independent hashes of the row number in 0..999. Distributions: status todo 30%,
 * in-progress 20%, review 10%, done 35%, blocked 5%; priority low 25%, medium 40%, high 25%, urgent
 * 10%; 0 to 2 tags; a due date over 2026 (10% none); estimated hours 0–39.75 (10% none); completed
 * when done; one created a minute.
 */
function seedSql(size: TaskSize): string {
  return `
INSERT INTO tasks (id, team_id, user_id, title, description, status, priority, tags, due_date, estimated_hours, completed, metas, created_at, updated_at)
SELECT ${taskId(size, 'n')}, $1::uuid, $2::uuid,
       (ARRAY['Fix', 'Write', 'Review', 'Deploy', 'Plan', 'Test'])[1 + h1 % 6] || ' ' ||
         (ARRAY['login', 'billing', 'search', 'reports', 'dashboard', 'invoices', 'onboarding'])[1 + h2 % 7] || ' #' || n,
       CASE WHEN h3 % 5 = 0 THEN NULL
            ELSE 'Task ' || n || ' of the bench dataset: steps, notes and acceptance criteria for the ' ||
                 (ARRAY['web', 'mobile', 'api', 'data'])[1 + h4 % 4] || ' team.' END,
       CASE WHEN h5 < 300 THEN 'todo' WHEN h5 < 500 THEN 'in-progress' WHEN h5 < 600 THEN 'review' WHEN h5 < 950 THEN 'done' ELSE 'blocked' END,
       CASE WHEN h6 < 250 THEN 'low' WHEN h6 < 650 THEN 'medium' WHEN h6 < 900 THEN 'high' ELSE 'urgent' END,
       CASE h1 % 3 WHEN 0 THEN ARRAY[]::text[]
            WHEN 1 THEN ARRAY[(ARRAY['frontend', 'backend', 'bug', 'feature', 'docs', 'ops'])[1 + h2 % 6]]
            ELSE ARRAY[(ARRAY['frontend', 'backend', 'bug', 'feature', 'docs', 'ops'])[1 + h2 % 6],
                       (ARRAY['frontend', 'backend', 'bug', 'feature', 'docs', 'ops'])[1 + (h2 % 6 + 1 + h3 % 5) % 6]] END,
       CASE WHEN h4 < 100 THEN NULL ELSE date '2026-01-01' + (h3 * 7 + h6) % 365 END,
       CASE WHEN h2 < 100 THEN NULL ELSE (h4 % 160) / 4.0 END,
       h5 >= 600 AND h5 < 950,
       '{}'::jsonb,
       timestamptz '2025-06-01 00:00:00+00' + n * interval '1 minute',
       timestamptz '2025-06-01 00:00:00+00' + n * interval '1 minute'
  FROM generate_series(1, $3::int) AS n,
       LATERAL (SELECT (abs(hashint4extended(n, 1)) % 1000)::int AS h1, (abs(hashint4extended(n, 2)) % 1000)::int AS h2,
                       (abs(hashint4extended(n, 3)) % 1000)::int AS h3, (abs(hashint4extended(n, 4)) % 1000)::int AS h4,
                       (abs(hashint4extended(n, 5)) % 1000)::int AS h5, (abs(hashint4extended(n, 6)) % 1000)::int AS h6) AS h`;
}

/** Inserts the dataset's tasks for `owner`; VACUUM ANALYZE is the caller's, once everything is seeded. */
export function seedTasks(url: string, size: TaskSize, owner: RecordOwner): Promise<void> {
  return withClient(url, async (c) => {
    await c.query(seedSql(size), [owner.teamId, owner.userId, taskCounts[size]]);
  });
}

// Written apart from the raw baseline's SQL on purpose: this is the reference both are checked against.
const recordColumns = `id::text AS id, title, description, status, priority, tags, to_char(due_date, 'YYYY-MM-DD') AS "dueDate",
  estimated_hours AS "estimatedHours", completed, created_at AS "createdAt", updated_at AS "updatedAt",
  user_id::text AS "userId", team_id::text AS "teamId"`;

type TaskRow = Omit<TaskRecord, 'createdAt' | 'updatedAt'> & { createdAt: Date; updatedAt: Date };

const shown = (row: TaskRow): TaskRecord => ({ ...row, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() });

/** The answers of the dataset's scenarios, read as the database owner (no RLS) with the owner's conditions spelled out. */
export function expectedTaskAnswers(url: string, size: TaskSize, owner: RecordOwner): Promise<TaskAnswers> {
  return withClient(url, async (c) => {
    const values = [owner.teamId, owner.userId, listFilter.status];
    const listOf = async (extra: string) => {
      const where = `team_id = $1 AND user_id = $2 AND status = $3${extra}`;
      const page = await c.query<TaskRow>(`SELECT ${recordColumns} FROM tasks WHERE ${where} ORDER BY due_date ASC NULLS LAST, id ASC LIMIT ${listLimit}`, values);
      const counted = await c.query<{ total: number }>(`SELECT count(*)::int AS total FROM tasks WHERE ${where}`, values);
      const total = counted.rows[0]?.total ?? 0;
      if (page.rows.length !== listLimit) throw new Error(`tasks ${size}: the seeded rows are missing`);
      return { data: page.rows.map(shown), pagination: { page: 1, limit: listLimit, total, totalPages: Math.ceil(total / listLimit) } };
    };
    const record = await c.query<TaskRow>(`SELECT ${recordColumns} FROM tasks WHERE id = ${taskId(size, '$1::int')}`, [taskCounts[size] / 2]);
    const middle = record.rows[0];
    if (!middle) throw new Error(`tasks ${size}: the seeded rows are missing`);
    // Issue 16's requests: the owner's tasks, newest first.
    const owned = [owner.teamId, owner.userId];
    const newest = async (where: string, limit: number, offset: number) => {
      const rows = await c.query<TaskRow>(`SELECT ${recordColumns} FROM tasks WHERE team_id = $1 AND user_id = $2${where} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`, owned);
      const counted = await c.query<{ total: number }>(`SELECT count(*)::int AS total FROM tasks WHERE team_id = $1 AND user_id = $2${where}`, owned);
      const total = counted.rows[0]?.total ?? 0;
      if (rows.rows.length !== limit) throw new Error(`tasks ${size}: the seeded rows are missing`);
      return { data: rows.rows.map(shown), total, totalPages: Math.ceil(total / limit) };
    };
    const or = await newest(` AND ${orWhereSql}`, listLimit, 0);
    const paged = async () => {
      const first = await newest('', cursorLimit, 0);
      const deep = await newest('', cursorLimit, (cursorPage - 1) * cursorLimit);
      return {
        first: { data: first.data, pagination: { page: 1, limit: cursorLimit, total: first.total, totalPages: first.totalPages } },
        deep: { data: deep.data, pagination: { page: null, limit: cursorLimit, total: deep.total, totalPages: deep.totalPages } },
      };
    };
    const groups = await c.query<{ status: string | null; count: number; hours: number | null }>(
      `SELECT status, count(*)::int AS count, sum(estimated_hours) AS hours FROM tasks WHERE team_id = $1 AND user_id = $2 GROUP BY status ORDER BY status COLLATE "C" NULLS LAST`,
      owned,
    );
    return {
      list: await listOf(''),
      uncounted: await listOf(' AND estimated_hours IS NOT NULL'),
      record: shown(middle),
      orFilter: { data: or.data, pagination: { page: 1, limit: listLimit, total: or.total, totalPages: or.totalPages } },
      byStatus: groups.rows.map((g) => ({ key: { status: g.status }, count: g.count, sum: { estimatedHours: g.hours } })),
      cursorPages: taskCounts[size] >= cursorPage * cursorLimit ? await paged() : null,
    };
  });
}
