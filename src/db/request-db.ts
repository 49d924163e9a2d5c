// Row-level security per request: one transaction, on a Prisma client that is the request's while it
// lasts (transaction-clients.ts), the same on PGlite and PostgreSQL. It opens at the request's first
// statement (tx() or query()), whose first statement sets the caller (app.user_id) and drops to the app
// role, which does not bypass RLS (caller-entry.ts; on PostgreSQL it travels with the BEGIN); every
// statement of the request then runs on its transaction client, raw ones included. Nothing opens it
// before, so a request that never touches the database opens none, and one that waits on something
// else first (an upload moving its files into storage, possibly over the network) holds no connection
// meanwhile. The pipeline alone ends it (finish): modules never do.
//
// "Nothing lost": PostgreSQL answers the COMMIT of a transaction in which a statement failed with a
// ROLLBACK, which Prisma does not check; a request that caught such a failure and went on would answer
// as if its changes were kept. The database's adapters fail such a COMMIT (commits.ts), and the request
// fails with rolledBackAtCommit.
//
// Work that must follow only a committed change (removing files a deletion orphaned) is queued with
// afterCommit; work that undoes what a request did outside the database (files it stored) is queued with
// onRollback and runs when the request rolls back, or its commit fails.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { Database } from './database.js';
import { callerEntry } from './caller-entry.js';
import { isRolledBackCommit } from './commits.js';

export type Tx = Prisma.TransactionClient;

/** One raw statement with its values (`Prisma.sql`), to be run by whoever is handed it. */
export type Statement = Prisma.Sql;

/** A raw statement run as the caller; rows as Prisma's raw queries give them (timestamps as Dates, int8 as BigInts). */
export type RawQuery = <Row>(sql: string, values: unknown[]) => Promise<Row[]>;

export { appRole } from './caller-entry.js';

/** Why a request whose commit would have been a rollback fails. */
export const rolledBackAtCommit = 'The request transaction was rolled back at COMMIT: one of its statements had failed';

// On PGlite requests queue for its one connection, so waiting for a transaction may take a while
// under load; a request that holds one longer than this has a bug, and its transaction is rolled back
// (by our timer, with a clear error).
const transactionTimeoutMs = 30_000;

/** What a request's transaction is opened on. */
export type TransactionSource = Pick<Database, 'openTransaction'>;

/** The database as one request sees it: through RLS, as its caller. */
export class RequestDb {
  private open: Promise<Tx> | undefined;
  private decide: ((commit: boolean) => void) | undefined;
  private done: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private expired = false;
  private finished = false;
  private ending: Promise<void> | undefined;
  private refusal: string | undefined;
  private readonly committed: (() => Promise<void>)[] = [];
  private readonly rolledBack: (() => Promise<void>)[] = [];

  constructor(
    private readonly source: TransactionSource,
    /** The caller's user id; null for an anonymous caller, who sees no user or team rows. */
    private readonly userId: string | null,
    /** Told of a failure of afterCommit or onRollback work: the request's outcome is decided, so it does not fail for it (the app logs it). */
    private readonly lateFailure: (error: unknown) => void = (error) => console.error('work after the request transaction failed', error),
  ) {}

  /** The request's Prisma client, in its transaction (opened on first use). */
  tx(): Promise<Tx> {
    if (this.finished) return Promise.reject(new Error('RequestDb.tx after the request transaction ended'));
    if (this.refusal) return Promise.reject(new Error(this.refusal));
    this.open ??= this.begin();
    return this.open;
  }

  /** One raw statement in the request's transaction. */
  readonly query: RawQuery = async <Row>(sql: string, values: unknown[]): Promise<Row[]> => (await this.tx()).$queryRawUnsafe<Row[]>(sql, ...values);

  /** Queues `work` to run once the request's changes are committed (dropped if they roll back). */
  afterCommit(work: () => Promise<void>): void {
    this.committed.push(work);
  }

  /** Queues `work` to run if the request's changes roll back (or their commit fails): undoing what the request did outside the database. */
  onRollback(work: () => Promise<void>): void {
    this.rolledBack.push(work);
  }

