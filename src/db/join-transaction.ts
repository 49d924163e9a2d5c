// Prisma joins the transaction a request already has, instead of opening a second one. A request's
// transaction is opened on the driver adapter (request-db.ts); when the request first needs Prisma's
// client, joinTransaction offers that open transaction under a key and runs Prisma's interactive
// transaction, whose first statement claims it by that key. The adapter Prisma uses hands it, for each
// transaction, one that binds on its first statement: to the offered transaction when that statement is
// the claim (which is never sent), otherwise to a new transaction of its own (system work, migrations,
// batches: Prisma's transactions as before, begun at their first statement). Prisma then ends it.
// No AsyncLocalStorage: on Node 20 enabling one slows every promise of the process (3–4× on a promise
// loop here, CPU per request up to ~20% in the bench).
import type { IsolationLevel, SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import { overriding } from './commit-guard.js';

/** The statement by which a Prisma transaction claims an offered one: intercepted, never sent. */
const claimSql = '-- claim the offered request transaction';
const offered = new Map<string, Transaction>();
let offers = 0;

/** Ends an adapter transaction as Prisma ends its own: the statement unless the driver ends it itself, then the release. */
export async function endTransaction(tx: Transaction, commit: boolean): Promise<void> {
  if (tx.options.usePhantomQuery) return commit ? tx.commit() : tx.rollback();
  try {
    await tx.executeRaw({ sql: commit ? 'COMMIT' : 'ROLLBACK', args: [], argTypes: [] });
  } catch (error) {
    await tx.rollback();
    throw error;
  }
  await (commit ? tx.commit() : tx.rollback());
}

/**
 * Runs Prisma's interactive transaction on `tx`, an open transaction of `prisma`'s driver, with `work`
 * given the transaction client. `tx` is always ended: by Prisma (committed when `work` resolves, rolled
 * back when it throws), or rolled back here if Prisma failed before it took it.
 */
export async function joinTransaction<T>(
  prisma: PrismaClient,
  tx: Transaction,
  work: (client: Prisma.TransactionClient) => Promise<T>,
  options: { maxWait: number; timeout: number },
): Promise<T> {
  const key = String(++offers);
  offered.set(key, tx);
  try {
    return await prisma.$transaction(async (client) => {
      await client.$executeRawUnsafe(claimSql, key);
      return work(client);
    }, options);
  } finally {
    // Never claimed (Prisma failed before its first statement): nothing else would end it.
    if (offered.delete(key)) await endTransaction(tx, false).catch(() => {});
  }
}

/** A transaction bound on its first statement: to the offered one it claims, or to a new one of `adapter`. */
function bindingOnFirstStatement(adapter: SqlDriverAdapter, isolationLevel?: IsolationLevel): Transaction {
  let bound: Promise<Transaction> | undefined;
  const on = () => (bound ??= adapter.startTransaction(isolationLevel));
  const end = async (commit: boolean) => {
    const tx = await bound?.catch(() => undefined);
    if (tx) await endTransaction(tx, commit);
  };
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    // Prisma sends no COMMIT or ROLLBACK statement: end() does, on whatever this is bound to.
    options: { usePhantomQuery: true },
    executeRaw: async (query: SqlQuery) => {
      if (query.sql !== claimSql) return (await on()).executeRaw(query);
      const key = String(query.args[0]);
      const tx = offered.get(key);
      if (bound || !tx) throw new Error('A request transaction was claimed twice, or after its request ended');
      offered.delete(key);
      bound = Promise.resolve(tx);
      return 0;
    },
    queryRaw: async (query: SqlQuery) => (await on()).queryRaw(query),
    commit: () => end(true),
    rollback: () => end(false),
  };
}

/** `factory`'s adapter, whose transactions can join an offered one (see above). */
export function joinable<F extends SqlDriverAdapterFactory>(factory: F): F {
  const connect = async () => {
    const adapter = await factory.connect();
    return overriding(adapter, { startTransaction: async (isolationLevel) => bindingOnFirstStatement(adapter, isolationLevel) });
  };
  return overriding(factory, { connect } as Partial<F>);
}
