import { describe, expect, it } from 'vitest';
import { loadConfig } from './env.js';

describe('loadConfig', () => {
  it('fills documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, host: '0.0.0.0', databaseUrl: undefined, bodyLimitBytes: 1_048_576, cookieSecure: 'auto', trustProxy: false });
    expect(config.dataDir).toMatch(/\.data$/);
  });

  it('stops with every problem listed', () => {
    expect(() => loadConfig({ PORT: 'eighty', DATABASE_URL: 'not a url' })).toThrow(/PORT.*DATABASE_URL|DATABASE_URL.*PORT/);
  });
});
