// Row-level security per request: one transaction, opened on the first query the request makes, that
// first sets the caller (app.user_id) and drops to the app role, which does not bypass RLS. Every query
// of the request runs in it; the request ends it. It is Prisma's interactive transaction (on PostgreSQL
// its BEGIN travels with the caller's set_config: begin-with-caller.ts), except for a request whose
// first statement is a hot one (hotQuery, or openAhead): on PostgreSQL that request's transaction is
// opened on the driver (caller-transactions.ts) and its statements run as prepared statements on that
// connection, never entering Prisma (an upload's record: 0.19 ms of CPU against 0.7–0.9 through
// Prisma). Such a request cannot use Prisma afterwards (tx() refuses: Prisma cannot join a
// transaction it did not open); hot statements after Prisma go through Prisma's transaction. Work
// that must follow only a committed change (removing files a deletion orphaned) is queued with
// afterCommit and runs when the request commits, never when it rolls back.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import { enterCallerSql } from './begin-with-caller.js';
import type { CallerTransaction } from './caller-transactions.js';
import type { Database } from './database.js';

export type Tx = Prisma.TransactionClient;

/** The PostgreSQL role requests run as (created by the init migration). */
export const appRole = 'app_user';

// On PGlite requests queue for its one connection, so waiting for a transaction may take a while
// under load; a request that holds one longer than this has a bug.
const transactionOptions = { maxWait: 30_000, timeout: 30_000 } as const;

const rollback = Symbol('rollback');

/**
 * The first statement of every Prisma RLS transaction: who the caller is, and the role that cannot
 * bypass RLS. On PostgreSQL it travels with the transaction's BEGIN (begin-with-caller.ts), which knows its text.
 */
function enterAs(tx: Tx, userId: string | null): Promise<number> {
  return tx.$executeRawUnsafe(enterCallerSql, userId ?? '', appRole);
}

/** What a request's transaction is opened on. */
export type TransactionSource = Pick<Database, 'prisma' | 'beginAsCaller'>;

interface PrismaTransaction {
  tx: Promise<Tx>;
  decide: (commit: boolean) => void;
  done: Promise<void>;
}

/** The database as one request sees it: through RLS, as its caller. */
export class RequestDb {
  /** The request's transaction, once opened: Prisma's, or the driver's (PostgreSQL, hot statements first). */
  private prisma: PrismaTransaction | undefined;
  private driver: Promise<CallerTransaction> | undefined;
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
    if (this.driver) return Promise.reject(new Error('RequestDb.tx: this request began with hot statements on the driver; Prisma cannot join that transaction'));
    if (this.finished && !this.prisma) return Promise.reject(new Error('RequestDb.tx after the request transaction ended'));
    this.prisma ??= this.beginPrisma();
    return this.prisma.tx;
  }

  /**
   * One statement of a hot path in the request's transaction, as the caller. As the request's first
   * statement on PostgreSQL, it opens the transaction on the driver and runs as a prepared statement
   * (`name` always with the same SQL) on that connection; otherwise through Prisma's raw-query path.
   * Rows come as the driver gives them, so select columns that read alike on both: text, int4,
   * boolean, timestamptz (a Date).
   */
  async hotQuery<Row>(name: string, sql: string, values: unknown[]): Promise<Row[]> {
    if (this.finished) throw new Error('RequestDb.hotQuery after the request transaction ended');
    if (this.prisma || !this.source.beginAsCaller) return (await this.tx()).$queryRawUnsafe<Row[]>(sql, ...values);
    return (await this.beginDriver()).query<Row>(name, sql, values);
  }

  /**
   * Opens the transaction on the driver now, for a request whose statements will all be hot ones, so
   * that its round trip overlaps a wait that comes first (an upload moving its files into storage).
   * PostgreSQL only (on PGlite, a transaction open early would hold the one connection for that wait);
   * nothing if the request already has a transaction. A failure surfaces at the first statement.
   */
  openAhead(): void {
    if (this.source.beginAsCaller && !this.prisma && !this.finished) this.beginDriver().catch(() => {});
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
    if (this.prisma) {
      this.prisma.decide(commit);
      await this.prisma.done;
    }
    const driver = this.driver && (await this.driver.catch(() => undefined));
    await driver?.end(commit);
    const work = this.committed.splice(0);
    if (commit) await Promise.all(work.map((run) => Promise.resolve().then(run).catch(this.lateFailure)));
  }

  private beginDriver(): Promise<CallerTransaction> {
    this.driver ??= this.source.beginAsCaller!(this.userId, appRole);
    return this.driver;
  }

  private beginPrisma(): PrismaTransaction {
    let decide!: (commit: boolean) => void;
    const decision = new Promise<boolean>((resolve) => (decide = resolve));
    let ready!: (tx: Tx) => void;
    let failed!: (error: unknown) => void;
    const tx = new Promise<Tx>((resolve, reject) => ((ready = resolve), (failed = reject)));
    const done = this.source.prisma
      .$transaction(async (client) => {
        await enterAs(client, this.userId);
        ready(client);
        if (!(await decision)) throw rollback;
      }, transactionOptions)
      .catch((error: unknown) => {
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
