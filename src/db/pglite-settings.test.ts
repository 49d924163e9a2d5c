// The embedded database's memory setting: PGLITE_SHARED_BUFFERS_MB reaches PGlite as a start
// parameter (default 32 MiB, not PGlite's own 128), for that start only, and leaves the data
// directory's own settings (time zone, text search configuration) as initdb wrote them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defaultPgliteSharedBuffersMb, loadConfig } from '../config/env.js';
import { seedDataDir } from '../testkit/database.js';
import { openDatabase } from './database.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'pglite-settings-'));
  await seedDataDir(dataDir); // a copy of the run's template (initdb's settings as written), not an initdb of its own
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function settings(pgliteSharedBuffersMb?: number): Promise<Record<string, string>> {
  const database = await openDatabase({ dataDir, poolSize: 1, holder: 'cli', ...(pgliteSharedBuffersMb ? { pgliteSharedBuffersMb } : {}) });
  try {
    const rows = await database.hotQuery<{ name: string; value: string }>('settings', "SELECT name, current_setting(name) AS value FROM unnest(ARRAY['shared_buffers', 'TimeZone', 'default_text_search_config']) AS name", []);
    return Object.fromEntries(rows.map((r) => [r.name, r.value]));
  } finally {
    await database.close();
  }
}

it('opens with the configured shared buffers, 32 MiB by default, and keeps the data directory’s own settings', async () => {
  expect(defaultPgliteSharedBuffersMb).toBe(32);
  expect(loadConfig({}).pgliteSharedBuffersMb).toBe(32);
  expect(loadConfig({ PGLITE_SHARED_BUFFERS_MB: '64' }).pgliteSharedBuffersMb).toBe(64);
  expect(() => loadConfig({ PGLITE_SHARED_BUFFERS_MB: '0' })).toThrow(/PGLITE_SHARED_BUFFERS_MB/);

  const first = await settings();
  expect(first).toMatchObject({ shared_buffers: '32MB', default_text_search_config: 'pg_catalog.english' });
  expect(await settings(16)).toEqual({ ...first, shared_buffers: '16MB' });
  expect(await settings()).toEqual(first);
}, 120_000);
