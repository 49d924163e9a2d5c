// Renditions through the front door with real images read back with sharp: sizes, formats, fit modes,
// no enlargement, EXIF orientation, the storage cache and ETags, refused parameters, which records can
// be rendered (teams, deleted, videos, registered files), scopes; and the render queue's bounds.
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { jpegFile, mp4File, pngFile, upload } from '../../testkit/media.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { createRenderQueue, maxRenderDimension, maxSourcePixels, RenderBusyError, renditionKey, type RenderQuery } from './render.js';

let t: TestApp;
let alice: SignedUpUser;
let bob: SignedUpUser;
/** Alice's uploads: a 400×300 PNG, an 80×40 JPEG with EXIF orientation 6 (shown 40×80), an MP4. */
let png: string;
/** The PNG's record as renditions know it: id and storage key. */
let pngSource: { id: string; storageKey: string };
let rotated: string;
let video: string;
beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
  [alice, bob] = await Promise.all([signUp(t), signUp(t)]);
  // Stored left half red, right half blue; orientation 6 shows the stored left side at the top.
  const halves = await sharp({ create: { width: 80, height: 40, channels: 3, background: '#ff0000' } })
    .composite([{ input: { create: { width: 40, height: 40, channels: 3, background: '#0000ff' } }, left: 40, top: 0 }])
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
  const res = await upload(t, [{ name: 'wide.png', content: await pngFile(400, 300) }, { name: 'portrait.jpg', content: halves }, { name: 'clip.mp4', content: mp4File() }], as(alice));
  if (res.status !== 200) throw new Error(`upload failed: ${JSON.stringify(res.body)}`);
  [png, rotated, video] = res.body.data.media.map((m: { id: string }) => m.id);
  pngSource = { id: png, storageKey: res.body.data.urls[0].split('/').pop() };
});
afterAll(() => t.close());

const as = (user: SignedUpUser) => ({ cookie: user.cookie });
const missingId = '00000000-0000-4000-8000-000000000000';

