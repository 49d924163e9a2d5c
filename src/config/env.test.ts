import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { configShape, loadConfig } from './env.js';

describe('loadConfig', () => {
  it('fills documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, host: '0.0.0.0', databaseUrl: undefined, bodyLimitBytes: 1_048_576, cookieSecure: 'auto', trustProxy: false });
    expect(config.dataDir).toMatch(/\.data$/);
  });

  it('stops with every problem listed', () => {
    expect(() => loadConfig({ PORT: 'eighty', DATABASE_URL: 'not a url' })).toThrow(/PORT.*DATABASE_URL|DATABASE_URL.*PORT/);
  });

  it('reads MEDIA_CONFIG over documented defaults, and UPLOAD_DIR', () => {
    const defaults = loadConfig({}).media;
    expect(defaults).toMatchObject({ maxSizeBytes: 100 * 1048576, maxImageBytes: 10 * 1048576, maxVideoBytes: 100 * 1048576, maxFiles: 20 });
    expect(defaults.allowedMimeTypes).toEqual(expect.arrayContaining(['image/jpeg', 'image/png', 'video/mp4']));
    expect(defaults.uploadDir).toMatch(/\.data\/uploads$/);
    const custom = loadConfig({ MEDIA_CONFIG: '{"allowedMimeTypes":["image/png"],"maxSizeMB":5,"maxSizeImageMB":50}', UPLOAD_DIR: '/srv/files' }).media;
    expect(custom).toMatchObject({ allowedMimeTypes: ['image/png'], maxSizeBytes: 5 * 1048576, maxImageBytes: 5 * 1048576, uploadDir: '/srv/files' });
  });

  it('reads MEDIA_RENDITIONS_PER_SOURCE (default 24, 1–1000, whole numbers)', () => {
    expect(loadConfig({}).media.renditionsPerSource).toBe(24);
    expect(loadConfig({ MEDIA_RENDITIONS_PER_SOURCE: '3' }).media.renditionsPerSource).toBe(3);
    for (const value of ['0', '-1', '1001', '2.5', 'many']) {
      expect(() => loadConfig({ MEDIA_RENDITIONS_PER_SOURCE: value }), value).toThrow(/MEDIA_RENDITIONS_PER_SOURCE/);
    }
  });

  it.each(['not json', '{"maxSizeMB":-1}', '{"allowedMimeTypes":["png"]}', '{"maxFiles":0}', '{"unknown":1}', '[]'])('stops on MEDIA_CONFIG %s', (value) => {
    expect(() => loadConfig({ MEDIA_CONFIG: value, PORT: 'x' })).toThrow(/MEDIA_CONFIG.*PORT|PORT.*MEDIA_CONFIG/);
  });
});

describe('the configuration reference (docs/configuration.md)', () => {
  it('lists every variable the configuration reads, and none it does not', () => {
    const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const listed = [...page.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((row) => row[1]!);
    const read = Object.keys(configShape);
    expect(read.filter((name) => !listed.includes(name)), 'read but not documented').toEqual([]);
    expect(listed.filter((name) => !read.includes(name)), 'documented but not read').toEqual([]);
  });
});
