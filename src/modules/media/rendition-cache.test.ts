// The rendition cache's bounds through the front door, on the test database (PGlite, or PostgreSQL with
// TEST_DATABASE_URL) and real storage: with MEDIA_RENDITIONS_PER_SOURCE=3 a source keeps its 3 newest
// renditions, rows and files alike, whether asked for one after another or at once; an evicted one
// renders again; deleting a record (REST or GraphQL) removes its renditions and keeps its file, even
// when a file cannot be removed. Then, over a fake blob service whose answer for a source this test
// holds back: the render queue's 503 over HTTP (1 running, 0 waiting), and a render that outlives its
// record's deletion leaving nothing behind.
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { pngFile, upload } from '../../testkit/media.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { renditionKey, type RenderQuery } from './render.js';

const as = (user: SignedUpUser) => ({ cookie: user.cookie });
/** A rendition's storage key: a version-8 UUID (an upload's is version 4). */
const renditionName = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.[a-z0-9]+$/;

interface Source {
  id: string;
  storageKey: string;
}

async function render(t: TestApp, id: string, query: string, user: SignedUpUser) {
  const res = await t.fetch(`/api/v1/media/${id}/render${query}`, { headers: as(user) });
  const bytes = Buffer.from(await res.arrayBuffer());
  const isImage = res.headers.get('content-type')?.startsWith('image/');
  return { status: res.status, headers: res.headers, bytes, body: !isImage && bytes.length ? JSON.parse(bytes.toString()) : null };
}

/** Uploads a PNG as `user`; its record's id and storage key. */
async function uploadSource(t: TestApp, user: SignedUpUser, name = 'source.png'): Promise<Source> {
  const res = await upload(t, [{ name, content: await pngFile(64, 48) }], as(user));
  if (res.status !== 200) throw new Error(`upload failed: ${JSON.stringify(res.body)}`);
  return { id: res.body.data.media[0].id, storageKey: res.body.data.urls[0].split('/').pop() };
}

const webp = (w: number): RenderQuery => ({ w, fit: 'inside', format: 'webp' });

/** The recorded renditions of a record, oldest first (read as the database owner: RLS does not apply). */
async function recorded(t: TestApp, mediaId: string): Promise<string[]> {
  const rows = await t.database.prisma.mediaRendition.findMany({ where: { mediaId }, orderBy: [{ createdAt: 'asc' }, { storageKey: 'asc' }] });
  return rows.map((r) => r.storageKey);
}

/** Rendition files in local storage. */
async function renditionFiles(t: TestApp): Promise<string[]> {
  return (await readdir(t.config.media.uploadDir)).filter((name) => renditionName.test(name)).sort();
}

/** Every rendition row has its file, of its size, and every rendition file its row. */
async function expectCacheMatchesStorage(t: TestApp) {
  const rows = await t.database.prisma.mediaRendition.findMany({ orderBy: { storageKey: 'asc' } });
  expect(await renditionFiles(t)).toEqual(rows.map((r) => r.storageKey));
  for (const r of rows) expect((await stat(path.join(t.config.media.uploadDir, r.storageKey))).size).toBe(r.bytes);
}

