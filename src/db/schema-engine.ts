// Loads Prisma's schema engine compiled to WebAssembly and binds it to one of our driver adapters,
// so migrations need no native binary (air-gapped installs work the same as this machine).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import * as engineGlue from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';

// @types/node 20 does not declare the WebAssembly global; this is the part we use.
declare const WebAssembly: {
  instantiate(bytes: Uint8Array, imports: Record<string, unknown>): Promise<{ instance: { exports: Record<string, unknown> } }>;
};

const require = createRequire(import.meta.url);
let wasmReady: Promise<void> | undefined;

/** Instantiates the engine's wasm module once per process (the package's ESM entry imports .wasm, which Node cannot). */
function initWasm(): Promise<void> {
  wasmReady ??= (async () => {
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bytes = await readFile(gluePath.replace(/\.js$/, '.wasm'));
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': withUnrefTimers(engineGlue) });
    engineGlue.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
  })();
  return wasmReady;
}

/**
 * The glue with the engine's timers unref'd: it arms a 10 s timer with each run and never clears it,
 * which held a process that had migrated open for up to 10 s after its work (`npm run generate`'s
 * scripts each exited 8–9 s late). Unref'd, a timer still fires while the process lives.
 */
function withUnrefTimers(glue: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(glue).map(([name, value]) => {
      if (!name.startsWith('__wbg_setTimeout_') || typeof value !== 'function') return [name, value];
      return [name, (...args: unknown[]) => {
        const timer = (value as (...a: unknown[]) => unknown)(...args);
        (timer as { unref?: () => void } | undefined)?.unref?.();
        return timer;
      }];
    }),
  );
}

/** A schema engine that talks to the database behind `factory`. Free it with `engine.free()`. */
export async function openSchemaEngine(factory: SqlMigrationAwareDriverAdapterFactory): Promise<SchemaEngine> {
  await initWasm();
  const { SchemaEngine: Engine } = engineGlue as unknown as { SchemaEngine: typeof SchemaEngine };
  return Engine.new({ datamodels: undefined }, () => {}, bindMigrationAwareSqlAdapterFactory(factory));
}
