// One round trip less for every request transaction on PostgreSQL. Prisma's pg adapter opens a
// transaction with a `BEGIN` statement of its own, and the first statement of every request
// transaction is the caller's set_config (request-db.ts): two round trips where one will do. On each
// pooled connection the adapter uses, a `BEGIN` is held back and sent in the same message as the
// statement that follows it. When that statement is the caller's set_config, both go as one
// simple-protocol query (`BEGIN; SELECT set_config(…)`, the values escaped by pg as literals); any
// other statement is preceded by the held `BEGIN` as usual, and a transaction that ends before any
// statement sends nothing at all. PostgreSQL sees exactly the statements it saw before.
//
// The same moment tells which connection a request transaction holds: the caller's statement carries
// the transaction's tag ($3, a value only the request knows), and the connection that sent it is
// registered under that tag for the request to take (takeConnection). The request then runs the
// statements of its hot paths on that connection as prepared statements, bypassing Prisma's
// raw-query path (several times the driver's CPU) while staying in the same transaction.
import type pg from 'pg';

/**
 * The caller's set_config, exactly as request-db.ts sends it: $1 the user id, $2 the role, $3 the
 * transaction's tag (returned, and used here to find the transaction's connection).
 */
export const enterCallerSql = `SELECT set_config('app.user_id', $1, true), set_config('role', $2, true), $3::text AS tag`;

/** A prepared statement (`name` always with the same SQL) on one request transaction's connection. */
export type DriverQuery = <Row>(name: string, sql: string, values: unknown[]) => Promise<Row[]>;

/** Connections of transactions that have just entered as their caller, by tag, until their request takes them. */
const entered = new Map<string, DriverQuery>();

/**
 * The connection of the transaction whose caller's statement carried `tag`, once (undefined where
 * there is none: PGlite, or a statement that did not open its transaction). Valid until the
 * transaction ends: the connection then returns to the pool.
 */
export function takeConnection(tag: string): DriverQuery | undefined {
  const query = entered.get(tag);
  entered.delete(tag);
  return query;
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
    if (text === enterCallerSql && config.values?.length === 3) {
      const [userId, role, tag] = (config.values as unknown[]).map((v) => client.escapeLiteral(String(v)));
      const message = `BEGIN; SELECT set_config('app.user_id', ${userId}, true), set_config('role', ${role}, true), ${tag}::text AS tag`;
      const results = await send({ text: message, rowMode: config.rowMode, types: config.types } as QueryConfig);
      const named = String(config.values[2]);
      if (named) entered.set(named, async <Row>(name: string, sql: string, values: unknown[]) => ((await send({ name, text: sql, values })) as pg.QueryResult).rows as Row[]);
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
