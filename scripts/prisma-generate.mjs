// Runs `prisma generate` without a native schema engine: the CLI only needs the variable to point at
// an existing file (the client itself is engine-free with driver adapters), so we point it at node.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let cli;
try {
  cli = require.resolve('prisma/build/index.js');
} catch {
  // A production install (npm ci --omit=dev) has no Prisma CLI, a dev dependency, and needs none: the
  // generated client is committed under src/generated/prisma.
  console.error('prisma generate skipped: the Prisma CLI is not installed (production install); using the committed client in src/generated/prisma');
  process.exit(0);
}
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
const result = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
