// Uploads through the front door with real files made here (PNG, JPEG, a JPEG with EXIF orientation
// 6, an MP4 header, a text file named .png, an empty file, an oversized image): types from content,
// limits from MEDIA_CONFIG, all-or-nothing batches, dimensions, content hashes and duplicates, the
// team of x-team-id, scopes, and serving the stored files.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import sharp from 'sharp';
import { jpegFile, mp4File, noisyJpeg, noisyPng, pngFile, upload, type UploadFile } from '../../testkit/media.js';
import { addMember, createTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

let t: TestApp;
let alice: SignedUpUser;
let bob: SignedUpUser;
let png: Buffer;
let jpeg: Buffer;
let rotated: Buffer;
beforeAll(async () => {
  // Images up to 0.5 MB, anything up to 2 MB, 4 files a request.
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false', MEDIA_CONFIG: JSON.stringify({ maxSizeMB: 2, maxSizeImageMB: 0.5, maxFiles: 4 }) });
  alice = await signUp(t);
  bob = await signUp(t);
  [png, jpeg, rotated] = await Promise.all([pngFile(40, 30), jpegFile(64, 48), jpegFile(80, 40, 6)]);
});
afterAll(() => t.close());

const as = (user: SignedUpUser) => ({ cookie: user.cookie });
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
/** Stored files and spool files left in UPLOAD_DIR. */
async function onDisk(): Promise<{ stored: string[]; spooled: string[] }> {
  const dir = t.config.media.uploadDir;
  const stored = (await readdir(dir).catch(() => [])).filter((name) => name !== '.incoming');
  const spooled = await readdir(path.join(dir, '.incoming')).catch(() => []);
  return { stored, spooled };
}
const mediaCount = () => t.database.prisma.media.count();

describe('uploading', () => {
  it('stores a PNG, a JPEG, an EXIF-rotated JPEG and an MP4: one record each, types from content, dimensions as shown', async () => {
    const files: UploadFile[] = [
      { name: 'red.png', content: png, type: 'image/png' },
      { name: 'blue.jpeg', content: jpeg, type: 'image/jpeg' },
      { name: 'portrait.jpg', content: rotated },
      { name: 'clip.mp4', content: mp4File(), type: 'video/mp4' },
    ];
    const res = await upload(t, files, as(alice));
    expect(res.status).toBe(200);
    const { data } = res.body;
    expect(data).toMatchObject({ message: expect.any(String), count: 4, storage: 'local', duplicates: [], skipped: [] });
    expect(data.media.map((m: any) => [m.filename, m.mimeType, m.width, m.height, m.fileSize])).toEqual([
      ['red.png', 'image/png', 40, 30, png.length],
      ['blue.jpeg', 'image/jpeg', 64, 48, jpeg.length],
      ['portrait.jpg', 'image/jpeg', 40, 80, rotated.length],
      ['clip.mp4', 'video/mp4', null, null, mp4File().length],
    ]);
    expect(data.urls).toEqual(data.media.map((m: any) => m.url));
    for (const m of data.media) {
      expect(m).toMatchObject({ userId: alice.id, teamId: alice.activeTeamId, status: 'active' });
      expect(m.url).toMatch(/^\/uploads\/temp\/[0-9a-f-]{36}\.(png|jpg|mp4)$/);
    }
    // The stored bytes are the uploaded ones; the record keeps their SHA-256 and where they are.
    const row = await t.database.prisma.media.findUnique({ where: { id: data.media[0].id } });
    expect(row).toMatchObject({ sha256: sha256(png), storageDriver: 'local', storageKey: data.media[0].url.split('/').pop() });
    expect(await readFile(path.join(t.config.media.uploadDir, row!.storageKey!))).toEqual(png);
    expect((await onDisk()).spooled).toEqual([]);
  });

  it('reads the dimensions of images larger than what is kept in memory (EXIF orientation too), from their header or their file', async () => {
    // Over 256 KiB each (and under the test app's 0.5 MB): the JPEG's header is read from its first bytes; the WebP (whose EXIF may
    // follow the pixels) and the PNG are read from their files.
    const [bigRotated, bigPng, bigWebp] = await Promise.all([
      noisyJpeg(660, 440, 6),
      noisyPng(400, 300),
      sharp(await noisyPng(400, 300)).webp({ lossless: true }).withMetadata({ orientation: 8 }).toBuffer(),
    ]);
    for (const content of [bigRotated, bigPng, bigWebp]) expect(content.length).toBeGreaterThan(256 * 1024);
    for (const content of [bigRotated, bigPng, bigWebp]) expect(content.length).toBeLessThan(t.config.media.maxImageBytes);
    const res = await upload(t, [{ name: 'big.jpg', content: bigRotated }, { name: 'big.png', content: bigPng }, { name: 'big.webp', content: bigWebp }], as(alice));
    expect(res.status).toBe(200);
    expect(res.body.data.media.map((m: any) => [m.filename, m.width, m.height, m.fileSize])).toEqual([
      ['big.jpg', 440, 660, bigRotated.length],
      ['big.png', 400, 300, bigPng.length],
      ['big.webp', 300, 400, bigWebp.length],
    ]);
  });

  it('serves stored files with the record’s type and nosniff; nothing else under /uploads/temp', async () => {
    const res = await upload(t, [{ name: 'served.png', content: png }], as(alice));
    const url = res.body.data.urls[0];
    const served = await t.fetch(url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(png);
    for (const bad of ['/uploads/temp/00000000-0000-4000-8000-000000000000.png', '/uploads/temp/..%2F..%2Fetc%2Fpasswd', '/uploads/temp/../../package.json', '/uploads/temp/.incoming', '/uploads/temp/']) {
      expect((await t.fetch(bad)).status, bad).toBe(404);
    }
    // A deleted record's file stays in storage but is no longer served.
    await t.json('DELETE', `/api/v1/media/${res.body.data.media[0].id}`, undefined, as(alice));
    expect((await t.fetch(url)).status).toBe(404);
    expect((await onDisk()).stored).toContain(url.split('/').pop());
  });

  it('serves byte ranges of stored files (206, 416), the whole file for several ranges or a stale If-Range', async () => {
    const mp4 = Buffer.from(mp4File());
    const url = (await upload(t, [{ name: 'clip.mp4', content: mp4 }], as(alice))).body.data.urls[0];
    const get = (headers: Record<string, string>) => t.fetch(url, { headers });
    const whole = await get({});
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const etag = whole.headers.get('etag')!;
    await whole.arrayBuffer();
    const cases: [string, number, number][] = [['bytes=0-99', 0, 99], ['bytes=4000-', 4000, mp4.length - 1], ['bytes=-96', mp4.length - 96, mp4.length - 1], ['bytes=10-999999', 10, mp4.length - 1]];
    for (const [range, start, end] of cases) {
      const part = await get({ range });
      expect(part.status, range).toBe(206);
      expect(part.headers.get('content-range'), range).toBe(`bytes ${start}-${end}/${mp4.length}`);
      expect(part.headers.get('content-type')).toBe('video/mp4');
      expect(Buffer.from(await part.arrayBuffer()), range).toEqual(mp4.subarray(start, end + 1));
    }
    for (const range of [`bytes=${mp4.length}-`, 'bytes=50-10', 'bytes=-0']) {
      const refused = await get({ range });
      expect(refused.status, range).toBe(416);
      expect(refused.headers.get('content-range')).toBe(`bytes */${mp4.length}`);
      await refused.arrayBuffer();
    }
    const wholeFile: Record<string, string>[] = [{ range: 'bytes=0-1,5-6' }, { range: 'items=0-1' }, { range: 'bytes=0-1', 'if-range': '"another"' }];
    for (const headers of wholeFile) {
      const full = await get(headers);
      expect(full.status, JSON.stringify(headers)).toBe(200);
      expect(Buffer.from(await full.arrayBuffer())).toEqual(mp4);
    }
    expect((await get({ range: 'bytes=0-1', 'if-range': etag })).status).toBe(206);
  });

  it('answers 413 to an upload larger than the request limit, without reading it all', async () => {
    const limit = t.config.media.maxFiles * t.config.media.maxSizeBytes + 1048576;
    const before = await mediaCount();
    const big = Buffer.alloc(limit + 1024, 1);
    const res = await upload(t, [{ name: 'huge.mp4', content: Buffer.concat([mp4File(), big]) }], as(alice));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false });
    expect(await mediaCount()).toBe(before);
    expect((await onDisk()).spooled).toEqual([]);
  });

  it('reports content duplicates (same SHA-256 in the team), earlier files of the same batch included', async () => {
    const user = await signUp(t);
    const first = await upload(t, [{ name: 'one.png', content: png }], as(user));
    const again = await upload(t, [{ name: 'copy.png', content: png }, { name: 'copy2.png', content: png }], as(user));
    expect(again.status).toBe(200);
    const [copy] = again.body.data.media;
    expect(again.body.data.duplicates).toEqual([
      { filename: 'copy.png', sha256: sha256(png), existing: [{ id: first.body.data.media[0].id, url: first.body.data.urls[0], createdAt: first.body.data.media[0].createdAt }] },
      { filename: 'copy2.png', sha256: sha256(png), existing: [expect.objectContaining({ id: first.body.data.media[0].id }), { id: copy.id, url: copy.url, createdAt: copy.createdAt }] },
    ]);
    // Another team's identical file is not a duplicate.
    expect((await upload(t, [{ name: 'mine.png', content: png }], as(bob))).body.data.duplicates).toEqual([]);
  });

  it('skips empty files and says so; only empty files is a 400', async () => {
    const res = await upload(t, [{ name: 'empty.png', content: new Uint8Array() }, { name: 'ok.png', content: png }], as(alice));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ count: 1, skipped: [{ filename: 'empty.png', reason: 'empty file' }] });
    const none = await upload(t, [{ name: 'empty.png', content: new Uint8Array() }], as(alice));
    expect(none).toMatchObject({ status: 400, body: { success: false, error: expect.stringMatching(/^No files to upload/) } });
    expect(none.body).not.toHaveProperty('code');
  });
});

