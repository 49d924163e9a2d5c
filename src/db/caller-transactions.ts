// Request transactions opened on the driver, on PostgreSQL, for requests whose database work is only
// hot statements (an upload's record): one pooled connection on which `BEGIN` and the caller's
// set_config go as one message (one round trip), and the request's statements as prepared statements,
// without Prisma's interactive-transaction machinery and raw-query path (RequestDb decides when; see
// request-db.ts). PostgreSQL sees `BEGIN; SELECT set_config(…)`, the statements, `COMMIT` or `ROLLBACK`.
import type pg from 'pg';
import { beginAsCallerSql } from './begin-with-caller.js';

/** Opens a transaction as `userId` (none: '') in `role` on a connection of its own, in one round trip (values escaped by pg as literals). */
export async function beginAsCaller(pool: pg.Pool, userId: string | null, role: string): Promise<CallerTransaction> {
  const client = await pool.connect();
  try {
    await client.query(beginAsCallerSql(client, userId ?? '', role));
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  return new CallerTransaction(client);
}

/** One open caller transaction: its statements and its end. */
export class CallerTransaction {
  private ended = false;

  constructor(private readonly client: pg.PoolClient) {}

  /** A prepared statement (`name` always with the same SQL) in this transaction. */
  async query<Row>(name: string, sql: string, values: unknown[]): Promise<Row[]> {
    // After the end, the connection may already serve another request.
    if (this.ended) throw new Error('A statement after the request transaction ended');
    return (await this.client.query({ name, text: sql, values })).rows as Row[];
  }

  /**
   * Commits (or rolls back) and returns the connection to the pool. A COMMIT that PostgreSQL answers
   * with ROLLBACK (a statement of the transaction failed and the request went on) is an error: the
   * request must not answer as if its changes were kept.
   */
  async end(commit: boolean): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    let result: pg.QueryResult;
    try {
      result = await this.client.query(commit ? 'COMMIT' : 'ROLLBACK');
    } catch (error) {
      // After a COMMIT or ROLLBACK that failed on the wire, the connection's state is unknown: the pool drops it.
      this.client.release(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    this.client.release();
    if (commit && result.command === 'ROLLBACK') throw new Error('The request transaction was rolled back at COMMIT: one of its statements had failed');
  }
}
