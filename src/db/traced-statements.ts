// A span per SQL statement when traces are on (telemetry/): the driver adapter's statements, Prisma's
// and request-db's raw ones, in transactions or not, the same on PGlite and PostgreSQL. Wrapped under
// the commit guard and the join (database.ts), so a span is a statement the driver really runs. The
// statement's text is parameterised ($1 …): no value reaches a span.
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, SqlQueryable, Transaction } from '@prisma/driver-adapter-utils';
import type { Tracing } from '../telemetry/tracing.js';
import { overriding } from './commit-guard.js';

/** `factory`'s adapter, each of whose statements (its transactions' too) runs in a span. */
export function tracingStatements<F extends SqlDriverAdapterFactory>(factory: F, tracing: Tracing): F {
  const statements = (queryable: SqlQueryable): Partial<SqlQueryable> => ({
    queryRaw: (query: SqlQuery) => tracing.statement(query.sql, () => queryable.queryRaw(query)),
    executeRaw: (query: SqlQuery) => tracing.statement(query.sql, () => queryable.executeRaw(query)),
  });
  const connect = async (): Promise<SqlDriverAdapter> => {
    const adapter = await factory.connect();
    return overriding(adapter, {
      ...statements(adapter),
      startTransaction: async (isolationLevel) => {
        const tx = await adapter.startTransaction(isolationLevel);
        return overriding<Transaction>(tx, statements(tx));
      },
    });
  };
  return overriding(factory, { connect } as Partial<F>);
}
