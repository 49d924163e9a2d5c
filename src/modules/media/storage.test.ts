// The storage drivers through the front door with real files: hosted-blob against a fake blob service
// started here (node:http, bearer token checked, bodies kept in memory) and its fallback to local
// storage (500, closed port, timeout, a bad answer, a wrong token, a failure partway through a batch);
// s3 against s3rver (a local S3-compatible server) through the AWS SDK; and the configuration rules.
import { randomUUID } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import pino from 'pino';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/env.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { mp4File, pngFile, upload } from '../../testkit/media.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { hostedBlobStorage } from './storage-hosted-blob.js';
import { createStorage, localStorage } from './storage.js';

/** `xyzzy` marks secrets: it must never appear in a log line or an error message. */
const token = 'hosted_blob_rw_0123456789abcdef_xyzzy';
const keyUrl = /^\/uploads\/temp\/([0-9a-f-]{36}\.[a-z0-9]+)$/;

type Answer = 'ok' | 'fail' | 'hang' | 'bad-answer';
interface FakeBlob {
  origin: string;
  objects: Map<string, { body: Buffer; type: string | undefined; length: string | undefined }>;
  requests: { method: string; path: string; authorization: string | undefined }[];
  /** How the next PUTs are answered, one entry each; then `answer`. */
  plan: Answer[];
  answer: Answer;
  close(): Promise<void>;
}

const bodyOf = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** A blob service speaking storage-hosted-blob.ts's protocol, on 127.0.0.1, refusing any other token. */
async function startFakeBlob(port = 0): Promise<FakeBlob> {
  const fake: FakeBlob = { origin: '', objects: new Map(), requests: [], plan: [], answer: 'ok', close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    fake.requests.push({ method: req.method!, path: req.url!, authorization: req.headers.authorization });
    const key = keyUrl.exec(req.url!)?.[1];
    if (req.headers.authorization !== `Bearer ${token}`) {
      req.resume();
      return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad token"}');
    }
    if (!key) return void res.writeHead(404).end();
    if (req.method === 'PUT') {
      const answer = fake.plan.shift() ?? fake.answer;
      if (answer === 'hang') return; // never answers
      const body = await bodyOf(req);
      // A failing service that echoes the request's token: it must still not reach our logs.
      if (answer === 'fail') return void res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'boom', auth: req.headers.authorization }));
      fake.objects.set(key, { body, type: req.headers['content-type'], length: req.headers['content-length'] });
      const url = answer === 'bad-answer' ? `/uploads/temp/${key}` : `${fake.origin}/uploads/temp/${key}`;
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url }));
    }
    const object = fake.objects.get(key);
    if (req.method === 'GET') return void (object ? res.writeHead(200, { 'content-type': object.type, 'content-length': object.body.length }).end(object.body) : res.writeHead(404).end());
    if (req.method === 'DELETE') return void res.writeHead(fake.objects.delete(key) ? 204 : 404).end();
    res.writeHead(405).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections()));
  return fake;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const as = (user: SignedUpUser) => ({ cookie: user.cookie });
/** Files in UPLOAD_DIR (stored) and in its spool directory. */
async function onDisk(t: TestApp): Promise<{ stored: string[]; spooled: string[] }> {
  const dir = t.config.media.uploadDir;
  const stored = (await readdir(dir).catch(() => [])).filter((name) => name !== '.incoming');
  return { stored, spooled: await readdir(path.join(dir, '.incoming')).catch(() => []) };
}
/** Every record of the app agrees with storage: local records have their file, blob records their object, nothing else is stored. */
async function expectRecordsMatchStorage(t: TestApp, fake?: FakeBlob) {
  const rows = await t.database.prisma.media.findMany({ select: { storageDriver: true, storageKey: true, url: true, fileSize: true } });
  const local = rows.filter((r) => r.storageDriver === 'local');
  const blob = rows.filter((r) => r.storageDriver === 'hosted-blob');
  expect(local.length + blob.length).toBe(rows.length);
  const disk = await onDisk(t);
  expect(disk.stored.sort()).toEqual(local.map((r) => r.storageKey!).sort());
  expect(disk.spooled).toEqual([]);
  for (const r of local) expect(r.url).toBe(`/uploads/temp/${r.storageKey}`);
  for (const r of blob) {
    expect(r.url).toBe(`${fake!.origin}/uploads/temp/${r.storageKey}`);
    expect(fake!.objects.get(r.storageKey!)?.body.length).toBe(r.fileSize);
  }
  if (fake) expect([...fake.objects.keys()].sort()).toEqual(blob.map((r) => r.storageKey!).sort());
}