describe('refusing', () => {
  it.each([
    ['a text file named .png', { name: 'notes.png', content: Buffer.from('just some text, not an image at all'), type: 'image/png' }, /could not be recognised/],
    ['a disallowed type', { name: 'doc.pdf', content: Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n') }, /application\/pdf is not allowed/],
    ['a PNG named .jpg', { name: 'photo.jpg', content: 'png' }, /does not match the extension \.jpg/],
    ['a PNG declared as image/jpeg', { name: 'photo', content: 'png', type: 'image/jpeg' }, /not the declared image\/jpeg/],
    ['an image over maxSizeImageMB', { name: 'huge.png', content: 'noise' }, /exceeds the limit of 0.5 MB/],
  ])('refuses the whole batch for %s: 400 Upload rejected, nothing stored', async (_what, bad, reason) => {
    const content = bad.content === 'png' ? png : bad.content === 'noise' ? await noisyPng(512, 512) : (bad.content as Buffer);
    const before = { count: await mediaCount(), disk: await onDisk() };
    const res = await upload(t, [{ name: 'good.png', content: png }, { ...bad, content }, { name: 'good.jpg', content: jpeg }], as(alice));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Upload rejected', details: { files: [{ filename: bad.name, reason: expect.stringMatching(reason) }] } });
    expect(await mediaCount()).toBe(before.count);
    expect(await onDisk()).toEqual(before.disk);
  });

  it('lists every refused file of a batch', async () => {
    const res = await upload(t, [{ name: 'a.png', content: Buffer.from('text') }, { name: 'b.gif', content: png }, { name: 'c.png', content: png }], as(alice));
    expect(res.body.details.files.map((f: { filename: string }) => f.filename)).toEqual(['a.png', 'b.gif']);
  });

  it('takes larger files when they are videos (maxSizeVideoMB) but never over maxSizeMB', async () => {
    const video = (bytes: number) => Buffer.concat([mp4File(), Buffer.alloc(bytes)]);
    expect((await upload(t, [{ name: 'big.mp4', content: video(1_500_000) }], as(alice))).status).toBe(200);
    const tooBig = await upload(t, [{ name: 'bigger.mp4', content: video(2_200_000) }], as(alice));
    expect(tooBig.body.details.files).toEqual([{ filename: 'bigger.mp4', reason: 'file exceeds the limit of 2 MB' }]);
  });

  it('refuses bad requests with a clear 4xx and no code', async () => {
    const cases = [
      [await upload(t, [{ name: 'a.png', content: png }], as(alice), 'file'), 400, /Upload rejected/],
      [await upload(t, Array.from({ length: 5 }, (_, i) => ({ name: `${i}.png`, content: png })), as(alice)), 400, /at most 4/],
      [await upload(t, [], as(alice)), 400, /No files/],
      [await t.json('POST', '/api/v1/media/upload', { files: [] }, as(alice)), 415, /multipart/],
      [await t.fetch('/api/v1/media/upload', { method: 'POST', headers: { ...as(alice), 'content-type': 'multipart/form-data' }, body: 'x' }), 400, /boundary/],
      [await t.fetch('/api/v1/media/upload', { method: 'POST', headers: { ...as(alice), 'content-type': 'multipart/form-data; boundary=abc' }, body: '--abc\r\nContent-Disposition: form-data; name="files"; filename="a.png"\r\n\r\npartial' }), 400, /Malformed/],
      [await upload(t, [{ name: 'a.png', content: png }]), 401, /Unauthorized/],
    ] as const;
    for (const [res, status, error] of cases) {
      const body = 'json' in res && typeof res.json === 'function' ? await (res as Response).json() : (res as { body: any }).body;
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(body).toMatchObject({ success: false, error: expect.stringMatching(error) });
      expect(body).not.toHaveProperty('code');
    }
    expect((await onDisk()).spooled).toEqual([]);
  });

  // Both databases: pglite-prisma-adapter's commit() swallowed an error of PGlite's COMMIT, which
  // db/commits.ts now holds PGlite's transactions for. The schema has no check deferred to COMMIT, so
  // nothing of ours fails there; this test makes one.
  it('removes the stored files when the commit fails (nothing recorded, nothing stored), and answers an error', async () => {
    // A check deferred to COMMIT: the record is written, then the commit fails.
    await t.database.prisma.$executeRawUnsafe(`CREATE FUNCTION test_refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.filename = 'refused-at-commit.png' THEN RAISE EXCEPTION 'refused at commit'; END IF; RETURN NULL; END $$`);
    await t.database.prisma.$executeRawUnsafe(`CREATE CONSTRAINT TRIGGER test_refuse_at_commit AFTER INSERT ON media
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_refuse_at_commit()`);
    try {
      const before = { count: await mediaCount(), disk: await onDisk() };
      const res = await upload(t, [{ name: 'kept-if-committed.jpg', content: jpeg }, { name: 'refused-at-commit.png', content: png }], as(alice));
      expect(res.status).toBe(500);
      expect(await mediaCount()).toBe(before.count);
      expect(await onDisk()).toEqual(before.disk);
    } finally {
      await t.database.prisma.$executeRawUnsafe('DROP TRIGGER test_refuse_at_commit ON media');
      await t.database.prisma.$executeRawUnsafe('DROP FUNCTION test_refuse_at_commit()');
    }
  });

  it('refuses a form whose extra fields would push files past the parts limit, rather than dropping them', async () => {
    const form = new FormData();
    for (let i = 0; i < 60; i++) form.append(`note${i}`, 'x');
    form.append('files', new Blob([new Uint8Array(png)]), 'late.png');
    const res = await t.fetch('/api/v1/media/upload', { method: 'POST', body: form, headers: as(alice) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ success: false, error: expect.stringMatching(/Too many form parts/) });
  });
});

describe('teams and scopes', () => {
  it('uploads into the team named by x-team-id (one of the caller’s), else the active team; viewers may not', async () => {
    const owner = await signUp(t);
    const second = await createTeam(t, owner, `media-second-${Date.now()}`);
    const into = await upload(t, [{ name: 'x.png', content: png }], { ...as(owner), 'x-team-id': second });
    expect(into.body.data.media[0].teamId).toBe(second);
    expect((await upload(t, [{ name: 'x.png', content: png }], as(owner))).body.data.media[0].teamId).toBe(owner.activeTeamId);
    const foreign = await upload(t, [{ name: 'x.png', content: png }], { ...as(owner), 'x-team-id': bob.activeTeamId });
    expect(foreign).toMatchObject({ status: 403, body: { success: false } });
    const viewer = await signUp(t);
    await addMember(t, owner, second, viewer, 'viewer');
    const refused = await upload(t, [{ name: 'x.png', content: png }], { ...as(viewer), 'x-team-id': second });
    expect(refused).toMatchObject({ status: 403, body: { error: 'Viewers can read but not change team media' } });
  });

  it('needs media:write with an API key', async () => {
    const write = await createKey(t, alice, { scopes: ['media:write'] });
    const read = await createKey(t, alice, { scopes: ['media:read'] });
    expect((await upload(t, [{ name: 'k.png', content: png }], bearer(write.key))).status).toBe(200);
    const refused = await upload(t, [{ name: 'k.png', content: png }], bearer(read.key));
    expect(refused).toMatchObject({ status: 403, body: { success: false, error: 'Insufficient permissions - media:write scope required' } });
  });
});
