// One round trip less for every request transaction on PostgreSQL. Prisma's pg adapter opens a
// transaction with a `BEGIN` statement of its own, and the first statement of every request
// transaction is the caller's set_config (request-db.ts): two round trips where one will do. On each
// pooled connection the adapter uses, a `BEGIN` is held back and sent in the same message as the
// statement that follows it. When that statement is the caller's set_config, both go as one
// simple-protocol query (`BEGIN; SELECT set_config(…)`, the values escaped by pg as literals); any
// other statement is preceded by the held `BEGIN` as usual, and a transaction that ends before any
// statement sends nothing at all. PostgreSQL sees exactly the statements it would see without it: this
// saves a round trip, it is not a second kind of transaction. Measured under the bench's load (50
// connections, pool of 8), entity READs ran 3–5% slower without it (LISTs about the same).
import type pg from 'pg';

/** The caller's set_config, exactly as request-db.ts sends it ($1 the user id, $2 the role). */
export const enterCallerSql = `SELECT set_config('app.user_id', $1, true), set_config('role', $2, true)`;

/** `BEGIN` and the caller's set_config as one simple-protocol message, the values escaped by pg as literals. */
function beginAsCallerSql(client: pg.ClientBase, userId: unknown, role: unknown): string {
  const [user, as] = [userId, role].map((v) => client.escapeLiteral(String(v)));
  return `BEGIN; SELECT set_config('app.user_id', ${user}, true), set_config('role', ${as}, true)`;
}

type QueryConfig = pg.QueryConfig & { rowMode?: 'array'; types?: unknown };

const emptyResult = (command: string): pg.QueryResult => ({ command, rowCount: null, oid: 0, fields: [], rows: [] });

/** Whether a client holds back a BEGIN: only between the adapter's BEGIN and its next statement. */
const holding = new WeakMap<pg.PoolClient, boolean>();

/** Makes `client` hold back `BEGIN` until the statement after it (once per client: pooled clients are reused). */
function holdBegin(client: pg.PoolClient): void {
  const send = client.query.bind(client) as (config: QueryConfig) => Promise<pg.QueryResult | pg.QueryResult[]>;
  const query = async (config: QueryConfig): Promise<pg.QueryResult | pg.QueryResult[]> => {
    const text = config.text.trim();
    if (!holding.get(client)) {
      if (text !== 'BEGIN') return send(config);
      holding.set(client, true);
      return emptyResult('BEGIN');
    }
    holding.set(client, false);
    // Nothing was sent: there is no transaction to end.
    if (text === 'COMMIT' || text === 'ROLLBACK') return emptyResult(text);
    if (text === enterCallerSql && config.values?.length === 2) {
      const [userId, role] = config.values as unknown[];
      const entered = beginAsCallerSql(client, userId, role);
      const results = await send({ text: entered, rowMode: config.rowMode, types: config.types } as QueryConfig);
      return Array.isArray(results) ? results[results.length - 1]! : results;
    }
    await send({ text: 'BEGIN' });
    return send(config);
  };
  // The adapter calls query(config) with one object; anything else (a callback, a cursor) goes as it came.
  client.query = ((config: QueryConfig | string, ...rest: unknown[]) =>
    typeof config === 'object' && typeof config.text === 'string' && rest.length === 0
      ? query(config)
      : (send as (...args: unknown[]) => unknown)(config, ...rest)) as typeof client.query;
}

/** A pool whose checked-out clients hold back `BEGIN` (see above), for Prisma's adapter. */
export function beginWithCaller(pool: pg.Pool): pg.Pool {
  pool.on('acquire', (client) => {
    if (!holding.has(client)) holdBegin(client);
    // A fresh checkout holds nothing, whatever the last one left.
    holding.set(client, false);
  });
  return pool;
}
