// Cron without CRON_SECRET (issue 14): the route answers 401, the contract's answer to a call without
// the right secret, with a message saying cron is disabled, and the server says so once, at start.
import { describe, expect, it } from 'vitest';
import { collectLogs } from '../../testkit/logs.js';
import { cronSecret } from '../../testkit/scheduled-actions.js';
import { createTestApp } from '../../testkit/test-app.js';

interface Booted {
  origin: string;
  lines: Record<string, unknown>[];
  close(): Promise<void>;
}

/** The real app on a real port with `env`, its log lines kept. */
async function boot(env: Record<string, string>): Promise<Booted> {
  const collected = collectLogs();
  const t = await createTestApp({ LOG_LEVEL: 'info', ...env }, undefined, { logDestination: collected.destination });
  return { origin: t.origin, lines: collected.lines, close: () => t.close() };
}

const disabledLines = (b: Booted) => b.lines.filter((l) => /cron is disabled/.test(String(l.msg)));

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
