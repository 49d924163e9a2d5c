// The scheduled actions' settings: parsed once with the rest of the environment, fail-closed.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/env.js';

describe('scheduled actions settings', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({}).scheduledActions).toEqual({
      cronSecret: undefined,
      intervalMs: undefined,
      batchSize: 10,
      retryBaseMs: 300_000,
      timeoutMs: 30_000,
      timeouts: {},
      reclaimGraceMs: 60_000,
      retentionMs: 7 * 86_400_000,
      dedupWindowMs: 5_000,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      CRON_SECRET: 's'.repeat(32),
      CRON_INTERVAL_SECONDS: '60',
      SCHEDULED_ACTIONS_BATCH_SIZE: '100',
      SCHEDULED_ACTIONS_RETRY_BASE_SECONDS: '30',
      SCHEDULED_ACTIONS_TIMEOUT_MS: '5000',
      SCHEDULED_ACTIONS_TIMEOUTS: 'webhook:send=10000, content:publish=2000',
      SCHEDULED_ACTIONS_RECLAIM_GRACE_SECONDS: '10',
      SCHEDULED_ACTIONS_RETENTION_DAYS: '30',
      SCHEDULED_ACTIONS_DEDUP_WINDOW_MS: '0',
    });
    expect(config.scheduledActions).toEqual({
      cronSecret: 's'.repeat(32),
      intervalMs: 60_000,
      batchSize: 100,
      retryBaseMs: 30_000,
      timeoutMs: 5000,
      timeouts: { 'webhook:send': 10_000, 'content:publish': 2000 },
      reclaimGraceMs: 10_000,
      retentionMs: 30 * 86_400_000,
      dedupWindowMs: 0,
    });
  });

  it.each([
    ['SCHEDULED_ACTIONS_BATCH_SIZE', '0'],
    ['SCHEDULED_ACTIONS_BATCH_SIZE', '1001'],
    ['CRON_INTERVAL_SECONDS', '0'],
    ['SCHEDULED_ACTIONS_TIMEOUTS', 'webhook:send'],
    ['SCHEDULED_ACTIONS_RETENTION_DAYS', '0'],
    ['SCHEDULED_ACTIONS_TIMEOUT_MS', 'soon'],
  ])('stops on %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