async function render(id: string, query: string, headers: Record<string, string> = as(alice)) {
  const res = await t.fetch(`/api/v1/media/${id}/render${query}`, { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  const isImage = res.headers.get('content-type')?.startsWith('image/');
  return { status: res.status, headers: res.headers, bytes, body: !isImage && bytes.length ? JSON.parse(bytes.toString()) : null };
}
const sizeOf = async (bytes: Buffer) => {
  const { width, height, format, compression } = await sharp(bytes).metadata();
  return { width, height, format, compression };
};
const cachedFile = (q: RenderQuery) => path.join(t.config.media.uploadDir, renditionKey(pngSource, q));

describe('rendering', () => {
  it('resizes to WebP by default, with type, length, a strong ETag, a private immutable cache and nosniff', async () => {
    const res = await render(png, '?w=100');
    expect(res.status).toBe(200);
    expect(await sizeOf(res.bytes)).toMatchObject({ width: 100, height: 75, format: 'webp' });
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('content-length')).toBe(String(res.bytes.length));
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{40}"$/);
    expect(res.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await sizeOf((await render(png, '?h=60')).bytes)).toMatchObject({ width: 80, height: 60 });
  });

  it.each([
    ['avif', 'image/avif', { format: 'heif', compression: 'av1' }],
    ['jpeg', 'image/jpeg', { format: 'jpeg' }],
    ['png', 'image/png', { format: 'png' }],
    ['webp', 'image/webp', { format: 'webp' }],
  ])('encodes format=%s', async (format, type, read) => {
    const res = await render(png, `?w=40&format=${format}`);
    expect(res.headers.get('content-type')).toBe(type);
    expect(await sizeOf(res.bytes)).toMatchObject({ width: 40, height: 30, ...read });
  });

  it.each([
    ['cover', 100, 100],
    ['contain', 100, 100],
    ['fill', 100, 100],
    ['inside', 100, 75],
    ['outside', 133, 100],
  ])('fits a 400×300 image into 100×100 with fit=%s', async (fit, width, height) => {
    expect(await sizeOf((await render(png, `?w=100&h=100&fit=${fit}`)).bytes)).toMatchObject({ width, height });
  });

  it.each([
    ['?w=1000', 400, 300],
    [`?h=${maxRenderDimension}`, 400, 300],
    ['?w=1000&h=1000&fit=cover', 400, 300],
    ['?w=1000&h=1000&fit=fill', 400, 300],
    ['?w=1000&h=1000&fit=outside', 400, 300],
    ['?w=1000&h=150&fit=cover', 400, 150],
  ])('never scales the picture up: %s', async (query, width, height) => {
    expect(await sizeOf((await render(png, query)).bytes)).toMatchObject({ width, height });
  });

  it('pads to the asked box with fit=contain without scaling the picture up (transparent, white for JPEG)', async () => {
    const padded = await render(png, '?w=500&h=500&fit=contain&format=png');
    expect(await sizeOf(padded.bytes)).toMatchObject({ width: 500, height: 500 });
    const { data, info } = await sharp(padded.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)];
    expect(pixel(250, 10)[3]).toBe(0); // padding
    expect(pixel(250, 250)).toEqual([192, 48, 32, 255]); // the picture, 400×300 in the middle
    const jpeg = await render(png, '?w=500&h=500&fit=contain&format=jpeg');
    const corner = await sharp(jpeg.bytes).extract({ left: 0, top: 0, width: 1, height: 1 }).raw().toBuffer();
    expect([...corner].every((v) => v > 240)).toBe(true);
  });

  it('applies EXIF orientation: the rotated JPEG comes out upright, without the tag', async () => {
    const res = await render(rotated, '?w=20&format=png');
    const meta = await sharp(res.bytes).metadata();
    expect([meta.width, meta.height, meta.orientation]).toEqual([20, 40, undefined]);
    const { data } = await sharp(res.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const rgb = (x: number, y: number) => [...data.subarray((y * 20 + x) * 3, (y * 20 + x) * 3 + 3)];
    const [top, bottom] = [rgb(10, 5), rgb(10, 35)];
    expect(top[0]).toBeGreaterThan(200); // red on top
    expect(top[2]).toBeLessThan(60);
    expect(bottom[2]).toBeGreaterThan(200); // blue below
    expect(bottom[0]).toBeLessThan(60);
  });

  it('gives identical concurrent requests the same rendition', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => render(png, '?w=77&h=77&fit=cover&format=avif')));
    for (const res of results) {
      expect(res.status).toBe(200);
      expect(res.bytes).toEqual(results[0]!.bytes);
      expect(res.headers.get('etag')).toBe(results[0]!.headers.get('etag'));
    }
  });
});

