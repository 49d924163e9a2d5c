// Row-level security per request: one interactive transaction, opened on the first query the request
// makes, whose first statement sets the caller (app.user_id) and drops to the app role, which does not
// bypass RLS. Every query of the request goes through that transaction's client; the request ends it.
// Work that must follow only a committed change (removing files a deletion orphaned) is queued with
// afterCommit and runs when the request commits, never when it rolls back. The statements of a hot
// path (an upload's record) go through hotQuery: on PostgreSQL straight to the transaction's
// connection as prepared statements (begin-with-caller.ts tells which connection that is).
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import { enterCallerSql, takeConnection, type DriverQuery } from './begin-with-caller.js';
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
 * On PostgreSQL it travels with the transaction's BEGIN (begin-with-caller.ts), which knows its text;
 * `tag` (unique in the process, or '' for none) names the transaction there, to find its connection.
 */
function enterAs(tx: Tx, userId: string | null, tag = ''): Promise<number> {
  return tx.$executeRawUnsafe(enterCallerSql, userId ?? '', appRole, tag);
}

let lastTag = 0;

/** The database as one request sees it: through RLS, as its caller. */
export class RequestDb {
  private open: { tx: Promise<Tx>; decide: (commit: boolean) => void; done: Promise<void> } | undefined;
  /** The open transaction's own connection (PostgreSQL), for hotQuery. */
  private connection: DriverQuery | undefined;
  private finished = false;
  private readonly committed: (() => Promise<void>)[] = [];

  constructor(
    private readonly prisma: PrismaClient,
    /** The caller's user id; null for an anonymous caller, who sees no user or team rows. */
    private readonly userId: string | null,
    /** Told of a failure of afterCommit work: the change is in, so the request does not fail for it (the app logs it). */
    private readonly lateFailure: (error: unknown) => void = (error) => console.error('work after commit failed', error),
  ) {}

  /** The request's transaction client, opening the transaction on first use. */
  tx(): Promise<Tx> {
    this.open ??= this.begin();
    return this.open.tx;
  }

  /**
   * One statement of a hot path in the request's transaction, as the caller: on PostgreSQL a prepared
   * statement (`name` always with the same SQL) straight on the transaction's connection, which costs
   * a fraction of Prisma's raw-query path; elsewhere (PGlite) through that path. Rows come as the driver
   * gives them, so select columns that read alike on both: text, int4, boolean, timestamptz (a Date).
   */
  async hotQuery<Row>(name: string, sql: string, values: unknown[]): Promise<Row[]> {
    const tx = await this.tx();
    // After finish the connection may already serve another request.
    if (this.finished) throw new Error('RequestDb.hotQuery after the request transaction ended');
    return this.connection ? this.connection<Row>(name, sql, values) : tx.$queryRawUnsafe<Row[]>(sql, ...values);
  }

  /** Queues `work` to run once the request's changes are committed (dropped if they roll back). */
  afterCommit(work: () => Promise<void>): void {
    this.committed.push(work);
  }

  /**
   * Commits (or rolls back) the transaction if the request opened one, then, after a commit, runs the
   * queued afterCommit work (a failure goes to lateFailure). Safe to call more than once.
   */
  async finish(commit: boolean): Promise<void> {
    this.finished = true;
    const open = this.open;
    if (open) {
      open.decide(commit);
      await open.done;
    }
    const work = this.committed.splice(0);
    if (commit) await Promise.all(work.map((run) => Promise.resolve().then(run).catch(this.lateFailure)));
  }

  private begin() {
    let decide!: (commit: boolean) => void;
    const decision = new Promise<boolean>((resolve) => (decide = resolve));
    let ready!: (tx: Tx) => void;
    let failed!: (error: unknown) => void;
    const tx = new Promise<Tx>((resolve, reject) => ((ready = resolve), (failed = reject)));
    const done = this.prisma
      .$transaction(async (client) => {
        const tag = String(++lastTag);
        try {
          await enterAs(client, this.userId, tag);
        } finally {
          this.connection = takeConnection(tag);
        }
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
export function runAsUser<T>(prisma: PrismaClient, userId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return prisma.$transaction(async (tx) => {
    await enterAs(tx, userId);
    return work(tx);
  }, transactionOptions);
}
