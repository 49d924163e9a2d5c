// uploadMedia through POST /graphql as multipart form data (the GraphQL multipart request spec:
// operations, map, files), with real files: the same pipeline as POST /api/v1/media/upload (types from
// content, limits from MEDIA_CONFIG, empty files skipped, all or nothing), the team argument, scopes,
// the CSRF preflight header, and malformed requests that must be clear 4xx answers, never a 500.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { jpegFile, mp4File, noisyPng, pngFile, type UploadFile } from '../../testkit/media.js';
import { addMember, createTeam } from '../../testkit/teams.js';
import { createTestApp, type JsonResponse, type TestApp } from '../../testkit/test-app.js';

let t: TestApp;
let alice: SignedUpUser;
let bob: SignedUpUser;
let png: Buffer;
let jpeg: Buffer;
let rotated: Buffer;
beforeAll(async () => {
  // Images up to 0.5 MB, anything up to 2 MB, 4 files a request: a body of at most 9 MB.
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false', MEDIA_CONFIG: JSON.stringify({ maxSizeMB: 2, maxSizeImageMB: 0.5, maxFiles: 4 }) });
  alice = await signUp(t);
  bob = await signUp(t);
  [png, jpeg, rotated] = await Promise.all([pngFile(40, 30), jpegFile(64, 48), jpegFile(80, 40, 6)]);
});
afterAll(() => t.close());

const as = (user: SignedUpUser) => ({ cookie: user.cookie });
const preflight = { 'graphql-preflight': '1' };

const uploadMutation = `mutation Upload($files: [Upload!]!, $teamId: ID) {
  uploadMedia(files: $files, teamId: $teamId) {
    message urls count storage
    media { id userId teamId url filename fileSize mimeType width height status tags { id } }
    duplicates { filename sha256 existing { id } }
    skipped { filename reason }
  }
}`;

interface Part {
  field: string;
  value: string | UploadFile;
}

