// Row-level security per request: one transaction, opened on the first query the request makes, that
// first sets the caller (app.user_id) and drops to the app role, which does not bypass RLS. Every query
// of the request runs in it; the request ends it. On PostgreSQL the transaction is opened on the driver
// (caller-transactions.ts: BEGIN and the caller in one round trip) and Prisma's interactive transaction
// joins it when the request first needs Prisma; the statements of hot paths (an upload's record) go
// through hotQuery, prepared statements straight on the transaction's connection, so a request made
// only of those never enters Prisma. On PGlite the transaction is Prisma's, hotQuery goes through it.
// Work that must follow only a committed change (removing files a deletion orphaned) is queued with
// afterCommit and runs when the request commits, never when it rolls back.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { CallerTransaction } from './caller-transactions.js';
import type { Database } from './database.js';

export type Tx = Prisma.TransactionClient;

/** The PostgreSQL role requests run as (created by the init migration). */
export const appRole = 'app_user';

// On PGlite requests queue for its one connection, so waiting for a transaction may take a while
// under load; a request that holds one longer than this has a bug.
const transactionOptions = { maxWait: 30_000, timeout: 30_000 } as const;

const rollback = Symbol('rollback');

/** The caller's statement where Prisma opens the transaction (PGlite): who the caller is, and the role that cannot bypass RLS. */
function enterAs(tx: Tx, userId: string | null): Promise<number> {
  return tx.$executeRawUnsafe(`SELECT set_config('app.user_id', $1, true), set_config('role', $2, true)`, userId ?? '', appRole);
}

/** What a request's transaction is opened on. */
export type TransactionSource = Pick<Database, 'prisma' | 'callerPool'>;

interface PrismaJoin {
  tx: Promise<Tx>;
  decide: (commit: boolean) => void;
  done: Promise<void>;
}

/** The database as one request sees it: through RLS, as its caller. */
export class RequestDb {
  /** The transaction opened on the driver (PostgreSQL). */
  private driver: Promise<CallerTransaction> | undefined;
  /** Prisma's interactive transaction: joined to the driver's on PostgreSQL, the transaction itself on PGlite. */
  private prismaTx: PrismaJoin | undefined;
  private finished = false;
  private ending: Promise<void> | undefined;
  private readonly committed: (() => Promise<void>)[] = [];

  constructor(
    private readonly source: TransactionSource,
    /** The caller's user id; null for an anonymous caller, who sees no user or team rows. */
    private readonly userId: string | null,
    /** Told of a failure of afterCommit work: the change is in, so the request does not fail for it (the app logs it). */
    private readonly lateFailure: (error: unknown) => void = (error) => console.error('work after commit failed', error),
  ) {}

  /** The request's Prisma transaction client, opening the transaction on first use. */
  tx(): Promise<Tx> {
    if (this.finished && !this.prismaTx) return Promise.reject(new Error('RequestDb.tx after the request transaction ended'));
    this.prismaTx ??= this.joinPrisma();
    return this.prismaTx.tx;
  }

  /**
   * One statement of a hot path in the request's transaction, as the caller: on PostgreSQL a prepared
   * statement (`name` always with the same SQL) straight on the transaction's connection, which costs
   * a fraction of Prisma's raw-query path; on PGlite through that path. Rows come as the driver gives
   * them, so select columns that read alike on both: text, int4, boolean, timestamptz (a Date).
   */
  async hotQuery<Row>(name: string, sql: string, values: unknown[]): Promise<Row[]> {
    // After the end, the connection may already serve another request.
    if (this.finished) throw new Error('RequestDb.hotQuery after the request transaction ended');
    if (!this.source.callerPool) return (await this.tx()).$queryRawUnsafe<Row[]>(sql, ...values);
    return (await this.openDriver()).query<Row>(name, sql, values);
  }

  /**
   * Opens the transaction now, before its first statement, so that its round trip overlaps a wait that
   * comes first (an upload moving its files into storage). PostgreSQL only: on PGlite, a transaction
   * open early would hold the one connection for that wait. A failure surfaces at the first statement.
   */
  openAhead(): void {
    if (this.source.callerPool && !this.finished) this.openDriver().catch(() => {});
  }

  /** Queues `work` to run once the request's changes are committed (dropped if they roll back). */
  afterCommit(work: () => Promise<void>): void {
    this.committed.push(work);
  }

  /**
   * Commits (or rolls back) the transaction if the request opened one, then, after a commit, runs the
   * queued afterCommit work (a failure goes to lateFailure). Safe to call more than once.
   */
  finish(commit: boolean): Promise<void> {
    this.finished = true;
    this.ending ??= this.end(commit);
    return this.ending;
  }

  private async end(commit: boolean): Promise<void> {
    const { prismaTx: joined, driver } = this;
    let failure: { error: unknown } | undefined;
    if (joined) {
      joined.decide(commit);
      await joined.done.catch((error: unknown) => (failure = { error }));
    }
    const transaction = driver && (await driver.catch(() => undefined));
    await transaction?.end(commit && !failure).catch((error: unknown) => (failure ??= { error }));
    if (failure) throw failure.error;
    const work = this.committed.splice(0);
    if (commit) await Promise.all(work.map((run) => Promise.resolve().then(run).catch(this.lateFailure)));
  }

  private openDriver(): Promise<CallerTransaction> {
    this.driver ??= this.source.callerPool!.begin(this.userId, appRole);
    return this.driver;
  }

  /** Opens Prisma's interactive transaction (on PostgreSQL on the driver's, already open), held until finish. */
  private joinPrisma(): PrismaJoin {
    let decide!: (commit: boolean) => void;
    const decision = new Promise<boolean>((resolve) => (decide = resolve));
    let ready!: (tx: Tx) => void;
    let failed!: (error: unknown) => void;
    const tx = new Promise<Tx>((resolve, reject) => ((ready = resolve), (failed = reject)));
    const held = (client: Tx) => {
      ready(client);
      return decision.then((commit) => {
        if (!commit) throw rollback;
      });
    };
    const pool = this.source.callerPool;
    const opened = pool
      ? this.openDriver().then((driver) => pool.join(driver, () => this.source.prisma.$transaction(held, transactionOptions)))
      : this.source.prisma.$transaction(async (client) => {
          await enterAs(client, this.userId);
          await held(client);
        }, transactionOptions);
    const done = opened.catch((error: unknown) => {
      failed(error);
      if (error !== rollback) throw error;
    });
    // A request that never awaits finish() must not leave an unhandled rejection behind.
    done.catch(() => {});
    return { tx, decide, done };
  }
}

/**
 * Access that sees every row, for work that is not done on behalf of one caller (authentication
 * lookups, migrations, operators' CLI). Always named, so that each use is deliberate and greppable.
 */
export interface SystemDb {
  readonly purpose: string;
  readonly prisma: PrismaClient;
  /** A prepared statement on the driver (see Database.hotQuery), for per-request lookups. */
  hotQuery<Row>(name: string, sql: string, values: unknown[]): Promise<Row[]>;
}

export function systemDb(database: Pick<Database, 'prisma' | 'hotQuery'>, purpose: string): SystemDb {
  return { purpose, prisma: database.prisma, hotQuery: database.hotQuery };
}

/** Runs one short unit of work through RLS as `userId` (signing up, signing in: before the request has that caller). */
export async function runAsUser<T>(source: TransactionSource, userId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  const db = new RequestDb(source, userId);
  let result: T;
  try {
    result = await work(await db.tx());
  } catch (error) {
    await db.finish(false).catch(() => {});
    throw error;
  }
  await db.finish(true);
  return result;
}
