// The media library through the front door (REST and GraphQL) on the test database: registering,
// reading, editing and soft-deleting records; listing with filters, full-text search and paging;
// tags; duplicate checks; team isolation; viewers; API-key scopes; RLS on the media tables.
// Uploads and stored files: upload.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestDb } from '../../db/request-db.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { addMember } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

let t: TestApp;
let alice: SignedUpUser;
let bob: SignedUpUser;
beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
  alice = await signUp(t);
  bob = await signUp(t);
});
afterAll(() => t.close());

const as = (user: SignedUpUser) => ({ cookie: user.cookie });
const missingId = '00000000-0000-4000-8000-000000000000';
/** createdAt has millisecond precision: records whose order a test checks are made a few ms apart. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

async function register(user: SignedUpUser, fields: Record<string, unknown> = {}) {
  const body = { url: 'https://cdn.example.com/a.jpg', filename: 'a.jpg', fileSize: 1000, mimeType: 'image/jpeg', ...fields };
  const res = await t.json('POST', '/api/v1/media', body, as(user));
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function createTag(user: SignedUpUser, body: Record<string, unknown>) {
  const res = await t.json('POST', '/api/v1/media-tags', body, as(user));
  if (res.status !== 201) throw new Error(`tag failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

describe('records', () => {
  it('registers a hosted file (201, active, in the caller’s team), reads it back, and keeps it from others', async () => {
    const res = await t.json('POST', '/api/v1/media', { url: 'https://cdn.example.com/x.png', filename: 'x.png', fileSize: 123, mimeType: 'image/png', width: 10, height: 20, title: 'X' }, as(alice));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ userId: alice.id, teamId: alice.activeTeamId, url: 'https://cdn.example.com/x.png', filename: 'x.png', fileSize: 123, mimeType: 'image/png', width: 10, height: 20, title: 'X', alt: null, caption: null, status: 'active' });
    const id = res.body.data.id;
    expect((await t.json('GET', `/api/v1/media/${id}`, undefined, as(alice))).body.data).toEqual(res.body.data);
    for (const path of [`/api/v1/media/${id}`, `/api/v1/media/${missingId}`, '/api/v1/media/not-a-uuid']) {
      const other = await t.json('GET', path, undefined, as(bob));
      expect(other).toMatchObject({ status: 404, body: { success: false, error: 'Media not found' } });
      expect(other.body).not.toHaveProperty('code');
    }
  });

  it.each([
    [{ url: 'ftp://cdn.example.com/a.jpg' }, 'url'],
    [{ url: 'javascript:alert(1)' }, 'url'],
    [{ filename: '' }, 'filename'],
    [{ filename: 'f'.repeat(256) }, 'filename'],
    [{ fileSize: -1 }, 'fileSize'],
    [{ fileSize: 1.5 }, 'fileSize'],
    [{ fileSize: '12' }, 'fileSize'],
    [{ mimeType: 'jpeg' }, 'mimeType'],
    [{ title: 't'.repeat(256) }, 'title'],
    [{ alt: 'a'.repeat(501) }, 'alt'],
    [{ caption: 'c'.repeat(1001) }, 'caption'],
    [{ status: 'deleted' }, ''],
  ])('refuses %j with 400 and the offending path', async (fields, path) => {
    const body = { url: 'https://cdn.example.com/a.jpg', filename: 'a.jpg', fileSize: 1, mimeType: 'image/jpeg', ...fields };
    const res = await t.json('POST', '/api/v1/media', body, as(alice));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'Invalid request body' });
    expect(res.body).not.toHaveProperty('code');
    expect(res.body.details.errors[0].path).toEqual(path ? [path] : []);
  });

  it('edits title, alt and caption only (null clears; anything else or nothing is 400), with a new updatedAt', async () => {
    const created = await register(alice, { title: 'Old', alt: 'old alt' });
    await tick();
    const res = await t.json('PATCH', `/api/v1/media/${created.id}`, { title: 'New', alt: null, caption: 'A caption' }, as(alice));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ ...created, title: 'New', alt: null, caption: 'A caption', updatedAt: expect.any(String) });
    expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    for (const body of [{}, { url: 'https://evil.example.com/x' }, { fileSize: 1 }, { title: 'ok', width: 5 }, { caption: 'c'.repeat(1001) }, { title: 42 }]) {
      const refused = await t.json('PATCH', `/api/v1/media/${created.id}`, body, as(alice));
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toBe('Invalid request body');
    }
    const empty = await t.fetch(`/api/v1/media/${created.id}`, { method: 'PATCH', headers: { ...as(alice), 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ success: false, error: expect.stringMatching(/empty/) });
    expect((await t.json('PATCH', `/api/v1/media/${created.id}`, { title: 'Mine' }, as(bob))).status).toBe(404);
    expect((await t.json('GET', `/api/v1/media/${created.id}`, undefined, as(alice))).body.data.title).toBe('New');
  });

  it('soft-deletes: 200 data.message, then 404 everywhere; the row stays with status deleted', async () => {
    const created = await register(alice, { filename: 'doomed.jpg' });
    expect((await t.json('DELETE', `/api/v1/media/${created.id}`, undefined, as(bob))).status).toBe(404);
    const res = await t.json('DELETE', `/api/v1/media/${created.id}`, undefined, as(alice));
    expect(res).toMatchObject({ status: 200, body: { success: true, data: { message: expect.any(String) } } });
    expect((await t.json('GET', `/api/v1/media/${created.id}`, undefined, as(alice))).body.error).toBe('Media not found');
    expect((await t.json('DELETE', `/api/v1/media/${created.id}`, undefined, as(alice))).status).toBe(404);
    expect((await t.json('PATCH', `/api/v1/media/${created.id}`, { title: 'x' }, as(alice))).status).toBe(404);
    const list = await t.json('GET', '/api/v1/media?search=doomed', undefined, as(alice));
    expect(list.body.data.data).toEqual([]);
    expect((await t.database.prisma.media.findUnique({ where: { id: created.id } }))!.status).toBe('deleted');
  });

  it('answers 401 without a caller', async () => {
    const res = await t.json('GET', '/api/v1/media');
    expect(res).toMatchObject({ status: 401, body: { success: false, error: 'Unauthorized' } });
    expect(res.body).not.toHaveProperty('code');
  });
});

describe('listing and search', () => {
  let carol: SignedUpUser;
  beforeAll(async () => {
    carol = await signUp(t);
    await register(carol, { filename: 'sunset_beach.jpg', fileSize: 300, title: 'Evening at the sea' });
    await tick();
    await register(carol, { filename: 'mountain-hike.png', fileSize: 100, mimeType: 'image/png', caption: 'Alpine meadow in June' });
    await tick();
    await register(carol, { filename: 'intro.mp4', fileSize: 5000, mimeType: 'video/mp4', alt: 'Company introduction video' });
    await tick();
    await register(carol, { filename: 'beach-volley.jpg', fileSize: 200 });
    await register(bob, { filename: 'secret-beach.jpg', title: 'Alpine secrets' });
  });
  const list = (query: string) => t.json('GET', `/api/v1/media${query}`, undefined, as(carol));
  const names = (res: { body: any }) => res.body.data.data.map((m: { filename: string }) => m.filename);

  it('pages newest first by default: data {data, total, limit, offset}', async () => {
    const res = await list('?limit=2');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 4, limit: 2, offset: 0 });
    expect(names(res)).toEqual(['beach-volley.jpg', 'intro.mp4']);
    expect(names(await list('?limit=2&offset=2'))).toEqual(['mountain-hike.png', 'sunset_beach.jpg']);
    const past = await list('?offset=10');
    expect(past.body.data).toMatchObject({ data: [], total: 4, limit: 20, offset: 10 });
  });

  it('orders by filename or fileSize, either way', async () => {
    expect(names(await list('?orderBy=filename&orderDir=asc'))).toEqual(['beach-volley.jpg', 'intro.mp4', 'mountain-hike.png', 'sunset_beach.jpg']);
    expect(names(await list('?orderBy=fileSize&orderDir=desc'))).toEqual(['intro.mp4', 'sunset_beach.jpg', 'beach-volley.jpg', 'mountain-hike.png']);
  });

  it('filters by type (MIME prefix)', async () => {
    expect(names(await list('?type=video'))).toEqual(['intro.mp4']);
    expect((await list('?type=image')).body.data.total).toBe(3);
    expect((await list('?type=all')).body.data.total).toBe(4);
  });

  it('searches filename, title, alt and caption in full text, within the caller’s teams only', async () => {
    expect(names(await list('?search=beach&orderBy=filename&orderDir=asc'))).toEqual(['beach-volley.jpg', 'sunset_beach.jpg']);
    expect(names(await list('?search=SEA'))).toEqual(['sunset_beach.jpg']);
    expect(names(await list('?search=alpine'))).toEqual(['mountain-hike.png']);
    expect(names(await list('?search=introduction%20video'))).toEqual(['intro.mp4']);
    expect(names(await list('?search=mountain-hike.png'))).toEqual(['mountain-hike.png']);
    expect(names(await list('?search=beach%20-volley'))).toEqual(['sunset_beach.jpg']);
    expect(names(await list('?search=secrets'))).toEqual([]);
    expect(names(await list(`?search=${encodeURIComponent('&|!:*() \'"')}`))).toEqual([]);
  });

  it.each([
    ['?limit=101', { code: 'too_big', maximum: 100, path: ['limit'] }],
    ['?limit=0', { code: 'too_small', path: ['limit'] }],
    ['?limit=ten', { code: 'invalid_type', path: ['limit'] }],
    ['?offset=-1', { code: 'too_small', path: ['offset'] }],
    ['?orderBy=url', { code: 'invalid_value', path: ['orderBy'] }],
    ['?orderDir=up', { code: 'invalid_value', path: ['orderDir'] }],
    ['?type=audio', { code: 'invalid_value', path: ['type'] }],
    ['?page=2', { code: 'unrecognized_keys' }],
    [`?search=${'x'.repeat(201)}`, { code: 'too_big', maximum: 200, path: ['search'] }],
  ])('refuses %s with 400 Invalid query parameters', async (query, issue) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Invalid query parameters', details: { errors: [expect.objectContaining({ ...issue, message: expect.any(String) })] } });
  });

  it('is the same list through GraphQL', async () => {
    const gql = await t.graphql('{ mediaList(search: "beach", orderBy: filename, orderDir: asc, limit: 1) { total limit offset items { filename teamId } } }', undefined, as(carol));
    expect(gql.body.data.mediaList).toEqual({ total: 2, limit: 1, offset: 0, items: [{ filename: 'beach-volley.jpg', teamId: carol.activeTeamId }] });
  });
});

describe('tags', () => {
  it('creates with a slug from the name, upserts by slug within the team, lists by order then name', async () => {
    const dana = await signUp(t);
    const created = await t.json('POST', '/api/v1/media-tags', { name: 'Summer Holidays!', color: '#ff8800', order: 2 }, as(dana));
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ id: expect.any(String), slug: 'summer-holidays', name: 'Summer Holidays!', color: '#ff8800', icon: null, order: 2, isActive: true });
    const again = await createTag(dana, { name: 'summer   holidays', icon: 'sun' });
    expect(again).toMatchObject({ id: created.body.data.id, name: 'summer   holidays', color: '#ff8800', icon: 'sun' });
    await createTag(dana, { name: 'Été à Paris', order: 1 });
    await createTag(dana, { name: 'Archive', order: 2 });
    await createTag(dana, { name: 'Hidden', isActive: false });
    const listed = await t.json('GET', '/api/v1/media-tags', undefined, as(dana));
    expect(listed.body.data.map((tag: { slug: string }) => tag.slug)).toEqual(['ete-a-paris', 'archive', 'summer-holidays']);
    expect(listed.body.data[0]).toMatchObject({ type: 'media_tag', description: null, isActive: true });
    // Another team's tag with the same slug is another tag.
    const bobs = await createTag(bob, { name: 'Summer holidays' });
    expect(bobs.id).not.toBe(created.body.data.id);
    expect((await t.json('GET', '/api/v1/media-tags', undefined, as(dana))).body.data).toHaveLength(3);
  });

  it.each([[{ name: '!!!' }], [{ name: '' }], [{ name: 'ok', color: 'orange' }], [{}], [{ name: 'ok', extra: 1 }]])('refuses tag %j with 400', async (body) => {
    const res = await t.json('POST', '/api/v1/media-tags', body, as(alice));
    expect(res).toMatchObject({ status: 400, body: { success: false, error: 'Invalid request body' } });
  });

  it('adds (idempotent, 201), replaces, removes tags; filters the list by tag ids and slugs; never crosses teams', async () => {
    const erin = await signUp(t);
    const photo = await register(erin, { filename: 'photo.jpg' });
    const other = await register(erin, { filename: 'other.jpg' });
    const red = await createTag(erin, { name: 'Red' });
    const blue = await createTag(erin, { name: 'Blue' });
    const foreign = await createTag(bob, { name: 'Green' });
    const path = `/api/v1/media/${photo.id}/tags`;

    const added = await t.json('POST', path, { tagId: red.id }, as(erin));
    expect(added.status).toBe(201);
    expect(added.body.data.map((tag: { slug: string }) => tag.slug)).toEqual(['red']);
    const twice = await t.json('POST', path, { tagId: red.id }, as(erin));
    expect(twice).toMatchObject({ status: 201, body: { data: [{ id: red.id }] } });
    expect(twice.body.data).toHaveLength(1);

    for (const tagId of [foreign.id, missingId, 'nope']) {
      expect(await t.json('POST', path, { tagId }, as(erin))).toMatchObject({ status: 404, body: { error: 'Tag not found' } });
    }
    expect((await t.json('PUT', path, { tagIds: [blue.id, foreign.id] }, as(erin))).status).toBe(404);
    expect((await t.json('GET', path, undefined, as(erin))).body.data.map((tag: { id: string }) => tag.id)).toEqual([red.id]);

    const replaced = await t.json('PUT', path, { tagIds: [blue.id, red.id, blue.id] }, as(erin));
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.map((tag: { slug: string }) => tag.slug)).toEqual(['blue', 'red']);
    await t.json('POST', `/api/v1/media/${other.id}/tags`, { tagId: red.id }, as(erin));

    const byId = await t.json('GET', `/api/v1/media?tagIds=${blue.id}`, undefined, as(erin));
    expect(byId.body.data.data.map((m: { id: string }) => m.id)).toEqual([photo.id]);
    const bySlug = await t.json('GET', '/api/v1/media?tagSlugs=red&orderBy=filename&orderDir=asc', undefined, as(erin));
    expect(bySlug.body.data.data.map((m: { id: string }) => m.id)).toEqual([other.id, photo.id]);
    expect((await t.json('GET', '/api/v1/media?tagSlugs=green', undefined, as(erin))).body.data.total).toBe(0);
    expect((await t.json('GET', '/api/v1/media?tagIds=not-a-uuid', undefined, as(erin))).body.data.total).toBe(0);

    const removed = await t.json('DELETE', `${path}?tagId=${red.id}`, undefined, as(erin));
    expect(removed).toEqual({ status: 200, headers: expect.anything(), body: { success: true, data: { success: true } } });
    expect((await t.json('DELETE', path, undefined, as(erin)))).toMatchObject({ status: 400, body: { error: 'Invalid query parameters' } });
    expect((await t.json('PUT', path, { tagIds: [] }, as(erin))).body.data).toEqual([]);

    // Bob reaches neither the record nor its tags.
    expect((await t.json('GET', path, undefined, as(bob))).status).toBe(404);
    expect((await t.json('POST', path, { tagId: foreign.id }, as(bob))).status).toBe(404);
    expect((await t.json('GET', `/api/v1/media?tagIds=${red.id}`, undefined, as(bob))).body.data.total).toBe(0);
    expect((await t.json('GET', '/api/v1/media-tags', undefined, as(bob))).body.data.map((tag: { id: string }) => tag.id)).not.toContain(red.id);
  });
});

describe('duplicates', () => {
  it('reports records with the same filename and size in the caller’s teams only, in one answer', async () => {
    const fay = await signUp(t);
    const first = await register(fay, { filename: 'dup.jpg', fileSize: 777 });
    await tick();
    const second = await register(fay, { filename: 'dup.jpg', fileSize: 777 });
    await register(fay, { filename: 'dup.jpg', fileSize: 778 });
    await register(bob, { filename: 'dup.jpg', fileSize: 777 });
    const res = await t.json('POST', '/api/v1/media/check-duplicates', { files: [{ filename: 'dup.jpg', fileSize: 777 }, { filename: 'new.jpg', fileSize: 1 }] }, as(fay));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      duplicates: [{ filename: 'dup.jpg', fileSize: 777, existing: [{ id: first.id, url: first.url, createdAt: first.createdAt }, { id: second.id, url: second.url, createdAt: second.createdAt }] }],
    });
    expect((await t.json('POST', '/api/v1/media/check-duplicates', { files: [{ filename: 'new.jpg', fileSize: 1 }] }, as(fay))).body.data).toEqual({ duplicates: [] });
    const tooMany = Array.from({ length: 101 }, (_, i) => ({ filename: `f${i}.jpg`, fileSize: i }));
    for (const body of [{ files: tooMany }, {}, { files: [{ filename: 'x' }] }, { files: [{ filename: 'x', fileSize: 1, extra: true }] }]) {
      expect((await t.json('POST', '/api/v1/media/check-duplicates', body, as(fay))).status).toBe(400);
    }
    const hundred = Array.from({ length: 100 }, (_, i) => ({ filename: `f${i}.jpg`, fileSize: i }));
    expect((await t.json('POST', '/api/v1/media/check-duplicates', { files: hundred }, as(fay))).status).toBe(200);
  });
});

describe('teams and roles', () => {
  it('reads every team of the caller, creates in the active team, lets viewers read but not write', async () => {
    const gus = await signUp(t);
    const viewer = await signUp(t);
    await addMember(t, gus, gus.activeTeamId, viewer, 'viewer');
    const record = await register(gus, { filename: 'team-file.jpg' });
    expect((await t.json('GET', `/api/v1/media/${record.id}`, undefined, as(viewer))).status).toBe(200);
    const listed = await t.json('GET', '/api/v1/media?search=team', undefined, as(viewer));
    expect(listed.body.data.data.map((m: { id: string }) => m.id)).toEqual([record.id]);
    const refusals = [
      await t.json('PATCH', `/api/v1/media/${record.id}`, { title: 'no' }, as(viewer)),
      await t.json('DELETE', `/api/v1/media/${record.id}`, undefined, as(viewer)),
      await t.json('POST', `/api/v1/media/${record.id}/tags`, { tagId: missingId }, as(viewer)),
    ];
    for (const res of refusals) expect(res).toMatchObject({ status: 403, body: { success: false, error: 'Viewers can read but not change team media' } });
    // The viewer's own team stays theirs to write.
    const own = await register(viewer);
    expect(own.teamId).toBe(viewer.activeTeamId);
  });
});

describe('API keys', () => {
  it('need media:read, media:write or media:delete exactly as the contract’s table (PUT tags and POST media-tags: write)', async () => {
    const hal = await signUp(t);
    const record = await register(hal);
    const tag = await createTag(hal, { name: 'Keyed' });
    const keyWith = async (scopes: string[]) => bearer((await createKey(t, hal, { scopes })).key);
    const read = await keyWith(['media:read']);
    const write = await keyWith(['media:write']);
    const remove = await keyWith(['media:delete']);
    const all = await keyWith(['media:*']);
    const other = await keyWith(['teams:read']);
    const routes: [string, string, unknown, string][] = [
      ['GET', '/api/v1/media', undefined, 'media:read'],
      ['POST', '/api/v1/media', { url: 'https://x.example.com/k.jpg', filename: 'k.jpg', fileSize: 1, mimeType: 'image/jpeg' }, 'media:write'],
      ['POST', '/api/v1/media/check-duplicates', { files: [] }, 'media:read'],
      ['GET', `/api/v1/media/${record.id}`, undefined, 'media:read'],
      ['PATCH', `/api/v1/media/${record.id}`, { title: 'k' }, 'media:write'],
      ['GET', `/api/v1/media/${record.id}/tags`, undefined, 'media:read'],
      ['POST', `/api/v1/media/${record.id}/tags`, { tagId: tag.id }, 'media:write'],
      ['PUT', `/api/v1/media/${record.id}/tags`, { tagIds: [tag.id] }, 'media:write'],
      ['DELETE', `/api/v1/media/${record.id}/tags?tagId=${tag.id}`, undefined, 'media:delete'],
      ['GET', '/api/v1/media-tags', undefined, 'media:read'],
      ['POST', '/api/v1/media-tags', { name: 'From key' }, 'media:write'],
    ];
    const keys: Record<string, Record<string, string>> = { 'media:read': read, 'media:write': write, 'media:delete': remove };
    for (const [method, path, body, scope] of routes) {
      for (const [name, key] of Object.entries(keys)) {
        const res = await t.json(method, path, body, key);
        if (name === scope) expect(res.status, `${method} ${path} with ${name}`).toBeLessThan(300);
        else expect(res, `${method} ${path} with ${name}`).toMatchObject({ status: 403, body: { success: false, error: `Insufficient permissions - ${scope} scope required` } });
      }
      expect((await t.json(method, path, body, all)).status).toBeLessThan(300);
      expect((await t.json(method, path, body, other)).body.error).toBe(`Insufficient permissions - ${scope} scope required`);
    }
    expect((await t.json('DELETE', `/api/v1/media/${record.id}`, undefined, write)).status).toBe(403);
    expect((await t.json('DELETE', `/api/v1/media/${record.id}`, undefined, remove)).status).toBe(200);
    const gql = await t.graphql('{ mediaTags { id } }', undefined, other);
    expect(gql.body.errors[0]).toMatchObject({ message: 'Insufficient permissions - media:read scope required', extensions: { code: 'FORBIDDEN' } });
  });
});

describe('row-level security', () => {
  it('shows a caller no other team’s media, tags or links, even without a WHERE clause', async () => {
    const ivy = await signUp(t);
    const record = await register(ivy);
    const tag = await createTag(ivy, { name: 'Private' });
    await t.json('POST', `/api/v1/media/${record.id}/tags`, { tagId: tag.id }, as(ivy));
    const db = new RequestDb(t.database, bob.id);
    try {
      const tx = await db.tx();
      expect((await tx.media.findMany()).map((m) => m.teamId)).not.toContain(ivy.activeTeamId);
      expect((await tx.mediaTag.findMany()).map((m) => m.teamId)).not.toContain(ivy.activeTeamId);
      expect((await tx.mediaTagLink.findMany()).map((m) => m.teamId)).not.toContain(ivy.activeTeamId);
      expect((await tx.media.updateMany({ where: { id: record.id }, data: { title: 'pwned' } })).count).toBe(0);
    } finally {
      await db.finish(false);
    }
  });
});
