// Prisma 7 configuration: where the schema and the migrations live. The database connection is not
// configured here: the app drives Prisma through driver adapters (src/db/), and migrations run
// through @prisma/schema-engine-wasm with the same adapters (src/db/migrations.ts).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  // The folder: schema.prisma (hand-written) and entities.prisma (generated from definitions).
  schema: 'prisma',
  migrations: { path: 'prisma/migrations' },
});