describe('bounded per source (MEDIA_RENDITIONS_PER_SOURCE=3, local storage)', () => {
  let t: TestApp;
  let alice: SignedUpUser;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_ENABLED: 'false', MEDIA_RENDITIONS_PER_SOURCE: '3' });
    alice = await signUp(t);
  });
  afterAll(() => t.close());

  it('keeps the 3 newest of 5 renditions (rows and files); an evicted one renders again; a hit changes nothing', async () => {
    const source = await uploadSource(t, alice);
    const keys = [10, 11, 12, 13, 14].map((w) => renditionKey(source, webp(w)));
    for (const w of [10, 11, 12, 13, 14]) expect((await render(t, source.id, `?w=${w}`, alice)).status).toBe(200);
    expect(await recorded(t, source.id)).toEqual(keys.slice(2));
    expect(await renditionFiles(t)).toEqual(keys.slice(2).sort());
    await expectCacheMatchesStorage(t);

    // Served from storage: nothing recorded, nothing evicted (no SQL on a hit).
    expect((await render(t, source.id, '?w=12', alice)).status).toBe(200);
    expect(await recorded(t, source.id)).toEqual(keys.slice(2));

    // Evicted, so rendered again: it is the newest now, and the oldest left goes.
    const again = await render(t, source.id, '?w=10', alice);
    expect(again.status).toBe(200);
    expect((await sharp(again.bytes).metadata()).width).toBe(10);
    expect(await recorded(t, source.id)).toEqual([keys[3], keys[4], keys[0]]);
    await expectCacheMatchesStorage(t);
  });

  it('keeps 3 when 8 renditions of one source are rendered at once (their bookkeeping holds the source’s lock)', async () => {
    const source = await uploadSource(t, alice);
    const widths = [20, 21, 22, 23, 24, 25, 26, 27];
    const results = await Promise.all(widths.map((w) => render(t, source.id, `?w=${w}`, alice)));
    expect(results.map((r) => r.status)).toEqual(widths.map(() => 200));
    const kept = await recorded(t, source.id);
    expect(kept).toHaveLength(3);
    expect(widths.map((w) => renditionKey(source, webp(w)))).toEqual(expect.arrayContaining(kept));
    await expectCacheMatchesStorage(t);
  });

  it('deleting a record (REST) removes its renditions, rows and files, and keeps its own file', async () => {
    const source = await uploadSource(t, alice);
    const other = await uploadSource(t, alice, 'other.png');
    for (const w of [30, 31]) {
      expect((await render(t, source.id, `?w=${w}`, alice)).status).toBe(200);
      expect((await render(t, other.id, `?w=${w}`, alice)).status).toBe(200);
    }
    expect(await recorded(t, source.id)).toHaveLength(2);
    expect((await t.json('DELETE', `/api/v1/media/${source.id}`, undefined, as(alice))).status).toBe(200);
    expect(await recorded(t, source.id)).toEqual([]);
    const files = await renditionFiles(t);
    for (const w of [30, 31]) {
      expect(files).not.toContain(renditionKey(source, webp(w)));
      expect(files).toContain(renditionKey(other, webp(w)));
    }
    expect(await recorded(t, other.id)).toHaveLength(2);
    expect((await stat(path.join(t.config.media.uploadDir, source.storageKey))).isFile()).toBe(true);
    await expectCacheMatchesStorage(t);
  });

  it('deleting a record (GraphQL deleteMedia) removes its renditions', async () => {
    const source = await uploadSource(t, alice);
    expect((await render(t, source.id, '?w=40&format=png', alice)).status).toBe(200);
    expect(await recorded(t, source.id)).toHaveLength(1);
    const res = await t.graphql('mutation ($id: ID!) { deleteMedia(id: $id) { id } }', { id: source.id }, as(alice));
    expect(res.body.errors).toBeUndefined();
    expect(await recorded(t, source.id)).toEqual([]);
    expect(await renditionFiles(t)).not.toContain(renditionKey(source, { w: 40, fit: 'inside', format: 'png' }));
    await expectCacheMatchesStorage(t);
  });

  it('a rendition file that cannot be removed does not fail the delete; the rest go', async () => {
    const source = await uploadSource(t, alice);
    for (const w of [50, 51]) expect((await render(t, source.id, `?w=${w}`, alice)).status).toBe(200);
    // A directory where a rendition file was: storage cannot remove it.
    const stuck = path.join(t.config.media.uploadDir, renditionKey(source, webp(50)));
    await rm(stuck);
    await mkdir(stuck);
    const res = await t.json('DELETE', `/api/v1/media/${source.id}`, undefined, as(alice));
    expect(res).toMatchObject({ status: 200, body: { success: true, data: { message: expect.any(String) } } });
    expect(await recorded(t, source.id)).toEqual([]);
    expect(await renditionFiles(t)).not.toContain(renditionKey(source, webp(51)));
    expect((await stat(stuck)).isDirectory()).toBe(true);
    await rm(stuck, { recursive: true });
    await expectCacheMatchesStorage(t);
  });
});

// ---- over a blob service whose answers the test holds back ----------------------------------------

const token = 'hosted_blob_rw_rendition_cache_test';
const keyPath = /^\/uploads\/temp\/([0-9a-f-]{36}\.[a-z0-9]+)$/;

interface Gate {
  /** Resolves when the service has been asked for the held key. */
  reached: Promise<void>;
  /** Lets the service answer. */
  release(): void;
}