/** POST /graphql with these multipart parts, in this order; `streamed`: chunked, without a Content-Length. */
async function postParts(parts: Part[], headers: Record<string, string> = {}, streamed = false): Promise<JsonResponse> {
  const form = new FormData();
  for (const { field, value } of parts) {
    if (typeof value === 'string') form.append(field, value);
    else form.append(field, new Blob([value.content as Uint8Array<ArrayBuffer>], { type: value.type ?? 'application/octet-stream' }), value.name);
  }
  const encoded = new Response(form);
  const init = streamed
    ? ({ method: 'POST', body: encoded.body, duplex: 'half', headers: { ...headers, 'content-type': encoded.headers.get('content-type')! } } as RequestInit)
    : { method: 'POST', body: form, headers };
  const response = await t.fetch('/graphql', init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** uploadMedia with `files` as the spec's clients send them: operations, map (part i → variables.files.i), the files. */
function gqlUpload(files: UploadFile[], headers: Record<string, string> = {}, variables: Record<string, unknown> = {}, streamed = false): Promise<JsonResponse> {
  return postParts(
    [
      { field: 'operations', value: JSON.stringify({ query: uploadMutation, variables: { files: files.map(() => null), ...variables } }) },
      { field: 'map', value: JSON.stringify(Object.fromEntries(files.map((_, i) => [String(i), [`variables.files.${i}`]]))) },
      ...files.map((file, i) => ({ field: String(i), value: file })),
    ],
    { ...preflight, ...headers },
    streamed,
  );
}

/** Stored files and spool files left in UPLOAD_DIR. */
async function onDisk(): Promise<{ stored: string[]; spooled: string[] }> {
  const dir = t.config.media.uploadDir;
  const stored = (await readdir(dir).catch(() => [])).filter((name) => name !== '.incoming');
  const spooled = await readdir(path.join(dir, '.incoming')).catch(() => []);
  return { stored, spooled };
}
const mediaCount = () => t.database.prisma.media.count();

/** Runs `request` and asserts that it changed nothing: no record, no stored file, no spool file. */
async function changesNothing(request: () => Promise<JsonResponse>): Promise<JsonResponse> {
  const before = { count: await mediaCount(), disk: await onDisk() };
  const res = await request();
  expect(await mediaCount()).toBe(before.count);
  expect(await onDisk()).toEqual(before.disk);
  return res;
}

describe('uploadMedia', () => {
  it('stores a PNG and a JPEG of one request: one record each, types from content, dimensions as shown, urls served', async () => {
    const res = await gqlUpload([{ name: 'red.png', content: png, type: 'image/png' }, { name: 'photo.jpg', content: rotated }], as(alice));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const upload = res.body.data.uploadMedia;
    expect(upload).toMatchObject({ message: '2 files uploaded successfully', count: 2, storage: 'local', duplicates: [], skipped: [] });
    expect(upload.media.map((m: any) => [m.filename, m.mimeType, m.width, m.height, m.fileSize, m.tags])).toEqual([
      ['red.png', 'image/png', 40, 30, png.length, []],
      ['photo.jpg', 'image/jpeg', 40, 80, rotated.length, []],
    ]);
    expect(upload.urls).toEqual(upload.media.map((m: any) => m.url));
    for (const [i, m] of upload.media.entries()) {
      expect(m).toMatchObject({ userId: alice.id, teamId: alice.activeTeamId, status: 'active' });
      const row = await t.database.prisma.media.findUnique({ where: { id: m.id } });
      expect(row).toMatchObject({ storageDriver: 'local', storageKey: m.url.split('/').pop() });
      const served = await t.fetch(m.url);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(m.mimeType);
      expect(Buffer.from(await served.arrayBuffer())).toEqual([png, rotated][i]);
      expect(await readFile(path.join(t.config.media.uploadDir, row!.storageKey!))).toEqual([png, rotated][i]);
    }
    // The records are committed and readable like any other.
    const listed = await t.graphql('{ mediaList(limit: 100) { items { id } } }', undefined, as(alice));
    expect(listed.body.data.mediaList.items.map((m: any) => m.id)).toEqual(expect.arrayContaining(upload.media.map((m: any) => m.id)));
    expect((await onDisk()).spooled).toEqual([]);
  });

  it('reports content duplicates as REST does', async () => {
    const user = await signUp(t);
    const first = await gqlUpload([{ name: 'one.png', content: png }], as(user));
    const again = await gqlUpload([{ name: 'two.png', content: png }], as(user));
    expect(again.body.data.uploadMedia.duplicates).toEqual([{ filename: 'two.png', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), existing: [{ id: first.body.data.uploadMedia.media[0].id }] }]);
  });

  it('skips empty files and says so; only empty files is a 400', async () => {
    const res = await gqlUpload([{ name: 'empty.png', content: new Uint8Array() }, { name: 'ok.png', content: png }], as(alice));
    expect(res.status).toBe(200);
    expect(res.body.data.uploadMedia).toMatchObject({ count: 1, skipped: [{ filename: 'empty.png', reason: 'empty file' }] });
    const none = await changesNothing(() => gqlUpload([{ name: 'empty.png', content: new Uint8Array() }], as(alice)));
    expect(none.status).toBe(400);
    expect(none.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^No files to upload/), extensions: { code: 'VALIDATION_ERROR' } });
  });

  it('reads files in whatever order their parts come, and drops files mapped nowhere the operation reads', async () => {
    const res = await postParts(
      [
        { field: 'operations', value: JSON.stringify({ query: uploadMutation, variables: { files: [null, null] }, extensions: { unused: null } }) },
        { field: 'map', value: JSON.stringify({ a: ['extensions.unused'], b: ['variables.files.1'], c: ['variables.files.0'] }) },
        { field: 'a', value: { name: 'ignored.png', content: await noisyPng(256, 256) } },
        { field: 'b', value: { name: 'second.jpg', content: jpeg } },
        { field: 'c', value: { name: 'first.png', content: png } },
      ],
      { ...preflight, ...as(alice) },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.uploadMedia.media.map((m: any) => m.filename)).toEqual(['first.png', 'second.jpg']);
  });
});

