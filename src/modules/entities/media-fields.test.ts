// Media fields as clients see them, with the example definitions: `orders.attachment` (one media,
// cleared when it is deleted), `customers.logo` (onDelete: restrict), `projects.files` (many: a list in
// order, a deleted one leaves it) and `posts.cover` (onDelete: cascade; posts soft-delete). Writes name
// active media of the caller's team only (another team's is refused like one that does not exist);
// REST `expand` and GraphQL give the media record with its URL and rendition URLs (which answer real
// images); deleting a media does what each field's onDelete says, also when a write naming it runs at
// the same moment. On PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { bearer, createKey } from '../../testkit/api-keys.js';
import { pngFile, upload } from '../../testkit/media.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
let alice: SignedUpUser;
let bob: SignedUpUser;
let customerId: string;
const as = (u: SignedUpUser) => ({ cookie: u.cookie });

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
  alice = await signUp(t);
  bob = await signUp(t);
  customerId = (await t.json('POST', '/api/v1/customers', { name: 'Media Co', account: 1, office: 'Lisboa' }, as(alice))).body.data.id;
});
afterAll(async () => {
  await t?.close();
});

/** An uploaded PNG of `who`'s active team. */
async function uploaded(who: SignedUpUser, name = 'photo.png'): Promise<Row> {
  const res = await upload(t, [{ name, content: await pngFile(800, 600), type: 'image/png' }], as(who));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.media[0];
}