let png: Buffer;
let png2: Buffer;
beforeAll(async () => {
  [png, png2] = await Promise.all([pngFile(40, 30), pngFile(20, 10, '#208040')]);
});

describe('hosted-blob storage', () => {
  let fake: FakeBlob;
  let t: TestApp;
  let alice: SignedUpUser;
  beforeAll(async () => {
    fake = await startFakeBlob();
    // No pause after a failure here, so each test chooses how the service answers.
    t = await createTestApp({ RATE_LIMIT_ENABLED: 'false', BLOB_READ_WRITE_TOKEN: token, BLOB_API_URL: fake.origin, BLOB_TIMEOUT_MS: '300', BLOB_RETRY_AFTER_MS: '0' });
    alice = await signUp(t);
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('uploads to the blob service with the token: storage "hosted-blob", absolute URLs, exactly the bytes', async () => {
    expect(t.config.media.storage.driver).toBe('hosted-blob');
    const mp4 = mp4File();
    const res = await upload(t, [{ name: 'red.png', content: png }, { name: 'clip.mp4', content: mp4 }], as(alice));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ count: 2, storage: 'hosted-blob' });
    const [first, second] = res.body.data.media;
    for (const [m, bytes, type] of [[first, png, 'image/png'], [second, mp4, 'video/mp4']] as const) {
      const key = new URL(m.url).pathname.split('/').pop()!;
      expect(m.url).toBe(`${fake.origin}/uploads/temp/${key}`);
      expect(fake.objects.get(key)).toEqual({ body: Buffer.from(bytes), type, length: String(bytes.length) });
      // This server serves local files only: the blob service serves these.
      expect((await t.fetch(`/uploads/temp/${key}`)).status).toBe(404);
    }
    expect(fake.requests.every((r) => r.authorization === `Bearer ${token}`)).toBe(true);
    await expectRecordsMatchStorage(t, fake);
  });

  it.each<[string, Answer]>([
    ['answers 500', 'fail'],
    ['does not answer within BLOB_TIMEOUT_MS', 'hang'],
    ['answers without an absolute URL', 'bad-answer'],
  ])('falls back to local storage when the service %s: storage "local", served by /uploads/temp', async (_what, answer) => {
    fake.answer = answer;
    const res = await upload(t, [{ name: 'fallback.png', content: png }], as(alice));
    fake.answer = 'ok';
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ count: 1, storage: 'local' });
    const url: string = res.body.data.urls[0];
    expect(url).toMatch(keyUrl);
    const served = await t.fetch(url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(png);
    // A file the service kept while answering badly is deleted there (in the background).
    await expect.poll(() => fake.objects.has(url.split('/').pop()!)).toBe(false);
    await expectRecordsMatchStorage(t, fake);
  });

  it('reports "mixed" when the service fails partway through a batch; each URL says where its file is', async () => {
    fake.plan = ['ok', 'fail'];
    const res = await upload(t, [{ name: 'one.png', content: png }, { name: 'two.png', content: png2 }], as(alice));
    expect(res.status).toBe(200);
    expect(res.body.data.storage).toBe('mixed');
    const [one, two] = res.body.data.urls as [string, string];
    expect(one).toMatch(new RegExp(`^${fake.origin}/uploads/temp/`));
    expect(two).toMatch(keyUrl);
    expect(Buffer.from(await (await t.fetch(two)).arrayBuffer())).toEqual(png2);
    await expectRecordsMatchStorage(t, fake);
  });

  it('write puts a derived file on the blob service; open and remove find a file wherever it is', async () => {
    const storage = createStorage(t.config.media, pino({ level: 'silent' }));
    const derivedKey = '00000000-0000-4000-8000-00000000000b.webp';
    await storage.write(derivedKey, png2, 'image/webp');
    expect(fake.objects.get(derivedKey)).toEqual({ body: png2, type: 'image/webp', length: String(png2.length) });
    fake.plan = ['ok', 'fail'];
    const res = await upload(t, [{ name: 'remote.png', content: png }, { name: 'here.png', content: png2 }], as(alice));
    const [blobKey, localKey] = (res.body.data.urls as string[]).map((url) => url.split('/').pop()!) as [string, string];
    expect(fake.objects.has(blobKey)).toBe(true);
    expect((await onDisk(t)).stored).toContain(localKey);
    for (const key of [derivedKey, blobKey, localKey]) {
      const file = await storage.open(key);
      const chunks: Buffer[] = [];
      for await (const chunk of file!.stream) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).length).toBe(file!.size);
      await storage.remove(key);
      expect(await storage.open(key)).toBeNull();
    }
    expect(fake.objects.has(blobKey)).toBe(false);
    expect((await onDisk(t)).stored).not.toContain(localKey);
    await storage.close?.();
  });
});