describe('refusing files: all or nothing, as REST', () => {
  it.each([
    ['a text file named .png', { name: 'notes.png', content: Buffer.from('just some text, not an image at all'), type: 'image/png' }, /could not be recognised/],
    ['an image over maxSizeImageMB', { name: 'huge.png', content: 'noise' }, /exceeds the limit of 0.5 MB/],
  ])('refuses the whole batch for %s: 400 Upload rejected with details.files, nothing stored or recorded', async (_what, bad, reason) => {
    const content = bad.content === 'noise' ? await noisyPng(512, 512) : (bad.content as Buffer);
    const res = await changesNothing(() => gqlUpload([{ name: 'good.png', content: png }, { ...bad, content }, { name: 'good.jpg', content: jpeg }], as(alice)));
    expect(res.status).toBe(400);
    expect(res.body.data).toBeNull();
    expect(res.body.errors).toEqual([
      {
        message: 'Upload rejected',
        path: ['uploadMedia'],
        extensions: { code: 'VALIDATION_ERROR', details: { files: [{ filename: bad.name, reason: expect.stringMatching(reason) }] } },
      },
    ]);
  });

  it('refuses more than maxFiles files and a file given twice', async () => {
    const five = Array.from({ length: 5 }, (_, i) => ({ name: `${i}.png`, content: png }));
    const many = await changesNothing(() => gqlUpload(five, as(alice)));
    expect(many.status).toBe(400);
    expect(many.body.errors[0]).toMatchObject({ message: 'Too many files: at most 4 per request', extensions: { code: 'VALIDATION_ERROR' } });
    const twice = await changesNothing(() =>
      postParts(
        [
          { field: 'operations', value: JSON.stringify({ query: uploadMutation, variables: { files: [null, null] } }) },
          { field: 'map', value: JSON.stringify({ 0: ['variables.files.0', 'variables.files.1'] }) },
          { field: '0', value: { name: 'once.png', content: png } },
        ],
        { ...preflight, ...as(alice) },
      ),
    );
    expect(twice.status).toBe(400);
    expect(twice.body.errors[0].message).toMatch(/given more than once/);
  });

  it('takes the upload limit, not the JSON one, and refuses a body over it with 413, also while streaming', async () => {
    // 1.5 MB: over BODY_LIMIT_BYTES (1 MB), within a video's limit.
    const video = { name: 'clip.mp4', content: Buffer.concat([mp4File(), Buffer.alloc(1_500_000)]) };
    const streamed = await gqlUpload([video], as(alice), {}, true);
    expect(streamed.status, JSON.stringify(streamed.body)).toBe(200);
    expect(streamed.body.data.uploadMedia.media[0]).toMatchObject({ mimeType: 'video/mp4', fileSize: video.content.length });
    // 10 MB: over 4 files × 2 MB + 1 MB, refused by its Content-Length or, without one, while it streams.
    const big = { name: 'big.mp4', content: Buffer.alloc(10 * 1024 * 1024) };
    for (const chunked of [false, true]) {
      const res = await changesNothing(() => gqlUpload([big], as(alice), {}, chunked));
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
    }
  });
});

describe('teams and scopes', () => {
  it('uploads into teamId (one of the caller’s), else the active team; another team or a viewer’s is refused', async () => {
    const owner = await signUp(t);
    const second = await createTeam(t, owner, `gql-media-second-${Date.now()}`);
    const into = await gqlUpload([{ name: 'x.png', content: png }], as(owner), { teamId: second });
    expect(into.body.data.uploadMedia.media[0].teamId).toBe(second);
    expect((await gqlUpload([{ name: 'x.png', content: png }], as(owner))).body.data.uploadMedia.media[0].teamId).toBe(owner.activeTeamId);
    const foreign = await changesNothing(() => gqlUpload([{ name: 'x.png', content: png }], as(owner), { teamId: bob.activeTeamId }));
    expect(foreign.status).toBe(403);
    expect(foreign.body.errors[0]).toMatchObject({ message: 'Not a member of the team named in teamId', extensions: { code: 'FORBIDDEN' } });
    const viewer = await signUp(t);
    await addMember(t, owner, second, viewer, 'viewer');
    const refused = await changesNothing(() => gqlUpload([{ name: 'x.png', content: png }], as(viewer), { teamId: second }));
    expect(refused.body.errors[0]).toMatchObject({ message: 'Viewers can read but not change team media', extensions: { code: 'FORBIDDEN' } });
  });

  it('needs media:write with an API key, and a caller', async () => {
    const write = await createKey(t, alice, { scopes: ['media:write'] });
    const read = await createKey(t, alice, { scopes: ['media:read'] });
    expect((await gqlUpload([{ name: 'k.png', content: png }], bearer(write.key))).status).toBe(200);
    const refused = await changesNothing(() => gqlUpload([{ name: 'k.png', content: png }], bearer(read.key)));
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ message: 'Insufficient permissions - media:write scope required', extensions: { code: 'FORBIDDEN' } });
    const anonymous = await changesNothing(() => gqlUpload([{ name: 'k.png', content: png }]));
    expect(anonymous.status).toBe(401);
  });
});

describe('CSRF', () => {
  it('refuses a multipart or form POST without a preflight header (a cross-site form could send it), and a foreign origin', async () => {
    const files = [{ name: 'csrf.png', content: png }];
    const noHeader = await changesNothing(() => gqlUpload(files, { ...as(alice), 'graphql-preflight': '' }));
    expect(noHeader).toMatchObject({ status: 403, body: { success: false, code: 'CSRF_REJECTED' } });
    const form = await t.fetch('/graphql', {
      method: 'POST',
      headers: { ...as(alice), 'content-type': 'application/x-www-form-urlencoded' },
      body: `query=${encodeURIComponent('mutation { createMediaTag(input: {name: "csrf"}) { id } }')}`,
    });
    expect(form.status).toBe(403);
    expect((await t.graphql('{ mediaTags { name } }', undefined, as(alice))).body.data.mediaTags).not.toContainEqual({ name: 'csrf' });
    const foreign = await changesNothing(() => gqlUpload(files, { ...as(alice), origin: 'https://evil.example' }));
    expect(foreign).toMatchObject({ status: 403, body: { code: 'CSRF_REJECTED' } });
    // Apollo clients' header works as well.
    expect((await gqlUpload(files, { ...as(alice), 'graphql-preflight': '', 'apollo-require-preflight': 'true' })).status).toBe(200);
  });
});

