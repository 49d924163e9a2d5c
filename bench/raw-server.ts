// The baseline: what node:http and `pg` alone do for the same routes, with the same SQL statement the
// product runs for a session, and for tasks the same database work as the product: the session
// lookup, then one transaction that sets the caller and drops to app_user (so RLS costs the same),
// hand-written SQL for the page and its count (or the record), and COMMIT. Never part of the product;
// it answers the same JSON so that the bench can check both give identical answers. Uploads (S10,
// POST /upload): "raw multipart→disk", the session lookup, busboy streaming the one file to disk under
// a generated name, and one INSERT of its record in the same kind of transaction; no type detection,
// hash or image header read (the product's answer has those, so answers are checked apart). Env: PORT,
// HOST, DATABASE_URL, UPLOAD_DIR (for uploads). Issue 16's queries have their counterparts too (OR
// filter, aggregate by status, projects with their customer): the same rows read and counted under the
// same policies on every request, nothing remembered between requests.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isDeepStrictEqual } from 'node:util';
import busboy from 'busboy';
import pg from 'pg';

interface SessionRow {
  token_hash: string;
  user_id: string;
  email: string;
  role: string;
  first_name: string;
  last_name: string;
  image: string | null;
  active_team_id: string | null;
  teams: { teamId: string; role: string }[];
}

// Named, so each pooled connection parses and plans it once (a prepared statement).
const sessionStatement = {
  name: 'bench_session',
  text: `SELECT s.id::text AS session_id, s.token_hash, u.id::text AS user_id, u.email, u.role,
       u.first_name, u.last_name, u.image, s.active_team_id::text AS active_team_id,
       coalesce(json_agg(json_build_object('teamId', m.team_id, 'role', m.role)) FILTER (WHERE m.team_id IS NOT NULL), '[]') AS teams
  FROM sessions s JOIN users u ON u.id = s.user_id LEFT JOIN team_members m ON m.user_id = u.id
 WHERE s.token_hash = $1 AND s.expires_at > now()
 GROUP BY s.id, u.id`,
};

/** The first statement of the product's RLS transaction (src/db/request-db.ts). */
const enterStatement = { name: 'bench_enter', text: `SELECT set_config('app.user_id', $1, true), set_config('role', 'app_user', true)` };

// Tasks as the API shows them, in its order of fields. The explicit team and user conditions are the
// ones the product adds to its queries; RLS checks the same again.
const taskColumns = `id, title, description, status, priority, tags, to_char(due_date, 'YYYY-MM-DD') AS "dueDate",
       estimated_hours AS "estimatedHours", completed, created_at AS "createdAt", updated_at AS "updatedAt",
       user_id AS "userId", team_id AS "teamId"`;

/** Named: prepared once per connection. Unnamed: planned with its values at every run, as the product does its counts and aggregates (src/db/database.ts). */
interface Statement {
  name?: string;
  text: string;
}

/** A LIST's page and total: the caller's tasks meeting `condition` ($1 team, $2 user, then `params` of its own, then limit and offset). */
function taskListStatements(name: string, condition: string, params: number, order: string): { page: Statement; count: Statement } {
  const where = `team_id = $1 AND user_id = $2 AND ${condition}`;
  const limit = 3 + params;
  return {
    page: { name: `${name}_page`, text: `SELECT ${taskColumns} FROM tasks WHERE ${where} ORDER BY ${order} LIMIT $${limit} OFFSET $${limit + 1}` },
    count: { text: `SELECT count(*)::int AS total FROM tasks WHERE ${where}` },
  };
}

