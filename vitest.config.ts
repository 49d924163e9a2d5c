import { defineConfig } from 'vitest/config';

// Each test file boots the app on its own fresh database (PGlite in memory, or a new PostgreSQL
// database when TEST_DATABASE_URL is set), so files run in parallel safely; each is a copy of one
// template the run migrates first (src/testkit/global-setup.ts).
export default defineConfig({
  // graphql 16 ships CJS (index.js) and ESM (index.mjs); Node loads index.js for every package, so the
  // tests must too, or the schema built by one copy fails instanceof checks in the other.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['src/**/*.test.ts', 'client/**/*.test.ts'],
    globalSetup: ['src/testkit/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