describe('malformed multipart requests: a clear 400, never a 500', () => {
  const operations = JSON.stringify({ query: uploadMutation, variables: { files: [null] } });
  const file = { name: 'a.png', content: png };
  it.each<[string, Part[], RegExp]>([
    ['operations that are not JSON', [{ field: 'operations', value: '{"query": ' }, { field: 'map', value: '{}' }], /Malformed multipart request: the 'operations' field is not JSON/],
    ['a map that is not JSON', [{ field: 'operations', value: operations }, { field: 'map', value: '[' }], /the 'map' field is not JSON/],
    ['a map pointing nowhere in the operations', [{ field: 'operations', value: operations }, { field: 'map', value: '{"0": ["variables.nothing.0"]}' }, { field: '0', value: file }], /the map path "variables.nothing.0" is not a place in the operations/],
    ['a map naming a file that never comes', [{ field: 'operations', value: operations }, { field: 'map', value: '{"0": ["variables.files.0"]}' }], /the file part "0" named in the map is not in the request/],
    ['a file before the map', [{ field: 'operations', value: operations }, { field: '0', value: file }, { field: 'map', value: '{"0": ["variables.files.0"]}' }], /files must follow the 'map' field/],
    ['no operations', [{ field: 'map', value: '{}' }], /operations/],
    ['a map that is not an object', [{ field: 'operations', value: operations }, { field: 'map', value: '["variables.files.0"]' }], /the 'map' field must be a JSON object/],
  ])('%s', async (_what, parts, message) => {
    const res = await changesNothing(() => postParts(parts, { ...preflight, ...as(alice) }));
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errors[0].message).toMatch(message);
    expect(res.body.errors[0].extensions.code).not.toBe('INTERNAL_ERROR');
  });

  it('answers invalid documents and operations as yoga answers JSON ones', async () => {
    const invalid = await postParts([{ field: 'operations', value: JSON.stringify({ query: 'mutation { nope }' }) }, { field: 'map', value: '{}' }], { ...preflight, ...as(alice) });
    expect(invalid.body.errors[0].message).toMatch(/Cannot query field "nope"/);
    const batch = await postParts([{ field: 'operations', value: JSON.stringify([{ query: '{ __typename }' }]) }, { field: 'map', value: '{}' }], { ...preflight, ...as(alice) });
    expect(batch.status).toBeGreaterThanOrEqual(400);
    expect(batch.status).toBeLessThan(500);
  });

  it('refuses files for two fields of one request, and a bad body or content type', async () => {
    const query = `mutation ($a: [Upload!]!, $b: [Upload!]!) { a: uploadMedia(files: $a) { count } b: uploadMedia(files: $b) { count } }`;
    const two = await changesNothing(() =>
      postParts(
        [
          { field: 'operations', value: JSON.stringify({ query, variables: { a: [null], b: [null] } }) },
          { field: 'map', value: JSON.stringify({ 0: ['variables.a.0'], 1: ['variables.b.0'] }) },
          { field: '0', value: file },
          { field: '1', value: file },
        ],
        { ...preflight, ...as(alice) },
      ),
    );
    expect(two.status).toBe(400);
    expect(two.body.errors[0].message).toMatch(/runs one field/);
    const raw = (contentType: string, body: string) => t.fetch('/graphql', { method: 'POST', headers: { ...preflight, ...as(alice), 'content-type': contentType }, body });
    for (const res of [await raw('multipart/form-data', 'x'), await raw('multipart/form-data; boundary=abc', '--abc\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{"query":')]) {
      expect(res.status).toBe(400);
      expect((await res.json()).errors[0].message).toMatch(/Malformed multipart request/);
    }
    // An Upload variable sent as JSON is a bad request, not an error of ours.
    const json = await t.graphql(uploadMutation, { files: ['not a file'] }, as(alice));
    expect(json.status).toBe(400);
    expect(json.body.errors[0].message).toMatch(/Upload value invalid/);
    expect((await onDisk()).spooled).toEqual([]);
  });
});