describe('caching', () => {
  it('stores the rendition under its derived key and serves the next request from there with the same ETag', async () => {
    const file = cachedFile({ w: 120, fit: 'inside', format: 'png' });
    await expect(stat(file)).rejects.toThrow();
    const first = await render(png, '?w=120&format=png');
    expect(first.status).toBe(200);
    expect(await readFile(file)).toEqual(first.bytes);
    // Defaults are part of the key: the same rendition, asked for with them spelled out.
    const spelled = await render(png, '?format=png&fit=inside&w=120');
    expect(spelled.bytes).toEqual(first.bytes);
    expect(spelled.headers.get('etag')).toBe(first.headers.get('etag'));
    // Proof that storage answers: what is under the key is what comes back, not a new render.
    const marker = await sharp({ create: { width: 7, height: 7, channels: 3, background: '#00ff00' } }).png().toBuffer();
    await writeFile(file, marker);
    const cached = await render(png, '?w=120&format=png');
    expect(cached.bytes).toEqual(marker);
    expect(cached.headers.get('content-length')).toBe(String(marker.length));
    expect(cached.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('is not served by /uploads/temp (no record), only by the authenticated route', async () => {
    await render(png, '?w=50');
    const key = renditionKey(pngSource, { w: 50, fit: 'inside', format: 'webp' });
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.webp$/);
    expect((await stat(path.join(t.config.media.uploadDir, key))).isFile()).toBe(true);
    expect((await t.fetch(`/uploads/temp/${key}`)).status).toBe(404);
  });

  it('answers If-None-Match with 304 and no body, without rendering', async () => {
    const first = await render(png, '?w=90&h=90&fit=cover');
    const etag = first.headers.get('etag')!;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await render(png, '?w=90&h=90&fit=cover', { ...as(alice), 'if-none-match': header });
      expect(res.status, header).toBe(304);
      expect(res.bytes.length).toBe(0);
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    }
    expect((await render(png, '?w=90&h=90&fit=cover', { ...as(alice), 'if-none-match': '"other"' })).status).toBe(200);
    // With the cached file gone, a matching ETag still answers 304 and renders nothing.
    const file = cachedFile({ w: 90, h: 90, fit: 'cover', format: 'webp' });
    await rm(file);
    expect((await render(png, '?w=90&h=90&fit=cover', { ...as(alice), 'if-none-match': etag })).status).toBe(304);
    await expect(stat(file)).rejects.toThrow();
    // Another team's caller learns nothing from an ETag.
    expect((await render(png, '?w=90&h=90&fit=cover', { ...as(bob), 'if-none-match': etag })).status).toBe(404);
  });
});

describe('refusing', () => {
  it.each([
    ['', { code: 'custom', message: 'w or h is required' }],
    ['?fit=cover', { code: 'custom', message: 'w or h is required' }],
    ['?w=0', { code: 'too_small', path: ['w'] }],
    ['?w=-5', { code: 'too_small', path: ['w'] }],
    ['?w=', { code: 'too_small', path: ['w'] }],
    ['?w=1.5', { code: 'invalid_type', path: ['w'] }],
    ['?h=abc', { code: 'invalid_type', path: ['h'] }],
    [`?w=${maxRenderDimension + 1}`, { code: 'too_big', maximum: maxRenderDimension, path: ['w'] }],
    ['?w=100&h=100000', { code: 'too_big', maximum: maxRenderDimension, path: ['h'] }],
    ['?w=100&fit=crop', { code: 'invalid_value', path: ['fit'] }],
    ['?w=100&format=gif', { code: 'invalid_value', path: ['format'] }],
    ['?w=100&quality=90', { code: 'unrecognized_keys', keys: ['quality'] }],
  ])('refuses %s with 400 Invalid query parameters', async (query, issue) => {
    const res = await render(png, query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Invalid query parameters', details: { errors: [expect.objectContaining({ message: expect.any(String), ...issue })] } });
  });

  it('is 404 Media not found for another team’s, a deleted, a missing and a malformed id', async () => {
    const own = await upload(t, [{ name: 'gone.png', content: await pngFile(30, 30) }], as(alice));
    const deleted = own.body.data.media[0].id;
    expect((await render(deleted, '?w=10')).status).toBe(200);
    expect((await t.json('DELETE', `/api/v1/media/${deleted}`, undefined, as(alice))).status).toBe(200);
    for (const [id, who] of [[png, bob], [deleted, alice], [missingId, alice], ['not-a-uuid', alice]] as const) {
      const res = await render(id, '?w=10', as(who));
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'Media not found' });
    }
  });

  it('is 422 for a video and for a registered (hosted elsewhere) image; nothing is fetched', async () => {
    const registered = await t.json('POST', '/api/v1/media', { url: 'http://127.0.0.1:1/internal.png', filename: 'internal.png', fileSize: 100, mimeType: 'image/png', width: 10, height: 10 }, as(alice));
    expect(registered.status).toBe(201);
    for (const [id, error] of [
      [video, 'Only images can be rendered'],
      [registered.body.data.id, 'Only uploaded images can be rendered'],
    ]) {
      const res = await render(id, '?w=10');
      expect(res.status, error).toBe(422);
      expect(res.body).toEqual({ success: false, error });
    }
  });

  it('is 422 for a source over the pixel limit (a small file that would decode huge), checked from its header', async () => {
    const side = Math.ceil(Math.sqrt(maxSourcePixels + 1));
    const bomb = await sharp({ create: { width: side, height: side, channels: 3, background: '#000' } }).png({ compressionLevel: 9 }).toBuffer();
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const res = await upload(t, [{ name: 'bomb.png', content: bomb }], as(alice));
    expect(res.status).toBe(200);
    expect(await render(res.body.data.media[0].id, '?w=10')).toMatchObject({ status: 422, body: { success: false, error: 'Image is too large to render' } });
  });

  it('is 422 Image could not be rendered for a stored image that does not decode (truncated in storage)', async () => {
    const whole = await jpegFile(64, 48);
    const res = await upload(t, [{ name: 'cut.jpg', content: whole }], as(alice));
    await writeFile(path.join(t.config.media.uploadDir, res.body.data.urls[0].split('/').pop()), whole.subarray(0, Math.floor(whole.length * 0.6)));
    expect(await render(res.body.data.media[0].id, '?w=10')).toMatchObject({ status: 422, body: { success: false, error: 'Image could not be rendered' } });
  });

  it('is 404 Media file not found when storage has lost the file', async () => {
    const res = await upload(t, [{ name: 'lost.jpg', content: await jpegFile(20, 20) }], as(alice));
    const { id, url } = res.body.data.media[0];
    await rm(path.join(t.config.media.uploadDir, url.split('/').pop()));
    expect((await render(id, '?w=10')).body).toEqual({ success: false, error: 'Media file not found' });
  });

  it('needs media:read with an API key, and a caller', async () => {
    const read = await createKey(t, alice, { scopes: ['media:read'] });
    const other = await createKey(t, alice, { scopes: ['media:write', 'teams:read'] });
    expect((await render(png, '?w=10', bearer(read.key))).status).toBe(200);
    const refused = await render(png, '?w=10', bearer(other.key));
    expect(refused).toMatchObject({ status: 403, body: { success: false, error: 'Insufficient permissions - media:read scope required' } });
    expect(refused.body).not.toHaveProperty('code');
    expect(await render(png, '?w=10', {})).toMatchObject({ status: 401, body: { success: false, error: 'Unauthorized' } });
    expect((await t.fetch(`/api/v1/media/${png}/render?w=10`, { method: 'POST', headers: as(alice) })).status).toBe(405);
  });
});

