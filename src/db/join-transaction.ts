// Prisma joins the transaction a request already has, instead of opening a second one. A request's
// transaction is opened on the driver adapter (request-db.ts); when the request first needs Prisma's
// client, it runs Prisma's interactive transaction inside joinTransaction, and the adapter hands Prisma
// that open transaction where it would have begun a new one. Prisma then runs its statements on it and
// ends it (COMMIT or ROLLBACK, as it ends its own). Outside joinTransaction (system work, migrations)
// Prisma opens its transactions as usual.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';
import { overriding } from './commit-guard.js';

/** The open transaction the next Prisma transaction in this async context takes, once. */
const joining = new AsyncLocalStorage<{ tx: Transaction | undefined }>();

/** Runs `work` (a Prisma interactive transaction) on `tx` instead of a new transaction. */
export function joinTransaction<T>(tx: Transaction, work: () => Promise<T>): Promise<T> {
  return joining.run({ tx }, work);
}

/** `factory`'s adapter, whose startTransaction hands over the transaction joinTransaction offers. */
export function joinable<F extends SqlDriverAdapterFactory>(factory: F): F {
  const connect = async () => {
    const adapter = await factory.connect();
    return overriding(adapter, {
      startTransaction: async (isolationLevel) => {
        const offer = joining.getStore();
        const tx = offer?.tx;
        if (!tx) return adapter.startTransaction(isolationLevel);
        // Taken once: a transaction Prisma opened later in the same context is its own.
        offer.tx = undefined;
        return tx;
      },
    });
  };
  return overriding(factory, { connect } as Partial<F>);
}
