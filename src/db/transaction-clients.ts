// Request transactions on Prisma clients of their own. A request's transaction is a transaction of
// the driver adapter (the same one Prisma's interactive transactions open: a pooled connection after
// BEGIN on PostgreSQL, PGlite's held transaction), and the request's statements run through a Prisma
// client that belongs to it while it lasts: the client's adapter sends everything to that transaction.
// Prisma's interactive transaction did the same with a client built for every request (its model layer
// of proxies, timers and an abort signal per transaction, and its own bookkeeping around each
// statement): READ 1.75 → 1.07 ms of CPU per request and 1.59× the requests per second, LIST 4.18 →
// 3.13 ms and 1.31× (bench, PostgreSQL, 50 connections, the two builds side by side).
//
// The clients are made as requests need them, up to one per connection the pool may open (one on
// PGlite, whose one connection runs one transaction at a time), and each serves one request at a
// time: Prisma batches a tick's findUnique calls per client, so no statement of one request can join
// another's. A transaction Prisma opens itself inside (a nested write) is a savepoint of the request's.
import type { IsolationLevel, SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';
import { PrismaClient } from '../generated/prisma/client.js';
import type { Prisma } from '../generated/prisma/client.js';

/** A request's transaction, open: its client, and how it ends. */
export interface OpenTransaction {
  /** The Prisma client whose statements run in this transaction (until end()). */
  client: Prisma.TransactionClient;
  /** One raw statement in the transaction, on the adapter (the caller's entry: no model, no result). */
  execute(sql: string, values: string[]): Promise<void>;
  /** COMMIT (failing, 25P02, when PostgreSQL answered it with ROLLBACK) or ROLLBACK; the client is free again either way. */
  end(commit: boolean): Promise<void>;
}

export interface TransactionClients {
  open(): Promise<OpenTransaction>;
  /** Disconnects the clients made (the adapter's pool or PGlite stays the database's to close). */
  close(): Promise<void>;
}

const query = (sql: string): SqlQuery => ({ sql, args: [], argTypes: [] });

/** How long a request waits for a client of its own before it fails (Prisma's maxWait was the same). */
const waitMs = 30_000;

/** What a client used outside its transaction fails with. */
const usedAfterEnd = () => new Error('A request transaction client was used after its transaction ended');

/** A client of the pool with the transaction it runs in now. */
interface Slot {
  client: PrismaClient;
  current: Transaction | undefined;
}

/**
 * The request's transaction as the client's adapter: its statements go to the slot's current
 * transaction, and a transaction Prisma starts inside is a savepoint of it.
 */
function slotAdapter(slot: Slot, base: SqlDriverAdapter): SqlDriverAdapter {
  let savepoints = 0;
  const on = (): Transaction => {
    if (!slot.current) throw usedAfterEnd();
    return slot.current;
  };
  return {
    provider: base.provider,
    adapterName: base.adapterName,
    queryRaw: (q) => on().queryRaw(q),
    executeRaw: (q) => on().executeRaw(q),
    executeScript: () => Promise.reject(new Error('Scripts do not run in a request transaction')),
    getConnectionInfo: base.getConnectionInfo && (() => base.getConnectionInfo!()),
    dispose: async () => {},
    async startTransaction(_isolationLevel?: IsolationLevel): Promise<Transaction> {
      const outer = on();
      const name = `nested_${++savepoints}`;
      await outer.executeRaw(query(`SAVEPOINT ${name}`));
      return {
        provider: base.provider,
        adapterName: base.adapterName,
        options: { usePhantomQuery: true },
        queryRaw: (q) => outer.queryRaw(q),
        executeRaw: (q) => outer.executeRaw(q),
        commit: async () => void (await outer.executeRaw(query(`RELEASE SAVEPOINT ${name}`))),
        rollback: async () => {
          await outer.executeRaw(query(`ROLLBACK TO SAVEPOINT ${name}`));
          await outer.executeRaw(query(`RELEASE SAVEPOINT ${name}`));
        },
      };
    },
  };
}

/**
 * The client as one transaction hands it out: once the transaction ended, every use of it (a model, a
 * method, a query made earlier and run later: Prisma's queries run when awaited) fails, where the bare
 * client would run the statement in whichever request's transaction holds it then.
 */
function fenced<T extends object>(target: T, live: () => boolean): T {
  const guard = (result: unknown): unknown => {
    if (!result || typeof (result as PromiseLike<unknown>).then !== 'function') return result;
    const lazy = result as PromiseLike<unknown>;
    return {
      then: (ok?: (v: unknown) => unknown, ko?: (e: unknown) => unknown) => (live() ? lazy.then(ok, ko) : Promise.reject(usedAfterEnd()).then(ok, ko)),
      catch: (ko?: (e: unknown) => unknown) => (live() ? Promise.resolve(lazy).catch(ko) : Promise.reject(usedAfterEnd()).catch(ko)),
      finally: (f?: () => void) => (live() ? Promise.resolve(lazy).finally(f) : Promise.reject(usedAfterEnd()).finally(f)),
      [Symbol.toStringTag]: 'PrismaPromise',
    };
  };
  return new Proxy(target, {
    get(object, key) {
      if (!live()) throw usedAfterEnd();
      const value = Reflect.get(object, key) as unknown;
      if (typeof value === 'function') return (...args: unknown[]) => guard((value as (...a: unknown[]) => unknown).apply(object, args));
      if (value !== null && typeof value === 'object') return fenced(value, live);
      return value;
    },
  });
}

/** Ends an adapter transaction as Prisma's transaction manager does: COMMIT or ROLLBACK sent unless the adapter sends them itself. */
async function endTransaction(transaction: Transaction, commit: boolean): Promise<void> {
  if (transaction.options.usePhantomQuery) return commit ? transaction.commit() : transaction.rollback();
  if (!commit) {
    try {
      await transaction.executeRaw(query('ROLLBACK'));
    } finally {
      await transaction.rollback();
    }
    return;
  }
  try {
    await transaction.executeRaw(query('COMMIT'));
  } catch (error) {
    await transaction.rollback();
    throw error;
  }
  await transaction.commit();
}

/** Request transactions on `factory`'s adapter, on at most `size` clients at once (others wait their turn). */
export function transactionClients(factory: SqlDriverAdapterFactory, size: number, clientOptions: { errorFormat: 'minimal' }): TransactionClients {
  // The adapter every transaction starts on, connected when the first one opens.
  let connected: Promise<SqlDriverAdapter> | undefined;
  const adapter = () => (connected ??= factory.connect());
  const slots: Slot[] = [];
  const free: Slot[] = [];
  const waiting: ((slot: Slot) => void)[] = [];

  function take(): Promise<Slot> {
    const idle = free.pop();
    if (idle) return Promise.resolve(idle);
    if (slots.length < size) {
      const slot: Slot = {
        current: undefined,
        client: new PrismaClient({ adapter: { provider: factory.provider, adapterName: factory.adapterName, connect: async () => slotAdapter(slot, await adapter()) }, ...clientOptions }),
      };
      slots.push(slot);
      return Promise.resolve(slot);
    }
    // As Prisma's interactive transactions waited (maxWait): a request still waiting this late fails.
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(handOver), 1);
        // Prisma's code for a connection the pool did not give in time: answered 503 with Retry-After (unavailable.ts).
        reject(Object.assign(new Error(`No request transaction could start within ${waitMs / 1000} s: all ${size} were in use`), { code: 'P2024' }));
      }, waitMs);
      const handOver = (slot: Slot) => {
        clearTimeout(timer);
        resolve(slot);
      };
      waiting.push(handOver);
    });
  }

  function give(slot: Slot): void {
    slot.current = undefined;
    const next = waiting.shift();
    if (next) next(slot);
    else free.push(slot);
  }

  return {
    async open() {
      const slot = await take();
      let transaction: Transaction;
      try {
        transaction = await (await adapter()).startTransaction();
      } catch (error) {
        give(slot);
        throw error;
      }
      slot.current = transaction;
      let ended = false;
      return {
        client: fenced(slot.client, () => !ended) as unknown as Prisma.TransactionClient,
        execute: async (sql, values) => void (await transaction.executeRaw({ sql, args: values, argTypes: values.map(() => ({ scalarType: 'string', arity: 'scalar' })) })),
        async end(commit) {
          if (ended) return;
          ended = true;
          try {
            await endTransaction(transaction, commit);
          } finally {
            give(slot);
          }
        },
      };
    },
    async close() {
      await Promise.all(slots.map((slot) => slot.client.$disconnect()));
    },
  };
}
