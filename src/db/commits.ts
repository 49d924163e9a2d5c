// A COMMIT that was a ROLLBACK fails the transaction. PostgreSQL answers the COMMIT of a transaction
// in which a statement failed with the command tag ROLLBACK, not an error; a request that caught such a
// failure and went on would otherwise answer as if its changes were kept ("nothing lost"). Both drivers
// see the tag: pg's result carries it (checked here), and PGlite's own transaction() checks it and
// throws 25P02, an error pglite-prisma-adapter drops (its transaction's outcome is caught and ignored),
// so PGlite's transactions are held open here, with that outcome awaited at commit. Either way the
// check costs no statement.
import type { PGlite, Transaction as PgliteTransaction } from '@electric-sql/pglite';
import type { IsolationLevel, SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';

/** SQLSTATE in_failed_sql_transaction: what a COMMIT that rolled back fails with, on both databases. */
const rolledBackCode = '25P02';

/** A COMMIT that was a ROLLBACK, as it reaches a request transaction's end (transaction-clients.ts) or Prisma's $transaction: PGlite's error, or pg's through the driver adapter. */
export function isRolledBackCommit(error: unknown): boolean {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { originalCode?: unknown } };
  return code === rolledBackCode || cause?.originalCode === rolledBackCode;
}

/** pg's client, whose COMMIT fails (25P02) when PostgreSQL answers it with ROLLBACK. */
export class CommitCheckingClient extends pg.Client {
  // pg's query() is overloaded (callback, promise, submittable); only Prisma's COMMIT, a promise
  // query given as a config object, is looked at.
  override query(...args: unknown[]): never {
    const result = (super.query as (...a: unknown[]) => unknown).apply(this, args);
    const config = args[0] as { text?: unknown } | undefined;
    if (config?.text !== 'COMMIT' || !(result instanceof Promise)) return result as never;
    return result.then((answer: pg.QueryResult) => {
      if (answer.command !== 'ROLLBACK') return answer;
      const error = new pg.DatabaseError('The COMMIT was a ROLLBACK: a statement of the transaction had failed', 0, 'error');
      Object.assign(error, { code: rolledBackCode, severity: 'ERROR' });
      throw error;
    }) as never;
  }
}

/** PGlite's adapter factory, whose transactions' COMMIT fails (25P02) when it was a ROLLBACK. */
export function commitCheckingPglite(pglite: PGlite, factory = new PrismaPGlite(pglite)): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const adapter = Object.create(await factory.connect()) as SqlDriverAdapter;
      adapter.startTransaction = (isolationLevel) => openPgliteTransaction(pglite, isolationLevel);
      return adapter;
    },
  };
}

/**
 * A PGlite transaction held open until Prisma commits or rolls it back: its statements run on PGlite's
 * transaction (through the adapter's queryable on it), and commit() awaits PGlite's COMMIT and its check.
 */
function openPgliteTransaction(pglite: PGlite, isolationLevel: IsolationLevel | undefined): Promise<Transaction> {
  return new Promise((opened, failed) => {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const outcome = pglite.transaction(async (tx: PgliteTransaction) => {
      // PGlite has one connection, so any level holds; set as asked all the same.
      if (isolationLevel) await tx.exec(`SET TRANSACTION ISOLATION LEVEL ${isolationLevel}`);
      const on = await new PrismaPGlite(tx as unknown as PGlite).connect();
      opened({
        provider: on.provider,
        adapterName: on.adapterName,
        options: { usePhantomQuery: true },
        queryRaw: (query) => on.queryRaw(query),
        executeRaw: (query) => on.executeRaw(query),
        commit: async () => {
          end();
          await outcome;
        },
        rollback: async () => {
          if (!tx.closed) await tx.rollback();
          end();
          await outcome;
        },
      });
      await ended;
    });
    // Failing before the transaction opened (PGlite closed, BEGIN refused) fails the opening.
    outcome.catch(failed);
  });
}
