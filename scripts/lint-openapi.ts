// Lints the OpenAPI document the app serves (served-openapi.ts) with `redocly lint` and the
// repository's redocly.yaml. Exit status: redocly's (errors fail, warnings do not).
// `npm run lint:openapi`; extra arguments go to redocly (`-- --format=summary`).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedOpenApi } from './served-openapi.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const dir = await mkdtemp(path.join(tmpdir(), 'openapi-lint-'));
try {
  const file = path.join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(await servedOpenApi(), null, 2));
  const cli = path.join(root, 'node_modules/@redocly/cli/bin/cli.js');
  const { status } = spawnSync(process.execPath, [cli, 'lint', file, '--config', path.join(root, 'redocly.yaml'), ...process.argv.slice(2)], {
    stdio: 'inherit',
    // No telemetry or update check from CI.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = status ?? 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
