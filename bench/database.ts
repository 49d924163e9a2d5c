// The benchmark's PostgreSQL database: recreated empty at the start of every run so that each run
// measures the same data, then inspected for the result's environment record.
import pg from 'pg';

export interface DatasetSizes {
  users: number;
  sessions: number;
  apiKeys: number;
  teams: number;
  teamMembers: number;
  tasks: number;
  customers: number;
  customerNotes: number;
  projects: number;
  media: number;
}

/** The same counts on PostgreSQL and PGlite. */
export const datasetSizesQuery = `SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM sessions)::int AS sessions,
  (SELECT count(*) FROM api_keys)::int AS "apiKeys", (SELECT count(*) FROM teams)::int AS teams,
  (SELECT count(*) FROM team_members)::int AS "teamMembers", (SELECT count(*) FROM tasks)::int AS tasks,
  (SELECT count(*) FROM customers)::int AS customers, (SELECT count(*) FROM customer_notes)::int AS "customerNotes",
  (SELECT count(*) FROM projects)::int AS projects, (SELECT count(*) FROM media)::int AS media`;

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Drops and creates the database named in `url`, through the server's `postgres` database. */
export async function recreateDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name || name === 'postgres') throw new Error(`Refusing to recreate database "${name}" (BENCH_DATABASE_URL must name a dedicated database)`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    // FORCE ends sessions a crashed earlier run may have left behind.
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
  } finally {
    await client.end();
  }
}

/** Runs `work` on a connection of its own, as the URL's user (the database owner: no RLS). */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Fresh planner statistics after seeding, so plans do not depend on when autovacuum last ran. */
export function vacuumAnalyze(url: string): Promise<void> {
  return withClient(url, async (c) => {
    await c.query('VACUUM ANALYZE');
  });
}

/**
 * Waits until no other session runs a statement in the database of `url` (at most `timeoutMs`);
 * returns the milliseconds waited.
 */
export function waitForIdleDatabase(url: string, timeoutMs = 30_000): Promise<number> {
  return withClient(url, async (c) => {
    const started = performance.now();
    const database = decodeURIComponent(new URL(url).pathname.slice(1));
    const busy = `SELECT count(*)::int AS active FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`;
    while (performance.now() - started < timeoutMs) {
      const { rows } = await c.query<{ active: number }>(busy, [database]);
      if (!rows[0]?.active) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return performance.now() - started;
  });
}

export function serverVersion(url: string): Promise<string> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ server_version: string }>('SHOW server_version');
    return rows[0]?.server_version ?? 'unknown';
  });
}

export function datasetSizes(url: string): Promise<DatasetSizes> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<DatasetSizes>(datasetSizesQuery);
    const row = rows[0];
    if (!row) throw new Error('dataset size query returned no row');
    return row;
  });
}
