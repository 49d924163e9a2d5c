// Request transactions on PostgreSQL, opened on the driver rather than by Prisma. A request's
// transaction is one pooled connection on which `BEGIN` and the caller's set_config go as one message
// (one round trip), and on which the statements of hot paths run as prepared statements
// (RequestDb.hotQuery) at a fraction of Prisma's CPU. When the request needs Prisma too, Prisma's
// interactive transaction joins it: inside join(), the connection Prisma's adapter asks the pool for is
// this one, lent. The BEGIN, COMMIT and ROLLBACK Prisma sends on it are not sent (the transaction is
// already open, and its owner ends it), and Prisma releasing it does not return it to the pool. A
// request that only needs hot statements never enters Prisma at all. PostgreSQL sees, per request:
// `BEGIN; SELECT set_config(…)`, the request's statements, `COMMIT` or `ROLLBACK`.
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

/** The connection to lend to the next connect() of a join, until taken (once). */
const lending = new AsyncLocalStorage<{ lent: pg.PoolClient | undefined }>();

type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

const emptyResult = (command: string): pg.QueryResult => ({ command, rowCount: null, oid: 0, fields: [], rows: [] });

/** The pool of the process's PostgreSQL database, which opens caller transactions and lends their connections to Prisma. */
export class CallerPool extends pg.Pool {
  /**
   * Opens a transaction as `userId` (none: '') in `role`, on a connection of its own, in one round trip:
   * the values are escaped by pg as literals, in the one simple-protocol message.
   */
  async begin(userId: string | null, role: string): Promise<CallerTransaction> {
    const client = await super.connect();
    const [user, as] = [client.escapeLiteral(userId ?? ''), client.escapeLiteral(role)];
    try {
      await client.query(`BEGIN; SELECT set_config('app.user_id', ${user}, true), set_config('role', ${as}, true)`);
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    return new CallerTransaction(client);
  }

  /** Runs `work`, which opens one Prisma interactive transaction, on `transaction`'s connection. */
  join<T>(transaction: CallerTransaction, work: () => Promise<T>): Promise<T> {
    return lending.run({ lent: transaction.lend() }, work);
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    // Prisma's adapter asks with no callback; pg's own pool.query() passes one, and never borrows.
    const store = callback ? undefined : lending.getStore();
    if (store?.lent) {
      const lent = store.lent;
      store.lent = undefined;
      return Promise.resolve(lent);
    }
    return callback ? super.connect(callback) : super.connect();
  }
}

/** One open caller transaction: its statements, the connection Prisma may borrow, and its end. */
export class CallerTransaction {
  private ended = false;
  /** Prisma sent ROLLBACK (its timeout, or a failure inside its transaction): this transaction cannot commit. */
  private rolledBackByPrisma = false;

  constructor(private readonly client: pg.PoolClient) {}

  /** A prepared statement (`name` always with the same SQL) in this transaction. */
  async query<Row>(name: string, sql: string, values: unknown[]): Promise<Row[]> {
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
    let broken: Error | undefined;
    try {
      const committing = commit && !this.rolledBackByPrisma;
      const result = await this.client.query(committing ? 'COMMIT' : 'ROLLBACK');
      if (committing && result.command === 'ROLLBACK') throw new Error('The request transaction was rolled back at COMMIT: one of its statements had failed');
      if (commit && !committing) throw new Error('The request transaction was rolled back by Prisma before it could commit');
    } catch (error) {
      // The connection may be in any state after a failed COMMIT or ROLLBACK: the pool drops it.
      broken = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      this.client.release(broken);
    }
  }

  /** The connection as Prisma's adapter gets it: the transaction's statements go through, its ends do not. */
  lend(): pg.PoolClient {
    const send = this.client.query.bind(this.client) as (...args: unknown[]) => Promise<pg.QueryResult>;
    const query = (config: unknown, ...rest: unknown[]) => {
      const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
      const statement = typeof text === 'string' ? text.trim().toUpperCase() : '';
      if (statement === 'BEGIN' || statement === 'COMMIT') return Promise.resolve(emptyResult(statement));
      if (statement === 'ROLLBACK') {
        this.rolledBackByPrisma = true;
        return Promise.resolve(emptyResult(statement));
      }
      if (this.ended) return Promise.reject(new Error('A statement after the request transaction ended'));
      return send(config, ...rest);
    };
    return new Proxy(this.client, {
      get: (client, property) => {
        if (property === 'query') return query;
        // The owner releases it, at the transaction's end.
        if (property === 'release') return () => {};
        const value: unknown = Reflect.get(client, property, client);
        return typeof value === 'function' ? value.bind(client) : value;
      },
    });
  }
}
