// Row-level security per request: one transaction, the same on PGlite and PostgreSQL, opened on the
// driver adapter by the request's first statement, which first sets the caller (app.user_id) and drops
// to the app role, which does not bypass RLS. Every statement of the request runs in it: raw SQL through
// query() straight on the adapter, and Prisma's client (tx()) by joining it (join-transaction.ts): the
// first tx() runs Prisma's interactive transaction on this open transaction rather than a new one, and
// Prisma then ends it. A request may use both, in any order. Nothing opens the transaction before its
// first statement, so a request that waits on something else first (an upload moving its files into
// storage, possibly over the network) holds no connection meanwhile. A COMMIT after a failed statement
// fails the request (commit-guard.ts). Work that must follow only a committed change (removing files a
// deletion orphaned) is queued with afterCommit and runs when the request commits, never when it rolls back.
import type { ArgType, Transaction } from '@prisma/driver-adapter-utils';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import { enterCallerSql } from './begin-with-caller.js';
import type { Database } from './database.js';
import { endTransaction, joinTransaction } from './join-transaction.js';

export type Tx = Prisma.TransactionClient;

/** A raw statement run as the caller; rows as the driver adapter gives them (timestamps as ISO strings, int8 as strings). */
export type RawQuery = <Row>(sql: string, values: unknown[]) => Promise<Row[]>;

/** The PostgreSQL role requests run as (created by the init migration). */
export const appRole = 'app_user';

// On PGlite requests queue for its one connection, so waiting for a transaction may take a while
// under load; a request that holds one longer than this has a bug, and its transaction is rolled back.
const transactionTimeoutMs = 30_000;
const prismaOptions = { maxWait: transactionTimeoutMs, timeout: transactionTimeoutMs } as const;

const rollback = Symbol('rollback');

/** What a request's transaction is opened on. */
export type TransactionSource = Pick<Database, 'prisma' | 'adapter'>;

/** Arguments as the adapters take them: lists and scalars, each passed on as it is. */
const argTypes = (values: unknown[]): ArgType[] => values.map((v) => ({ scalarType: 'unknown', arity: Array.isArray(v) ? 'list' : 'scalar' }));

interface PrismaJoined {
  tx: Promise<Tx>;
  decide: (commit: boolean) => void;
  done: Promise<void>;
}

/** The database as one request sees it: through RLS, as its caller. */
export class RequestDb {
  private open: Promise<Transaction> | undefined;
  private prisma: PrismaJoined | undefined;
  private timer: NodeJS.Timeout | undefined;
  private expired = false;
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

  /** The request's Prisma client, in its transaction (opened on first use). */
  tx(): Promise<Tx> {
    if (this.finished && !this.prisma) return Promise.reject(new Error('RequestDb.tx after the request transaction ended'));
    this.prisma ??= this.joinPrisma();
    return this.prisma.tx;
  }

  /** One raw statement in the request's transaction, straight on the driver adapter (no Prisma client on the way). */
  readonly query: RawQuery = async <Row>(sql: string, values: unknown[]): Promise<Row[]> => {
    if (this.finished) throw new Error('RequestDb.query after the request transaction ended');
    const result = await (await this.transaction()).queryRaw({ sql, args: values, argTypes: argTypes(values) });
    return result.rows.map((row) => Object.fromEntries(result.columnNames.map((name, i) => [name, row[i]])) as Row);
  };

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
    if (commit && this.expired) return this.ending.then(() => Promise.reject(new Error(`The request transaction was rolled back: it was still open after ${transactionTimeoutMs / 1000} s`)));
    return this.ending;
  }

  private async end(commit: boolean): Promise<void> {
    clearTimeout(this.timer);
    if (this.prisma) {
      // The transaction Prisma joined is ended by it (join-transaction.ts).
      this.prisma.decide(commit);
      await this.prisma.done;
    } else {
      const tx = await this.open?.catch(() => undefined);
      if (tx) await endTransaction(tx, commit);
    }
    const work = this.committed.splice(0);
    if (commit) await Promise.all(work.map((run) => Promise.resolve().then(run).catch(this.lateFailure)));
  }

  /** The open transaction, begun as the caller on first use. */
  private transaction(): Promise<Transaction> {
    this.open ??= this.begin();
    return this.open;
  }

  private async begin(): Promise<Transaction> {
    const tx = await this.source.adapter.startTransaction();
    const caller = [this.userId ?? '', appRole];
    try {
      await tx.executeRaw({ sql: enterCallerSql, args: caller, argTypes: argTypes(caller) });
    } catch (error) {
      await endTransaction(tx, false).catch(() => {});
      throw error;
    }
    // A request still holding its transaction this late has a bug: roll back, so that others get the connection.
    this.timer = setTimeout(() => {
      this.expired = true;
      this.finish(false).catch(() => {});
    }, transactionTimeoutMs);
    this.timer.unref();
    return tx;
  }

  private joinPrisma(): PrismaJoined {
    let decide!: (commit: boolean) => void;
    const decision = new Promise<boolean>((resolve) => (decide = resolve));
    let ready!: (tx: Tx) => void;
    let failed!: (error: unknown) => void;
    const tx = new Promise<Tx>((resolve, reject) => ((ready = resolve), (failed = reject)));
    const done = this.transaction()
      .then((open) =>
        joinTransaction(
          this.source.prisma,
          open,
          async (client) => {
            ready(client);
            if (!(await decision)) throw rollback;
          },
          prismaOptions,
        ),
      )
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

/** Runs `work`, then commits `db`'s transaction; rolls it back when `work` throws (and throws that). */
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

/** Runs one short unit of work through RLS as `userId` (signing up, signing in: before the request has that caller). */
export function runAsUser<T>(source: TransactionSource, userId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  const db = new RequestDb(source, userId);
  return committing(db, async () => work(await db.tx()));
}