describe('hosted-blob fallback', () => {
  it('falls back when nothing listens at BLOB_API_URL; then leaves the service alone for BLOB_RETRY_AFTER_MS', async () => {
    const port = await closedPort();
    const t = await createTestApp({ BLOB_READ_WRITE_TOKEN: token, BLOB_API_URL: `http://127.0.0.1:${port}` });
    let fake: FakeBlob | undefined;
    try {
      const user = await signUp(t);
      const res = await upload(t, [{ name: 'a.png', content: png }, { name: 'b.png', content: png2 }], as(user));
      expect(res.body.data).toMatchObject({ count: 2, storage: 'local' });
      await expectRecordsMatchStorage(t);
      // The service is back, but within BLOB_RETRY_AFTER_MS (30 s by default) uploads do not wait on it.
      fake = await startFakeBlob(port);
      expect((await upload(t, [{ name: 'c.png', content: png }], as(user))).body.data.storage).toBe('local');
      expect(fake.requests.filter((r) => r.method === 'PUT')).toEqual([]);
      await expectRecordsMatchStorage(t, fake);
    } finally {
      await t.close();
      await fake?.close();
    }
  });

  it('a token the service refuses: local storage, and the warning never shows the token', async () => {
    const fake = await startFakeBlob();
    const dir = await mkdtemp(path.join(tmpdir(), 'blob-fallback-'));
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const wrong = `${token}-revoked`;
    const storage = hostedBlobStorage({ apiUrl: fake.origin, token: wrong, timeoutMs: 1000, retryAfterMs: 0, local: localStorage(dir), logger });
    const echoing = hostedBlobStorage({ apiUrl: fake.origin, token, timeoutMs: 1000, retryAfterMs: 0, local: localStorage(dir), logger });
    try {
      fake.answer = 'fail'; // answers 500 with the token in its body
      for (const [driver, key] of [[storage, '00000000-0000-4000-8000-000000000001.png'], [echoing, '00000000-0000-4000-8000-000000000002.png']] as const) {
        const spool = path.join(await driver.spoolDir(), 'upload');
        await writeFile(spool, png);
        expect(await driver.put(spool, key, 'image/png')).toEqual({ driver: 'local', key, url: `/uploads/temp/${key}` });
        expect(await readFile(path.join(dir, key))).toEqual(png);
      }
      expect(fake.requests.find((r) => r.method === 'PUT')).toMatchObject({ authorization: `Bearer ${wrong}` });
      expect(lines.filter((l) => l.includes('hosted blob upload failed'))).toHaveLength(2);
      expect(lines.join('\n')).toMatch(/status 401[\s\S]*status 500/);
      expect(lines.join('\n')).not.toContain('xyzzy');
    } finally {
      await storage.close?.();
      await echoing.close?.();
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('s3 storage', () => {
  let s3: S3rver;
  let s3Dir: string;
  let endpoint: string;
  let client: S3Client;
  let t: TestApp;
  let alice: SignedUpUser;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  beforeAll(async () => {
    s3Dir = await mkdtemp(path.join(tmpdir(), 's3rver-'));
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: 'media' }] });
    endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
    client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
    t = await createTestApp({ RATE_LIMIT_ENABLED: 'false', S3_BUCKET: 'media', S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' });
    alice = await signUp(t);
  });
  afterAll(async () => {
    await t?.close();
    client?.destroy();
    await s3?.close();
    await rm(s3Dir, { recursive: true, force: true });
  });
  const object = async (key: string) => {
    const got = await client.send(new GetObjectCommand({ Bucket: 'media', Key: key }));
    return { body: Buffer.from(await got.Body!.transformToByteArray()), type: got.ContentType, cacheControl: got.CacheControl };
  };

  it('uploads into the bucket: storage "s3", absolute URLs, the bytes and content type', async () => {
    expect(t.config.media.storage).toMatchObject({ driver: 's3', forcePathStyle: true, publicUrl: `${endpoint}/media` });
    const mp4 = mp4File();
    const res = await upload(t, [{ name: 'red.png', content: png }, { name: 'clip.mp4', content: mp4 }], as(alice));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ count: 2, storage: 's3' });
    const rows = await t.database.prisma.media.findMany({ orderBy: { filename: 'desc' }, select: { storageDriver: true, storageKey: true, url: true } });
    for (const [row, bytes, type] of [[rows[0]!, png, 'image/png'], [rows[1]!, mp4, 'video/mp4']] as const) {
      expect(row).toEqual({ storageDriver: 's3', storageKey: expect.stringMatching(/^[0-9a-f-]{36}\.(png|mp4)$/), url: `${endpoint}/media/${row.storageKey}` });
      expect(await object(row.storageKey!)).toEqual({ body: Buffer.from(bytes), type, cacheControl: 'public, max-age=31536000, immutable' });
      // The URL is the store's; this server does not serve or proxy it.
      expect((await t.fetch(`/uploads/temp/${row.storageKey}`)).status).toBe(404);
    }
    expect(res.body.data.urls.sort()).toEqual(rows.map((r) => r.url).sort());
    expect(await onDisk(t)).toEqual({ stored: [], spooled: [] });
  });

  it('write, open and remove go to the bucket', async () => {
    const storage = createStorage(t.config.media, pino({ level: 'silent' }));
    const key = '00000000-0000-4000-8000-00000000000a.webp';
    await storage.write(key, png2, 'image/webp');
    expect(await object(key)).toMatchObject({ body: png2, type: 'image/webp' });
    const file = await storage.open(key);
    const chunks: Buffer[] = [];
    for await (const chunk of file!.stream) chunks.push(chunk as Buffer);
    expect({ size: file!.size, body: Buffer.concat(chunks) }).toEqual({ size: png2.length, body: png2 });
    await storage.remove(key);
    expect(await storage.open(key)).toBeNull();
    await storage.remove(key); // absent is fine
    await storage.close?.();
  });

  it('a store that refuses the upload: 500, no record, nothing left on disk', async () => {
    const broken = await createTestApp({ S3_BUCKET: 'no-such-bucket', S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' });
    try {
      const user = await signUp(broken);
      const res = await upload(broken, [{ name: 'red.png', content: png }], as(user));
      expect(res.status).toBe(500);
      expect(await broken.database.prisma.media.count()).toBe(0);
      expect(await onDisk(broken)).toEqual({ stored: [], spooled: [] });
    } finally {
      await broken.close();
    }
  });
});

describe('local storage', () => {
  it('a file opened is read whole even when removed before its first byte is read; one dropped unread ends quietly', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'platform-local-'));
    const local = localStorage(dir);
    const bytes = Buffer.alloc(256 * 1024, 7);
    const stored = async () => {
      const key = `${randomUUID()}.bin`;
      await local.write(key, bytes, 'application/octet-stream');
      return key;
    };
    try {
      // Removed at once after open answers (as a DELETE running beside a GET does): still served whole.
      const key = await stored();
      const file = await local.open(key);
      unlinkSync(path.join(dir, key));
      const chunks: Buffer[] = [];
      for await (const chunk of file!.stream) chunks.push(chunk as Buffer);
      expect(file!.size).toBe(bytes.length);
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
      expect(await local.open(key)).toBeNull();
      // Opened, dropped unread and removed (hosted-blob's remove does this): no error event, which
      // nobody would be listening to and which would end the process.
      const dropped = await stored();
      const unread = await local.open(dropped);
      unread!.stream.destroy();
      unlinkSync(path.join(dir, dropped));
      const errors: unknown[] = [];
      unread!.stream.on('error', (error) => errors.push(error));
      await new Promise((resolve) => unread!.stream.once('close', resolve));
      expect(errors).toEqual([]);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('storage configuration', () => {
  const storageOf = (env: Record<string, string>) => loadConfig(env).media.storage;

  it('chooses local by default, hosted-blob for a hosted_blob_ token, s3 for S3_BUCKET, MEDIA_STORAGE above all', () => {
    expect(storageOf({})).toEqual({ driver: 'local' });
    expect(storageOf({ BLOB_READ_WRITE_TOKEN: 'other_vendor_token' })).toEqual({ driver: 'local' });
    expect(storageOf({ BLOB_READ_WRITE_TOKEN: token, BLOB_API_URL: 'https://blob.example.com/' })).toEqual({
      driver: 'hosted-blob', apiUrl: 'https://blob.example.com', token, timeoutMs: 30_000, retryAfterMs: 30_000,
    });
    // The contract's rule first: a hosted-blob token wins over S3_BUCKET unless MEDIA_STORAGE says otherwise.
    expect(storageOf({ BLOB_READ_WRITE_TOKEN: token, BLOB_API_URL: 'https://blob.example.com', S3_BUCKET: 'media' }).driver).toBe('hosted-blob');
    expect(storageOf({ MEDIA_STORAGE: 's3', BLOB_READ_WRITE_TOKEN: token, S3_BUCKET: 'media' }).driver).toBe('s3');
    expect(storageOf({ MEDIA_STORAGE: 'local', BLOB_READ_WRITE_TOKEN: token, S3_ENDPOINT: 'http://minio:9000' })).toEqual({ driver: 'local' });
  });

  it('fills s3 defaults: AWS URLs, path style with an endpoint, S3_PUBLIC_URL over both', () => {
    expect(storageOf({ S3_BUCKET: 'media' })).toEqual({
      driver: 's3', bucket: 'media', region: 'us-east-1', endpoint: undefined, credentials: undefined, forcePathStyle: false, publicUrl: 'https://media.s3.us-east-1.amazonaws.com',
    });
    expect(storageOf({ S3_BUCKET: 'media', S3_ENDPOINT: 'http://minio:9000', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' })).toMatchObject({
      endpoint: 'http://minio:9000', forcePathStyle: true, credentials: { accessKeyId: 'id', secretAccessKey: 'secret' }, publicUrl: 'http://minio:9000/media',
    });
    expect(storageOf({ S3_BUCKET: 'media', S3_ENDPOINT: 'https://r2.example.com', S3_FORCE_PATH_STYLE: 'false', S3_REGION: 'auto' })).toMatchObject({ publicUrl: 'https://media.r2.example.com' });
    expect(storageOf({ S3_BUCKET: 'media', S3_PUBLIC_URL: 'https://cdn.example.com/files/' })).toMatchObject({ publicUrl: 'https://cdn.example.com/files' });
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ['hosted-blob with a token of another kind', { MEDIA_STORAGE: 'hosted-blob', BLOB_READ_WRITE_TOKEN: 'vendor_xyzzy', BLOB_API_URL: 'https://b.example' }, /BLOB_READ_WRITE_TOKEN: .*hosted_blob_/],
    ['hosted-blob without a token', { MEDIA_STORAGE: 'hosted-blob', BLOB_API_URL: 'https://b.example' }, /BLOB_READ_WRITE_TOKEN/],
    ['s3 without a bucket', { MEDIA_STORAGE: 's3' }, /S3_BUCKET: s3 storage needs a bucket/],
    ['S3_* settings without a bucket', { S3_ENDPOINT: 'http://minio:9000' }, /S3_BUCKET: S3_\* settings are given without S3_BUCKET/],
    ['an access key without its secret', { S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'id' }, /set both, or neither/],
    ['a secret without its access key', { S3_BUCKET: 'media', S3_SECRET_ACCESS_KEY: 'xyzzy' }, /set both, or neither/],
    ['a bad bucket name', { S3_BUCKET: 'Media_Bucket' }, /S3_BUCKET: must be a bucket name/],
    ['a URL that is not http(s)', { S3_BUCKET: 'media', S3_ENDPOINT: 'ftp://minio' }, /S3_ENDPOINT: must be an http\(s\) URL/],
    ['an unknown driver', { MEDIA_STORAGE: 'ftp' }, /MEDIA_STORAGE/],
    ['a timeout that is not a number', { BLOB_TIMEOUT_MS: 'soon' }, /BLOB_TIMEOUT_MS/],
  ])('stops on %s, listed with the other problems and without secrets', (_what, env, message) => {
    let error: Error | undefined;
    try {
      loadConfig({ ...env, PORT: 'eighty' });
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error?.message).toMatch(/PORT/);
    expect(error?.message).not.toContain('xyzzy');
  });
});
