// An upload holds no database connection while its files travel to storage: its request transaction
// opens at its first statement, after every file is stored (a network upload to a blob service may take
// seconds, and PGlite has one connection). Here the blob service holds the upload's PUT until another
// request has been answered, and meanwhile no connection is checked out of the pool (PostgreSQL).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { pngFile, upload } from '../../testkit/media.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

const token = 'hosted_blob_rw_0123456789abcdef_holding';

/** A blob service that answers each PUT only when told to (`release`), telling when one arrives (`arrived`). */
interface HoldingBlob {
  origin: string;
  arrived: Promise<void>;
  release: () => void;
  close: () => Promise<void>;
}

async function startHoldingBlob(): Promise<HoldingBlob> {
  let arrive!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const server: Server = createServer(async (req, res) => {
    for await (const _ of req); // the whole body first, as a real service reads it
    arrive();
    await released;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: `${blob.origin}${req.url}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const blob: HoldingBlob = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    release,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
  return blob;
}

let blob: HoldingBlob;
let t: TestApp;
let alice: SignedUpUser;
beforeAll(async () => {
  blob = await startHoldingBlob();
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false', BLOB_READ_WRITE_TOKEN: token, BLOB_API_URL: blob.origin, BLOB_TIMEOUT_MS: '30000' });
  alice = await signUp(t);
});
afterAll(async () => {
  blob.release();
  await t.close();
  await blob.close();
});

describe('an upload in flight to storage', () => {
  it('holds no connection: other requests are served meanwhile, then the upload is recorded', async () => {
    const uploading = upload(t, [{ name: 'held.png', content: await pngFile(20, 10), type: 'image/png' }], { cookie: alice.cookie });
    await blob.arrived;
    const stats = t.database.poolStats();
    expect(stats.total - stats.idle).toBe(0);
    const list = await t.json('GET', '/api/v1/media', undefined, { cookie: alice.cookie });
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ data: [], total: 0 });
    blob.release();
    const res = await uploading;
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ count: 1, storage: 'hosted-blob' });
    expect(await t.database.prisma.media.count()).toBe(1);
  });
});