const tasksByStatus = taskListStatements('bench_task', 'status = $3', 1, 'due_date ASC, id ASC');
// Issue 16's OR filter, newest first; its uncounted variant adds `estimatedHours lt $3` to the OR.
const orCondition = `status = 'done' OR priority IN ('high', 'urgent')`;
const newestFirst = 'created_at DESC, id DESC';
const tasksOr = taskListStatements('bench_task_or', `(${orCondition})`, 0, newestFirst);
const tasksOrBelow = taskListStatements('bench_task_or_below', `(${orCondition} OR estimated_hours < $3)`, 1, newestFirst);
const taskStatement = { name: 'bench_task', text: `SELECT ${taskColumns} FROM tasks WHERE id = $1 AND team_id = $2 AND user_id = $3` };
/** Issue 16's aggregate: count and sum of the estimates per status, in the product's order of groups. */
const tasksByStatusAggregate = {
  text: `SELECT status, count(*)::int AS count, sum(estimated_hours) AS hours FROM tasks WHERE team_id = $1 AND user_id = $2
          GROUP BY status ORDER BY status COLLATE "C" NULLS LAST`,
};

// Projects (shared by the team) newest first, as REST answers them: the many-to-many task ids the
// caller sees (their own tasks, oldest link first, at most 100), the milestone only when it is the
// caller's task; then the customers the page names, and the total.
const projectPageStatement = {
  name: 'bench_project_page',
  text: `SELECT p.id, p.name, p.status, p.budget, p.customer_id AS "customerId", p.parent_project_id AS "parentProjectId",
       m.id AS "milestoneId", p.file_ids AS "fileIds", p.created_at AS "createdAt", p.updated_at AS "updatedAt",
       p.user_id AS "userId", p.team_id AS "teamId",
       ARRAY(SELECT l.related_id FROM projects_tasks l JOIN tasks t ON t.id = l.related_id AND t.team_id = $1 AND t.user_id = $2
              WHERE l.record_id = p.id ORDER BY l.created_at, l.related_id LIMIT 100) AS "taskIds"
  FROM projects p LEFT JOIN tasks m ON m.id = p.milestone_id AND m.team_id = $1 AND m.user_id = $2
 WHERE p.team_id = $1 ORDER BY p.created_at DESC, p.id DESC LIMIT $3 OFFSET $4`,
};
const projectCountStatement = { text: 'SELECT count(*)::int AS total FROM projects WHERE team_id = $1' };
const customersStatement = {
  name: 'bench_customers',
  text: `SELECT id, name, account, office, phone, sales_rep AS "salesRep", visit_days AS "visitDays", contact_days AS "contactDays",
       logo_id AS "logoId", created_at AS "createdAt", updated_at AS "updatedAt", user_id AS "userId", team_id AS "teamId", metas
  FROM customers WHERE id = ANY($1::uuid[]) AND team_id = $2`,
};
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A media record as the API shows it, in its order of fields.
const mediaInsertStatement = {
  name: 'bench_media_insert',
  text: `INSERT INTO media (id, user_id, team_id, url, filename, file_size, mime_type, storage_driver, storage_key, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'local', $8, now())
         RETURNING id, user_id AS "userId", team_id AS "teamId", url, filename, file_size AS "fileSize", mime_type AS "mimeType",
                   width, height, title, alt, caption, status, created_at AS "createdAt", updated_at AS "updatedAt"`,
};

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });

const healthBody = JSON.stringify({ status: 'ok' });
const unauthorizedBody = JSON.stringify({ success: false, error: 'Not signed in', code: 'UNAUTHENTICATED' });
const taskNotFoundBody = JSON.stringify({ success: false, error: 'Task not found', code: 'NOT_FOUND' });
const unsupportedBody = JSON.stringify({ success: false, error: 'The raw baseline answers only the parameters the bench sends' });
const notMemberBody = JSON.stringify({ success: false, error: 'Not a member of the team named in x-team-id' });
const noFileBody = JSON.stringify({ success: false, error: 'Send one non-empty file in the multipart field "files"' });

const uploadDir = process.env.UPLOAD_DIR;

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The `sid` cookie's token, with the product's format check. */
function sessionToken(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === 'sid') {
      const token = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(token) ? token : null;
    }
  }
  return null;
}