describe('render queue', () => {
  const deferred = () => {
    let resolve!: (value: string) => void;
    const promise = new Promise<string>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('runs at most `concurrent` at once, keeps `waiting` more, refuses the rest, and shares a key’s run', async () => {
    const queue = createRenderQueue({ concurrent: 2, waiting: 1 });
    const gates = [deferred(), deferred(), deferred()];
    let started = 0;
    const work = (i: number) => () => ((started += 1), gates[i]!.promise);
    const a = queue.run('a', work(0));
    const b = queue.run('b', work(1));
    const c = queue.run('c', work(2));
    // The same key joins the run in progress: no slot, no second call.
    const a2 = queue.run('a', work(0));
    expect(a2).toBe(a);
    await expect(queue.run('d', work(2))).rejects.toBeInstanceOf(RenderBusyError);
    await Promise.resolve();
    expect(queue.load()).toEqual({ running: 2, waiting: 1 });
    expect(started).toBe(2);
    gates[0]!.resolve('A');
    expect(await a2).toBe('A');
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toBe(3); // c took a's slot
    gates[1]!.resolve('B');
    gates[2]!.resolve('C');
    expect(await Promise.all([a, b, c])).toEqual(['A', 'B', 'C']);
    expect(queue.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the slot of a failed run, and the key can run again', async () => {
    const queue = createRenderQueue({ concurrent: 1, waiting: 0 });
    await expect(queue.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(queue.load()).toEqual({ running: 0, waiting: 0 });
    expect(await queue.run('a', () => Promise.resolve('again'))).toBe('again');
  });
});
