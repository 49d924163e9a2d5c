import { defineConfig } from 'vitest/config';

// Each test file boots the app on its own fresh database (PGlite in memory, or a new PostgreSQL
// database when TEST_DATABASE_URL is set), so files run in parallel safely; each is a copy of one
// template the run migrates first (src/testkit/global-setup.ts), and servers and CLIs the tests start
// as processes run the run's one build (the same file).
//
// A worker runs its files one after another in one process, sharing the modules they import (Node's
// start, the app's imports, the WebAssembly PGlite and Prisma compile: 25–30 % of the suite's CPU
// when each file had a process of its own). Each file still builds its own app on its own database
// (on PGlite, the instance the worker's previous file dropped, emptied: src/testkit/pglite-lease.ts).
// Files that change what the app's modules are built from before importing them (the entity
// definitions: the schema and the routes are made once, when first imported) run each in a process of
// their own: they are listed in `ownProcess`.
const ownProcess = ['src/pipeline/contract-headers.test.ts', 'src/modules/entities/rest-typed.test.ts'];

// graphql 16 ships CJS (index.js) and ESM (index.mjs); Node loads index.js for every package, so the
// tests must too, or the schema built by one copy fails instanceof checks in the other.
const resolve = { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] };
// file-cpu.ts: each file's CPU, written when TEST_CPU_REPORT names a file (.ci/run lists the costliest).
const options = { pool: 'forks' as const, setupFiles: ['src/testkit/file-cpu.ts'], testTimeout: 30_000, hookTimeout: 120_000 };

export default defineConfig({
  resolve,
  test: {
    globalSetup: ['src/testkit/global-setup.ts'],
    maxWorkers: 2,
    projects: [
      { resolve, test: { name: 'shared', include: ['src/**/*.test.ts', 'client/**/*.test.ts'], exclude: ownProcess, isolate: false, ...options } },
      { resolve, test: { name: 'own-process', include: ownProcess, isolate: true, ...options } },
    ],
  },
});