/** The session behind the request's cookie, with the product's checks, or null. */
async function authenticate(req: IncomingMessage): Promise<SessionRow | null> {
  const token = sessionToken(req.headers.cookie);
  if (!token) return null;
  const hash = createHash('sha256').update(token).digest('hex');
  const { rows } = await pool.query<SessionRow>({ ...sessionStatement, values: [hash] });
  const row = rows[0];
  // Same constant-time comparison the product makes, so the baseline does no less work.
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  return row;
}

async function session(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const row = await authenticate(req);
  if (!row) return send(res, 401, unauthorizedBody);
  const data = {
    user: { id: row.user_id, email: row.email, role: row.role, firstName: row.first_name, lastName: row.last_name, image: row.image },
    activeTeamId: row.active_team_id ?? row.teams[0]?.teamId ?? null,
  };
  send(res, 200, JSON.stringify({ success: true, data }));
}

/** The product's rule: the session's team while the user belongs to it, else their first team. */
function activeTeam(row: SessionRow): string | null {
  return row.teams.some((t) => t.teamId === row.active_team_id) ? row.active_team_id : (row.teams[0]?.teamId ?? null);
}

/** `work` inside the product's kind of transaction: the caller set, the role dropped to app_user. */
async function asUser<T>(userId: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query({ ...enterStatement, values: [userId] });
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The signed-in caller and their active team, or null. */
async function callerOf(req: IncomingMessage): Promise<{ userId: string; teamId: string } | null> {
  const row = await authenticate(req);
  const teamId = row && activeTeam(row);
  return row && teamId ? { userId: row.user_id, teamId } : null;
}

/** `limit` (1 to 100, 10 by default) and `page` (from 1), if the request has no parameter beyond `known` and these. */
function paging(search: URLSearchParams, known: readonly string[]): { limit: number; page: number } | null {
  const limit = Number(search.get('limit') ?? 10);
  const page = Number(search.get('page') ?? 1);
  if ([...search.keys()].some((k) => k !== 'limit' && k !== 'page' && !known.includes(k))) return null;
  return Number.isInteger(limit) && limit >= 1 && limit <= 100 && Number.isInteger(page) && page >= 1 ? { limit, page } : null;
}

function sendList(res: ServerResponse, data: unknown[], { limit, page }: { limit: number; page: number }, total: number): void {
  send(res, 200, JSON.stringify({ success: true, data, pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } }));
}

const orOperands = [{ status: { eq: 'done' } }, { priority: { in: ['high', 'urgent'] } }];

/** Issue 16's OR filter (`bound` null), or the same with `{ estimatedHours: { lt: bound } }` as a third operand; null for any other. */
function orFilter(text: string): { bound: number | null } | null {
  let filter: unknown;
  try {
    filter = JSON.parse(text);
  } catch {
    return null;
  }
  const or = (filter as { OR?: unknown } | null)?.OR;
  if (!Array.isArray(or) || Object.keys(filter as object).length !== 1 || !isDeepStrictEqual(or.slice(0, 2), orOperands)) return null;
  if (or.length === 2) return { bound: null };
  const bound = (or[2] as { estimatedHours?: { lt?: unknown } } | null)?.estimatedHours?.lt;
  return or.length === 3 && typeof bound === 'number' && isDeepStrictEqual(or[2], { estimatedHours: { lt: bound } }) ? { bound } : null;
}

/** The LISTs the bench sends: `status` sorted by dueDate ascending, or issue 16's OR filter (newest first); with `limit` and `page`. */
function taskListQuery(search: URLSearchParams): { statements: ReturnType<typeof taskListStatements>; params: unknown[]; limit: number; page: number } | null {
  const filter = search.get('filter');
  if (filter !== null) {
    const or = orFilter(filter);
    const paged = or && paging(search, ['filter']);
    if (!or || !paged) return null;
    return or.bound === null ? { statements: tasksOr, params: [], ...paged } : { statements: tasksOrBelow, params: [or.bound], ...paged };
  }
  const status = search.get('status');
  const paged = paging(search, ['status', 'sortBy', 'sortOrder']);
  if (!status || !paged || search.get('sortBy') !== 'dueDate' || search.get('sortOrder') !== 'asc') return null;
  return { statements: tasksByStatus, params: [status], ...paged };
}

