// Hosted-blob storage is chosen by BLOB_READ_WRITE_TOKEN alone, as the contract says (issue 14):
// BLOB_API_URL has a documented default instead of stopping the server, and an upload the service
// cannot take falls back to local storage.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { defaultBlobApiUrl } from '../../config/media.js';
import { loadConfig } from '../../config/env.js';
import { signUp } from '../../testkit/accounts.js';
import { pngFile, upload } from '../../testkit/media.js';
import { createTestApp } from '../../testkit/test-app.js';

const token = 'hosted_blob_rw_default_url_test_xyzzy';

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('hosted-blob by the token alone', () => {
  it('a hosted_blob_ token without BLOB_API_URL chooses hosted-blob at the default service URL', () => {
    // On this machine: the token never leaves it unless BLOB_API_URL says where.
    expect(new URL(defaultBlobApiUrl).hostname).toBe('127.0.0.1');
    expect(loadConfig({ BLOB_READ_WRITE_TOKEN: token }).media.storage).toEqual({
      driver: 'hosted-blob', apiUrl: defaultBlobApiUrl, token, timeoutMs: 30_000, retryAfterMs: 30_000,
    });
    // BLOB_API_URL still overrides it, and a token of another kind still means local storage.
    expect(loadConfig({ BLOB_READ_WRITE_TOKEN: token, BLOB_API_URL: 'http://blob.internal:8080/' }).media.storage).toMatchObject({ apiUrl: 'http://blob.internal:8080' });
    expect(loadConfig({ BLOB_READ_WRITE_TOKEN: 'vendor_token' }).media.storage).toEqual({ driver: 'local' });
  });

  it('the server starts with the token alone, and an upload the service cannot take is stored locally and served', async () => {
    const started = await createTestApp({ BLOB_READ_WRITE_TOKEN: token });
    expect(started.config.media.storage).toMatchObject({ driver: 'hosted-blob', apiUrl: defaultBlobApiUrl });
    await started.close();

    const t = await createTestApp({ BLOB_READ_WRITE_TOKEN: token, BLOB_API_URL: `http://127.0.0.1:${await closedPort()}`, RATE_LIMIT_ENABLED: 'false' });
    try {
      const user = await signUp(t);
      const res = await upload(t, [{ name: 'fallback.png', content: await pngFile(4, 4), type: 'image/png' }], { cookie: user.cookie });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ count: 1, storage: 'local', urls: [expect.stringMatching(/^\/uploads\/temp\//)] });
      expect((await t.fetch(res.body.data.urls[0])).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