  /**
   * Refuses statements while `phase` runs (a route's network phase, which must hold no connection),
   * naming it; statements are taken again once it settles.
   */
  async without<T>(phase: string, work: () => Promise<T>): Promise<T> {
    this.refusal = `No statement may run during ${phase}: it holds no database connection`;
    try {
      return await work();
    } finally {
      this.refusal = undefined;
    }
  }

  /**
   * Commits (or rolls back) the transaction if the request opened one, then runs the queued afterCommit
   * work after a commit, or the onRollback work otherwise (a failure of either goes to lateFailure).
   * Called by the pipeline (and committing()), never by a module. Safe to call more than once.
   */
  finish(commit: boolean): Promise<void> {
    this.finished = true;
    this.ending ??= this.end(commit);
    if (commit && this.expired) return this.ending.then(() => Promise.reject(new Error(`The request transaction was rolled back: it was still open after ${transactionTimeoutMs / 1000} s`)));
    return this.ending;
  }

  private async end(commit: boolean): Promise<void> {
    clearTimeout(this.timer);
    let failure: { error: unknown } | undefined;
    if (this.done) {
      this.decide!(commit && !this.expired);
      await this.done.catch((error: unknown) => void (failure = { error }));
    }
    const kept = commit && !this.expired && !failure;
    const [committed, rolledBack] = [this.committed.splice(0), this.rolledBack.splice(0)];
    await Promise.all((kept ? committed : rolledBack).map((run) => Promise.resolve().then(run).catch(this.lateFailure)));
    if (failure) throw failure.error;
  }

  /** The request's transaction (transaction-clients.ts) as the caller: its client is handed out, and it ends as finish() decides. */
  private begin(): Promise<Tx> {
    let opened!: (tx: Tx) => void;
    let failed!: (error: unknown) => void;
    const client = new Promise<Tx>((resolve, reject) => ((opened = resolve), (failed = reject)));
    const decision = new Promise<boolean>((resolve) => (this.decide = resolve));
    this.done = (async () => {
      const transaction = await this.source.openTransaction();
      let commit: boolean;
      try {
        await transaction.execute(callerEntry(this.userId), []);
        opened(transaction.client);
        commit = await decision;
      } catch (error) {
        await transaction.end(false).catch(() => {});
        throw error;
      }
      await transaction.end(commit);
    })().catch((error: unknown) => {
      failed(error);
      throw isRolledBackCommit(error) ? new Error(rolledBackAtCommit, { cause: error }) : error;
    });
    // A request that never awaits finish() must not leave an unhandled rejection behind.
    this.done.catch(() => {});
    // A request still holding its transaction this late has a bug: roll back, so that others get the connection.
    this.timer = setTimeout(() => {
      this.expired = true;
      this.finish(false).catch(() => {});
    }, transactionTimeoutMs);
    this.timer.unref();
    return client;
  }
}

/**
 * Access that sees every row, for work that is not done on behalf of one caller (authentication
 * lookups, migrations, operators' CLI). Always named, so that each use is deliberate and greppable.
 */
export interface SystemDb {
  readonly purpose: string;
  readonly prisma: PrismaClient;
  /** A prepared statement on the driver, outside any transaction (see Database.hotQuery), for per-request lookups. */
  hotQuery<Row>(name: string, sql: string, values: unknown[]): Promise<Row[]>;
}

export function systemDb(database: Pick<Database, 'prisma' | 'hotQuery'>, purpose: string): SystemDb {
  return { purpose, prisma: database.prisma, hotQuery: database.hotQuery };
}

/** Runs `work`, then commits `db`'s transaction; rolls it back when `work` throws (and throws that). For units of work outside the pipeline. */
export async function committing<T>(db: Pick<RequestDb, 'finish'>, work: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await db.finish(false).catch(() => {});
    throw error;
  }
  await db.finish(true);
  return result;
}

/** Runs one short unit of work through RLS as `userId` (signing up, signing in: before the request has that caller), in a request transaction of its own. */
export function runAsUser<T>(source: TransactionSource, userId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  const db = new RequestDb(source, userId);
  return committing(db, async () => work(await db.tx()));
}