async function taskList(req: IncomingMessage, res: ServerResponse, search: URLSearchParams): Promise<void> {
  const query = taskListQuery(search);
  if (!query) return send(res, 400, unsupportedBody);
  const caller = await callerOf(req);
  if (!caller) return send(res, 401, unauthorizedBody);
  const { statements, limit, page } = query;
  const values = [caller.teamId, caller.userId, ...query.params];
  const [data, total] = await asUser(caller.userId, async (client) => {
    const rows = await client.query({ ...statements.page, values: [...values, limit, (page - 1) * limit] });
    const counted = await client.query<{ total: number }>({ ...statements.count, values });
    return [rows.rows, counted.rows[0]?.total ?? 0] as const;
  });
  sendList(res, data, query, total);
}

async function taskRead(req: IncomingMessage, res: ServerResponse, encodedId: string): Promise<void> {
  const id = decodeURIComponent(encodedId);
  const caller = await callerOf(req);
  if (!caller) return send(res, 401, unauthorizedBody);
  if (!uuid.test(id)) return send(res, 404, taskNotFoundBody);
  const { rows } = await asUser(caller.userId, (client) => client.query({ ...taskStatement, values: [id, caller.teamId, caller.userId] }));
  if (!rows[0]) return send(res, 404, taskNotFoundBody);
  send(res, 200, JSON.stringify({ success: true, data: rows[0] }));
}

/** `?groupBy=status&count=true&sum=estimatedHours`, grouped in SQL on every request. */
async function taskAggregate(req: IncomingMessage, res: ServerResponse, search: URLSearchParams): Promise<void> {
  if (!isDeepStrictEqual([...search].sort(), [['count', 'true'], ['groupBy', 'status'], ['sum', 'estimatedHours']])) return send(res, 400, unsupportedBody);
  const caller = await callerOf(req);
  if (!caller) return send(res, 401, unauthorizedBody);
  type Group = { status: string | null; count: number; hours: number | null };
  const { rows } = await asUser(caller.userId, (client) => client.query<Group>({ ...tasksByStatusAggregate, values: [caller.teamId, caller.userId] }));
  const data = rows.map((g) => ({ key: { status: g.status }, count: g.count, sum: { estimatedHours: g.hours } }));
  send(res, 200, JSON.stringify({ success: true, data }));
}

/** `?expand=customer` with `limit` and `page`: the page, its customers and the total in one transaction. */
async function projectList(req: IncomingMessage, res: ServerResponse, search: URLSearchParams): Promise<void> {
  const paged = paging(search, ['expand']);
  if (!paged || search.get('expand') !== 'customer') return send(res, 400, unsupportedBody);
  const caller = await callerOf(req);
  if (!caller) return send(res, 401, unauthorizedBody);
  const { teamId, userId } = caller;
  type Project = { customerId: string | null };
  const [projects, customers, total] = await asUser(userId, async (client) => {
    const page = await client.query<Project>({ ...projectPageStatement, values: [teamId, userId, paged.limit, (paged.page - 1) * paged.limit] });
    const ids = [...new Set(page.rows.flatMap((p) => p.customerId ?? []))];
    const related = await client.query<{ id: string }>({ ...customersStatement, values: [ids, teamId] });
    const counted = await client.query<{ total: number }>({ ...projectCountStatement, values: [teamId] });
    return [page.rows, related.rows, counted.rows[0]?.total ?? 0] as const;
  });
  const byId = new Map(customers.map((c) => [c.id, c]));
  sendList(res, projects.map((p) => ({ ...p, customer: (p.customerId && byId.get(p.customerId)) ?? null })), paged, total);
}

interface ReceivedFile {
  key: string;
  filename: string;
  mimeType: string;
  size: number;
}