interface FakeBlob {
  origin: string;
  objects: Map<string, { body: Buffer; type: string }>;
  /** Holds back the answer to the next GET of `key` until released. */
  hold(key: string): Gate;
  close(): Promise<void>;
}

const bodyOf = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** storage-hosted-blob.ts's protocol (PUT, GET, DELETE under /uploads/temp/), files in memory. */
async function startFakeBlob(): Promise<FakeBlob> {
  const held = new Map<string, { reached: () => void; released: Promise<void> }>();
  const objects = new Map<string, { body: Buffer; type: string }>();
  const server = createServer(async (req, res) => {
    const key = keyPath.exec(req.url!)?.[1];
    if (!key || req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(404).end();
    if (req.method === 'PUT') {
      objects.set(key, { body: await bodyOf(req), type: req.headers['content-type'] ?? 'application/octet-stream' });
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: `${fake.origin}/uploads/temp/${key}` }));
    }
    if (req.method === 'DELETE') return void res.writeHead(objects.delete(key) ? 204 : 404).end();
    const gate = held.get(key);
    if (gate) {
      held.delete(key);
      gate.reached();
      await gate.released;
    }
    const object = objects.get(key);
    if (!object) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': object.type, 'content-length': object.body.length }).end(object.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeBlob = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    objects,
    hold(key) {
      let reached!: () => void;
      let release!: () => void;
      const gate = { reached: new Promise<void>((r) => (reached = r)), release: () => release() };
      held.set(key, { reached, released: new Promise<void>((r) => (release = r)) });
      return gate;
    },
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
  return fake;
}

describe('the render queue and deletions over HTTP (1 render running, 0 waiting; hosted-blob storage)', () => {
  let blob: FakeBlob;
  let t: TestApp;
  let alice: SignedUpUser;
  beforeAll(async () => {
    blob = await startFakeBlob();
    const env = { RATE_LIMIT_ENABLED: 'false', BLOB_READ_WRITE_TOKEN: token, BLOB_API_URL: blob.origin, MEDIA_RENDITIONS_PER_SOURCE: '3' };
    t = await createTestApp(env, undefined, { renderLimits: { concurrent: 1, waiting: 0 } });
    alice = await signUp(t);
  });
  afterAll(async () => {
    await t.close();
    await blob.close();
  });

  it('answers 503 with Retry-After and the error envelope while the one slot is taken; the render holding it succeeds', async () => {
    const source = await uploadSource(t, alice);
    expect(blob.objects.has(source.storageKey)).toBe(true);
    const gate = blob.hold(source.storageKey);
    const first = render(t, source.id, '?w=10', alice);
    // The render has its slot: it is reading the source.
    await gate.reached;
    const refused = await Promise.all(['?w=11', '?w=12', '?h=9&format=png'].map((q) => render(t, source.id, q, alice)));
    for (const res of refused) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.body).toEqual({ success: false, error: 'Too many images are being rendered; try again shortly' });
    }
    expect(await recorded(t, source.id)).toEqual([]);
    gate.release();
    const done = await first;
    expect(done.status).toBe(200);
    expect((await sharp(done.bytes).metadata()).width).toBe(10);
    // The slot is free again: the refused requests, asked again one at a time, are rendered.
    for (const q of ['?w=11', '?w=12', '?h=9&format=png']) expect((await render(t, source.id, q, alice)).status).toBe(200);
    const kept = await recorded(t, source.id);
    expect(kept).toHaveLength(3);
    expect([...blob.objects.keys()].filter((key) => renditionName.test(key)).sort()).toEqual([...kept].sort());
  });

  it('a render that outlives its record’s deletion leaves neither row nor file behind', async () => {
    const source = await uploadSource(t, alice);
    const gate = blob.hold(source.storageKey);
    const rendering = render(t, source.id, '?w=16', alice);
    await gate.reached;
    expect((await t.json('DELETE', `/api/v1/media/${source.id}`, undefined, as(alice))).status).toBe(200);
    gate.release();
    // Rendered for a caller who could read the record when asking; not kept.
    expect((await rendering).status).toBe(200);
    expect(await recorded(t, source.id)).toEqual([]);
    expect(blob.objects.has(renditionKey(source, webp(16)))).toBe(false);
    expect(blob.objects.has(source.storageKey)).toBe(true);
  });
});
