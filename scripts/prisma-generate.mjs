// Runs `prisma generate` without a native schema engine: the CLI only needs the variable to point at
// an existing file (the client itself is engine-free with driver adapters), so we point it at node.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const cli = require.resolve('prisma/build/index.js');
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
  // generators such as prisma-pothos-types are found on PATH, as under `npm run`
  PATH: `${path.resolve('node_modules/.bin')}${path.delimiter}${process.env.PATH}`,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
const result = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