/** Streams the first file of the field `files` to disk under a generated name; other parts are drained. */
async function receiveFile(req: IncomingMessage, dir: string): Promise<ReceivedFile | null> {
  const parser = busboy({ headers: req.headers, limits: { files: 1 } });
  let written: Promise<ReceivedFile> | undefined;
  parser.on('file', (field, stream, info) => {
    if (field !== 'files' || written) return void stream.resume();
    const ext = /\.([a-z0-9]{1,8})$/i.exec(info.filename ?? '')?.[1]?.toLowerCase() ?? 'bin';
    const key = `${randomUUID()}.${ext}`;
    const file = createWriteStream(path.join(dir, key));
    const done = pipeline(stream, file).then(() => ({ key, filename: info.filename ?? 'unnamed', mimeType: info.mimeType, size: file.bytesWritten }));
    // Awaited below; meanwhile a failure must not count as unhandled.
    done.catch(() => undefined);
    written = done;
  });
  try {
    await pipeline(req, parser);
    return written ? await written : null;
  } catch (error) {
    const kept = await written?.catch(() => null);
    if (kept) await rm(path.join(dir, kept.key), { force: true });
    throw error;
  }
}

async function upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!uploadDir) throw new Error('UPLOAD_DIR is required for uploads');
  // Like the product: who may upload where is known before a byte of the body is read.
  const row = await authenticate(req);
  const requested = req.headers['x-team-id'];
  const teamId = row && (typeof requested === 'string' && requested ? requested : activeTeam(row));
  if (!row || !teamId) return send(res, 401, unauthorizedBody);
  if (!row.teams.some((t) => t.teamId === teamId)) return send(res, 403, notMemberBody);
  const file = await receiveFile(req, uploadDir);
  if (!file || file.size === 0) {
    if (file) await rm(path.join(uploadDir, file.key), { force: true });
    return send(res, 400, noFileBody);
  }
  const url = `/uploads/temp/${file.key}`;
  const values = [randomUUID(), row.user_id, teamId, url, file.filename, file.size, file.mimeType, file.key];
  const { rows } = await asUser(row.user_id, (client) => client.query({ ...mediaInsertStatement, values }));
  send(res, 200, JSON.stringify({ success: true, data: { message: '1 file uploaded successfully', urls: [url], media: rows, count: 1, storage: 'local' } }));
}

function failed(res: ServerResponse): (error: Error) => void {
  return (error) => {
    process.stderr.write(`raw server: ${error.stack ?? error.message}\n`);
    send(res, 500, JSON.stringify({ success: false, error: error.message }));
  };
}

const taskPathPattern = /^\/api\/v1\/tasks\/([^/]+)$/;

const server = createServer((req, res) => {
  const [path = '', search = ''] = (req.url ?? '').split('?', 2);
  if (req.method === 'GET' && path === '/healthz') return send(res, 200, healthBody);
  if (req.method === 'GET' && path === '/api/auth/session') return void session(req, res).catch(failed(res));
  if (req.method === 'GET' && path === '/api/v1/tasks') return void taskList(req, res, new URLSearchParams(search)).catch(failed(res));
  if (req.method === 'GET' && path === '/api/v1/tasks/aggregate') return void taskAggregate(req, res, new URLSearchParams(search)).catch(failed(res));
  if (req.method === 'GET' && path === '/api/v1/projects') return void projectList(req, res, new URLSearchParams(search)).catch(failed(res));
  if (req.method === 'POST' && path === '/upload') return void upload(req, res).catch(failed(res));
  const taskId = req.method === 'GET' ? taskPathPattern.exec(path)?.[1] : undefined;
  if (taskId !== undefined) return void taskRead(req, res, taskId).catch(failed(res));
  send(res, 404, JSON.stringify({ success: false, error: 'Not found' }));
});
// Same as the product (src/main.ts), so autocannon's connections are kept alike on both.
server.keepAliveTimeout = 65_000;

server.listen(Number(process.env.PORT ?? 3100), process.env.HOST ?? '127.0.0.1');

const stop = () => {
  server.close(() => {
    pool.end().finally(() => process.exit(0));
  });
  server.closeIdleConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
