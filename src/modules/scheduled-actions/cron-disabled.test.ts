// Cron without CRON_SECRET (issue 14): the route answers 401, the contract's answer to a call without
// the right secret, with a message saying cron is disabled, and the server says so once, at start.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../app.js';
import { loadConfig } from '../../config/env.js';
import { createTestDatabase, type TestDatabase } from '../../testkit/database.js';
import { cronSecret } from '../../testkit/scheduled-actions.js';

interface Booted {
  origin: string;
  lines: { msg: string; level: number }[];
  close(): Promise<void>;
}

let db: TestDatabase;
let uploadDir: string;

/** The real app on a real port with `env`, its log lines kept. */
async function boot(env: Record<string, string>): Promise<Booted> {
  const lines: { msg: string; level: number }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const config = loadConfig({ NODE_ENV: 'test', UPLOAD_DIR: uploadDir, ...env });
  const app: App = createApp({ config, database: db.database, logger });
  app.markReady();
  const server: Server = createServer(app.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lines,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await app.close();
    },
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  uploadDir = await mkdtemp(path.join(tmpdir(), 'platform-cron-'));
}, 120_000);
afterAll(async () => {
  await db.drop();
  await rm(uploadDir, { recursive: true, force: true });
});

const disabledLines = (b: Booted) => b.lines.filter((l) => /cron is disabled/.test(l.msg));

describe('cron disabled', () => {
  it.each([
    ['unset', {} as Record<string, string>, /^Cron processing is disabled: CRON_SECRET is not set/],
    ['shorter than 32 characters', { CRON_SECRET: 'x'.repeat(31) }, /^Cron processing is disabled: CRON_SECRET is shorter than 32 characters/],
  ])('CRON_SECRET %s: every call is 401 saying cron is disabled, logged once at start', async (_what, env, message) => {
    const b = await boot(env);
    try {
      expect(disabledLines(b)).toEqual([expect.objectContaining({ level: 40 })]);
      for (const headers of [{}, { 'x-cron-secret': env.CRON_SECRET ?? 'anything' }, { 'x-cron-secret': cronSecret }] as Record<string, string>[]) {
        const res = await fetch(`${b.origin}/api/v1/cron/process`, { headers });
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ error: 'Unauthorized', message: expect.stringMatching(message) });
      }
      expect(disabledLines(b)).toHaveLength(1);
    } finally {
      await b.close();
    }
  });

  it('with a secret of 32 characters or more, nothing is logged about it and the route runs', async () => {
    const b = await boot({ CRON_SECRET: cronSecret });
    try {
      const res = await fetch(`${b.origin}/api/v1/cron/process`, { headers: { 'x-cron-secret': cronSecret } });
      expect(res.status).toBe(200);
      expect(disabledLines(b)).toHaveLength(0);
    } finally {
      await b.close();
    }
  });
});
