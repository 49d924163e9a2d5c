// The baseline: what node:http and `pg` alone do for the same routes, with the same SQL statement the
// product runs for a session, and for tasks the same database work as the product: the session
// lookup, then one transaction that sets the caller and drops to app_user (so RLS costs the same),
// hand-written SQL for the page and its count (or the record), and COMMIT. Never part of the product;
// it answers the same JSON so that the bench can check both give identical answers. Uploads (S10,
// POST /upload): "raw multipart→disk", the session lookup, busboy streaming the one file to disk under
// a generated name, and one INSERT of its record in the same kind of transaction; no type detection,
// hash or image header read (the product's answer has those, so answers are checked apart). Env: PORT,
// HOST, DATABASE_URL, UPLOAD_DIR (for uploads).
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
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
const taskPageStatement = {
  name: 'bench_task_page',
  text: `SELECT ${taskColumns} FROM tasks WHERE team_id = $1 AND user_id = $2 AND status = $3 ORDER BY due_date ASC, id ASC LIMIT $4 OFFSET $5`,
};
const taskCountStatement = { name: 'bench_task_count', text: 'SELECT count(*)::int AS total FROM tasks WHERE team_id = $1 AND user_id = $2 AND status = $3' };
const taskStatement = { name: 'bench_task', text: `SELECT ${taskColumns} FROM tasks WHERE id = $1 AND team_id = $2 AND user_id = $3` };
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
const unsupportedBody = JSON.stringify({ success: false, error: 'The raw baseline answers only ?status=…&sortBy=dueDate&sortOrder=asc[&limit][&page]' });
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

/** The one LIST the bench sends: `status`, sorted by dueDate ascending, `limit` and `page`. */
function taskListQuery(search: URLSearchParams): { status: string; limit: number; page: number } | null {
  const known = new Set(['status', 'sortBy', 'sortOrder', 'limit', 'page']);
  if ([...search.keys()].some((k) => !known.has(k)) || search.get('sortBy') !== 'dueDate' || search.get('sortOrder') !== 'asc') return null;
  const status = search.get('status');
  const limit = Number(search.get('limit') ?? 10);
  const page = Number(search.get('page') ?? 1);
  if (!status || !Number.isInteger(limit) || limit < 1 || limit > 100 || !Number.isInteger(page) || page < 1) return null;
  return { status, limit, page };
}

async function taskList(req: IncomingMessage, res: ServerResponse, search: URLSearchParams): Promise<void> {
  const query = taskListQuery(search);
  if (!query) return send(res, 400, unsupportedBody);
  const row = await authenticate(req);
  const teamId = row && activeTeam(row);
  if (!row || !teamId) return send(res, 401, unauthorizedBody);
  const { status, limit, page } = query;
  const values = [teamId, row.user_id, status];
  const [data, total] = await asUser(row.user_id, async (client) => {
    const rows = await client.query({ ...taskPageStatement, values: [...values, limit, (page - 1) * limit] });
    const counted = await client.query<{ total: number }>({ ...taskCountStatement, values });
    return [rows.rows, counted.rows[0]?.total ?? 0] as const;
  });
  send(res, 200, JSON.stringify({ success: true, data, pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } }));
}

async function taskRead(req: IncomingMessage, res: ServerResponse, encodedId: string): Promise<void> {
  const id = decodeURIComponent(encodedId);
  const row = await authenticate(req);
  const teamId = row && activeTeam(row);
  if (!row || !teamId) return send(res, 401, unauthorizedBody);
  if (!uuid.test(id)) return send(res, 404, taskNotFoundBody);
  const { rows } = await asUser(row.user_id, (client) => client.query({ ...taskStatement, values: [id, teamId, row.user_id] }));
  if (!rows[0]) return send(res, 404, taskNotFoundBody);
  send(res, 200, JSON.stringify({ success: true, data: rows[0] }));
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
