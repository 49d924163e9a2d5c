// Row-level security per request: one transaction, Prisma's interactive transaction on PGlite and
// PostgreSQL alike, opened by the request's first statement, that first sets the caller (app.user_id)
// and drops to the app role, which does not bypass RLS. Every statement of the request runs in it,
// through its client (tx(), raw SQL included); the request ends it (finish). Nothing opens it before its
// first statement, so a request that waits on something else first (an upload moving its files into
// storage, possibly over the network) holds no connection meanwhile. A COMMIT after a failed statement
// fails the request (commit-guard.ts). Work that must follow only a committed change (removing files a deletion
// orphaned) is queued with afterCommit and runs when the request commits, never when it rolls back.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import { enterCallerSql } from './begin-with-caller.js';
import type { Database } from './database.js';

export type Tx = Prisma.TransactionClient;

/** The PostgreSQL role requests run as (created by the init migration). */
export const appRole = 'app_user';

// On PGlite requests queue for its one connection, so waiting for a transaction may take a while
// under load; a request that holds one longer than this has a bug.
const transactionOptions = { maxWait: 30_000, timeout: 30_000 } as const;

const rollback = Symbol('rollback');

/**
 * The first statement of every RLS transaction: who the caller is, and the role that cannot bypass RLS.
 * On PostgreSQL it travels in one message with the transaction's BEGIN (begin-with-caller.ts).
 */
function enterAs(tx: Tx, userId: string | null): Promise<number> {
  return tx.$executeRawUnsafe(enterCallerSql, userId ?? '', appRole);
}

/** What a request's transaction is opened on. */
export type TransactionSource = Pick<Database, 'prisma'>;

interface OpenTransaction {
  tx: Promise<Tx>;
  decide: (commit: boolean) => void;
  done: Promise<void>;
}

/** The database as one request sees it: through RLS, as its caller. */
export class RequestDb {
  private open: OpenTransaction | undefined;
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

  /** The request's transaction client, opening the transaction on first use. */
  tx(): Promise<Tx> {
    if (this.finished && !this.open) return Promise.reject(new Error('RequestDb.tx after the request transaction ended'));
    this.open ??= this.begin();
    return this.open.tx;
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
    if (this.open) {
      this.open.decide(commit);
      await this.open.done;
    }
    const work = this.committed.splice(0);
    if (commit) await Promise.all(work.map((run) => Promise.resolve().then(run).catch(this.lateFailure)));
  }

  private begin(): OpenTransaction {
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
  /** A prepared statement on the driver, outside any transaction (see Database.hotQuery), for per-request lookups. */
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
