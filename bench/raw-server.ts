// The baseline: what node:http and `pg` alone do for the same routes, with the same SQL statement the
// product runs for a session. Never part of the product; it answers the same JSON so that the bench
// can check both give identical answers. Env: PORT, HOST, DATABASE_URL.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
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

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });

const healthBody = JSON.stringify({ status: 'ok' });
const unauthorizedBody = JSON.stringify({ success: false, error: 'Not signed in', code: 'UNAUTHENTICATED' });

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

async function session(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const token = sessionToken(req.headers.cookie);
  if (!token) return send(res, 401, unauthorizedBody);
  const hash = createHash('sha256').update(token).digest('hex');
  const { rows } = await pool.query<SessionRow>({ ...sessionStatement, values: [hash] });
  const row = rows[0];
  // Same constant-time comparison the product makes, so the baseline does no less work.
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(hash, 'hex'))) return send(res, 401, unauthorizedBody);
  const data = {
    user: { id: row.user_id, email: row.email, role: row.role, firstName: row.first_name, lastName: row.last_name, image: row.image },
    activeTeamId: row.active_team_id ?? row.teams[0]?.teamId ?? null,
  };
  send(res, 200, JSON.stringify({ success: true, data }));
}

const server = createServer((req, res) => {
  const path = req.url?.split('?')[0];
  if (req.method === 'GET' && path === '/healthz') return send(res, 200, healthBody);
  if (req.method === 'GET' && path === '/api/auth/session') {
    session(req, res).catch((error: Error) => send(res, 500, JSON.stringify({ success: false, error: error.message })));
    return;
  }
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
