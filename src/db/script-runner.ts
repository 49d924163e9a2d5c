// Migration scripts must run whole. @prisma/adapter-pg splits a script on every ';' (breaking
// dollar-quoted function bodies and DO blocks), and pglite-prisma-adapter does not await it (so a
// failing migration would pass unnoticed). This wraps an adapter factory so that executeScript sends
// the whole script at once and awaits it: on PostgreSQL one simple-protocol query, which runs the
// script in one implicit transaction, as Prisma's native engine does.
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

export type RunScript = (script: string) => Promise<unknown>;

function withWholeScripts(adapter: SqlDriverAdapter, run: RunScript): SqlDriverAdapter {
  const wrapped = Object.create(adapter) as SqlDriverAdapter;
  wrapped.executeScript = async (script: string) => {
    await run(script);
  };
  return wrapped;
}

/** The factory with executeScript replaced by `run` on its main connection (the shadow database is left as is). */
export function wholeScriptFactory(factory: SqlMigrationAwareDriverAdapterFactory, run: RunScript): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => withWholeScripts(await factory.connect(), run),
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
}
