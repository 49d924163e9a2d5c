// A COMMIT after a failed statement keeps nothing: PostgreSQL (and PGlite) has aborted the transaction
// and answers the COMMIT with ROLLBACK, which neither Prisma nor its adapters report. A request that
// caught such a failure and went on would answer as if its changes were kept. This wraps the driver
// adapter of the PrismaClient, the same on both databases: a transaction in which a statement failed
// rolls back and throws instead of committing, so the request fails.
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';

export const rolledBackAtCommit = 'The request transaction was rolled back at COMMIT: one of its statements had failed';

/** `target` with some members replaced, the others its own (methods bound to it, once: Prisma reads them per statement). */
export function overriding<T extends object>(target: T, overrides: Partial<T>): T {
  const bound = new WeakMap<object, unknown>();
  return new Proxy(target, {
    get: (object, key) => {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof T];
      const value: unknown = Reflect.get(object, key);
      if (typeof value !== 'function') return value;
      if (!bound.has(value)) bound.set(value, value.bind(object));
      return bound.get(value);
    },
  });
}

function guarded(tx: Transaction): Transaction {
  let failed = false;
  const noting = async <R>(run: () => Promise<R>): Promise<R> => {
    try {
      return await run();
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  return overriding(tx, {
    queryRaw: (query: SqlQuery) => noting(() => tx.queryRaw(query)),
    // PostgreSQL's adapter sends COMMIT as a statement (then calls commit() to release the connection;
    // after a failure here, Prisma calls rollback() instead).
    executeRaw: async (query: SqlQuery) => {
      if (!failed || query.sql !== 'COMMIT') return noting(() => tx.executeRaw(query));
      await tx.executeRaw({ ...query, sql: 'ROLLBACK' });
      throw new Error(rolledBackAtCommit);
    },
    // PGlite's adapter commits in commit() itself.
    commit: async () => {
      if (!failed) return tx.commit();
      await tx.rollback();
      throw new Error(rolledBackAtCommit);
    },
    // Rolling back to a savepoint undoes the failure (a nested transaction that failed).
    ...(tx.rollbackToSavepoint && {
      rollbackToSavepoint: async (name: string) => {
        await tx.rollbackToSavepoint!(name);
        failed = false;
      },
    }),
  });
}

/** `factory`'s adapter, whose transactions refuse to commit after a failed statement. */
export function refusingCommitAfterFailure<F extends SqlDriverAdapterFactory>(factory: F): F {
  const connect = async (): Promise<SqlDriverAdapter> => {
    const adapter = await factory.connect();
    return overriding(adapter, { startTransaction: async (isolationLevel) => guarded(await adapter.startTransaction(isolationLevel)) });
  };
  return overriding(factory, { connect } as Partial<F>);
}