/** A registered (hosted elsewhere) file of `who`'s active team. */
async function registered(who: SignedUpUser, filename = 'spec.pdf'): Promise<Row> {
  const res = await t.json('POST', '/api/v1/media', { url: `https://files.example.com/${filename}`, filename, fileSize: 1000, mimeType: 'application/pdf' }, as(who));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

async function created(path: string, body: Row, who = alice): Promise<Row> {
  const res = await t.json('POST', path, body, as(who));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

const deleteMedia = (id: string, who = alice) => t.json('DELETE', `/api/v1/media/${id}`, undefined, as(who));

describe('a media field', () => {
  it('holds a media of the team; expand and GraphQL give the record with its URL and rendition URLs, which serve the image', async () => {
    const photo = await uploaded(alice);
    const order = await created('/api/v1/orders', { customerId, attachmentId: photo.id });
    expect(order.attachmentId).toBe(photo.id);
    expect(order).not.toHaveProperty('attachment');

    const read = await t.json('GET', `/api/v1/orders/${order.id}?expand=attachment`, undefined, as(alice));
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const renditions = [320, 640, 1280].map((width) => ({ width, url: `/api/v1/media/${photo.id}/render?w=${width}` }));
    expect(read.body.data.attachment).toMatchObject({ id: photo.id, url: photo.url, filename: 'photo.png', mimeType: 'image/png', width: 800, height: 600, renditions });
    const picked = await t.json('GET', `/api/v1/orders/${order.id}?fields=number,attachment.url`, undefined, as(alice));
    expect(picked.body.data).toEqual({ number: order.number, attachment: { url: photo.url } });
    const rendition = await t.fetch(renditions[0]!.url, { headers: as(alice) });
    expect(rendition.status).toBe(200);
    expect(rendition.headers.get('content-type')).toBe('image/webp');

    const gql = await t.graphql('query($id: ID!) { order(id: $id) { attachmentId attachment { id url mimeType renditions { width url } } } }', { id: order.id }, as(alice));
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.order).toEqual({ attachmentId: photo.id, attachment: { id: photo.id, url: photo.url, mimeType: 'image/png', renditions } });

    // A registered file (hosted elsewhere) has a URL but no renditions; none at all expands to null.
    const pdf = await registered(alice);
    const other = await created('/api/v1/orders', { customerId, attachmentId: pdf.id });
    const bare = await created('/api/v1/orders', { customerId });
    const list = await t.json('GET', `/api/v1/orders?ids=${other.id},${bare.id}&expand=attachment&fields=id,attachment.url,attachment.renditions`, undefined, as(alice));
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const byId = new Map(list.body.data.map((r: Row) => [r.id, r]));
    expect(byId.get(other.id)).toEqual({ id: other.id, attachment: { url: pdf.url, renditions: [] } });
    expect(byId.get(bare.id)).toEqual({ id: bare.id, attachment: null });
  });

  it('refuses another team’s media, a deleted one and one that does not exist alike (422 naming the field), on both faces', async () => {
    const theirs = await uploaded(bob, 'theirs.png');
    const gone = await registered(alice, 'gone.pdf');
    expect((await deleteMedia(gone.id)).status).toBe(200);
    const answers = [];
    for (const id of [theirs.id, gone.id, '5c8e2a1f-6d3b-4e9a-8b7c-1f0e2d3c4b5a']) {
      const res = await t.json('POST', '/api/v1/orders', { customerId, attachmentId: id }, as(alice));
      expect(res.status).toBe(422);
      answers.push(res.body);
    }
    expect(answers[0]).toEqual({ success: false, error: 'Validation failed', code: 'VALIDATION_FAILED', details: { attachmentId: 'must be the id of a media record of this team' } });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    const many = await t.json('POST', '/api/v1/projects', { name: 'Cross', fileIds: [(await registered(alice)).id, theirs.id] }, as(alice));
    expect(many.status).toBe(422);
    expect(many.body.details).toEqual({ fileIds: 'must be ids of media of this team' });
    const malformed = await t.json('POST', '/api/v1/orders', { customerId, attachmentId: 'not-an-id' }, as(alice));
    expect(malformed.body.details).toEqual({ attachmentId: 'must be the id of a media record' });

    const gql = await t.graphql('mutation($input: CreateOrderInput!) { createOrder(input: $input) { id } }', { input: { customerId, attachmentId: theirs.id } }, as(alice));
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', details: { attachmentId: 'must be the id of a media record of this team' } });
    // Bob's media stays his: it is not cleared or touched by the refused writes.
    expect((await t.json('GET', `/api/v1/media/${theirs.id}`, undefined, as(bob))).status).toBe(200);
  });

  it('a list keeps its order; expand gives the media in that order; a deleted one leaves the list (onDelete setNull)', async () => {
    const [a, b, c] = [await uploaded(alice, 'a.png'), await registered(alice, 'b.pdf'), await uploaded(alice, 'c.png')];
    const project = await created('/api/v1/projects', { name: 'Gallery', fileIds: [c.id, a.id, b.id, a.id] });
    expect(project.fileIds).toEqual([c.id, a.id, b.id]);
    const read = await t.json('GET', `/api/v1/projects/${project.id}?expand=files&fields=fileIds,files.id`, undefined, as(alice));
    expect(read.body.data).toEqual({ fileIds: [c.id, a.id, b.id], files: [{ id: c.id }, { id: a.id }, { id: b.id }] });

    expect((await deleteMedia(a.id)).status).toBe(200);
    const after = await t.graphql('query($id: ID!) { project(id: $id) { fileIds files { id filename } } }', { id: project.id }, as(alice));
    expect(after.body).toEqual({ data: { project: { fileIds: [c.id, b.id], files: [{ id: c.id, filename: 'c.png' }, { id: b.id, filename: 'b.pdf' }] } } });
    const cleared = await t.json('PATCH', `/api/v1/projects/${project.id}`, { fileIds: null }, as(alice));
    expect(cleared.body.data.fileIds).toEqual([]);
  });

  it('deleting a media clears the records naming it (setNull), refuses while a restricting one names it, and deletes along (cascade)', async () => {
    // setNull: the order stays, without its attachment.
    const slip = await registered(alice, 'slip.pdf');
    const order = await created('/api/v1/orders', { customerId, attachmentId: slip.id });
    expect((await deleteMedia(slip.id)).status).toBe(200);
    const orderNow = (await t.json('GET', `/api/v1/orders/${order.id}`, undefined, as(alice))).body.data;
    expect(orderNow.attachmentId).toBeNull();
    expect(Date.parse(orderNow.updatedAt)).toBeGreaterThan(Date.parse(order.updatedAt));

    // restrict: 409 while a customer shows it; the media stays; once the customer lets go, it can go.
    const logo = await uploaded(alice, 'logo.png');
    const customer = await created('/api/v1/customers', { name: 'Logo Co', account: 2, office: 'Porto', logoId: logo.id });
    const refused = await deleteMedia(logo.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/onDelete: restrict/);
    expect((await t.json('GET', `/api/v1/media/${logo.id}`, undefined, as(alice))).status).toBe(200);
    const filtered = await t.json('GET', `/api/v1/customers?logoId=${logo.id}&fields=id`, undefined, as(alice));
    expect(filtered.body.data).toEqual([{ id: customer.id }]);
    expect((await t.json('PATCH', `/api/v1/customers/${customer.id}`, { logoId: null }, as(alice))).status).toBe(200);
    expect((await deleteMedia(logo.id)).status).toBe(200);

    // cascade: the post goes with its cover (marked deleted: posts soft-delete); another post stays.
    const cover = await uploaded(alice, 'cover.png');
    const post = await created('/api/v1/posts', { title: 'With cover', slug: 'with-cover', coverId: cover.id });
    const plain = await created('/api/v1/posts', { title: 'Plain', slug: 'plain' });
    expect((await deleteMedia(cover.id)).status).toBe(200);
    expect((await t.json('GET', `/api/v1/posts/${post.id}`, undefined, as(alice))).status).toBe(404);
    expect((await t.json('GET', `/api/v1/posts/${plain.id}`, undefined, as(alice))).status).toBe(200);
  });

  it('a write naming a media and that media’s deletion at the same moment never leave a record naming a deleted media', async () => {
    for (let round = 0; round < 3; round++) {
      const media = await registered(alice, `race-${round}.pdf`);
      const writes = Array.from({ length: 8 }, () => t.json('POST', '/api/v1/orders', { customerId, attachmentId: media.id }, as(alice)));
      const [deleted, ...answers] = await Promise.all([deleteMedia(media.id), ...writes]);
      expect(deleted.status).toBe(200);
      for (const res of answers) expect([201, 422]).toContain(res.status);
      const made = answers.filter((res) => res.status === 201).map((res) => res.body.data.id);
      if (!made.length) continue;
      const now = await t.json('GET', `/api/v1/orders?ids=${made.join(',')}&fields=attachmentId&limit=100`, undefined, as(alice));
      expect(now.status, JSON.stringify(now.body)).toBe(200);
      expect(now.body.data).toEqual(made.map(() => ({ attachmentId: null })));
    }
  });

  it('expanding needs media:read: a key with orders:read alone reads the order but not its media', async () => {
    const photo = await registered(alice, 'scoped.pdf');
    const order = await created('/api/v1/orders', { customerId, attachmentId: photo.id });
    const ordersOnly = bearer((await createKey(t, alice, { scopes: ['orders:read'] })).key);
    expect((await t.json('GET', `/api/v1/orders/${order.id}`, undefined, ordersOnly)).body.data.attachmentId).toBe(photo.id);
    expect((await t.json('GET', `/api/v1/orders/${order.id}?expand=attachment`, undefined, ordersOnly)).status).toBe(403);
    const both = bearer((await createKey(t, alice, { scopes: ['orders:read', 'media:read'] })).key);
    expect((await t.json('GET', `/api/v1/orders/${order.id}?expand=attachment`, undefined, both)).body.data.attachment.id).toBe(photo.id);
  });

  it('OpenAPI types the ids and the expanded media', async () => {
    const doc = (await t.json('GET', '/api/v1/openapi.json')).body;
    const order = doc.components.schemas.Order;
    expect(order.properties.attachmentId).toMatchObject({ type: ['string', 'null'], format: 'uuid' });
    expect(order.properties.attachment.anyOf[0].properties.renditions.type).toBe('array');
    expect(doc.components.schemas.Project.properties.fileIds).toMatchObject({ type: ['array', 'null'], items: { format: 'uuid' } });
    const expand = doc.paths['/api/v1/orders/{id}'].get.parameters.find((p: Row) => p.name === 'expand');
    expect(expand.schema.items?.enum ?? expand.schema.enum).toContain('attachment');
  });
});
