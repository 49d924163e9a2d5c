// `Media.tags` in GraphQL read in one batch per request: a list gets each record's own tags (by order,
// then name; the rows a one-record read gives), never another team's, and costs the same number of SQL
// statements for 3 records as for 20; a tag change earlier in the same request is seen (no cache).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { countStatements } from '../../testkit/statements.js';
import { addMember } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
});
afterAll(() => t.close());

const as = (user: SignedUpUser) => ({ cookie: user.cookie });

interface Tag {
  id: string;
  name: string;
  [field: string]: unknown;
}

/** The fields GET /media/{id}/tags answers with (operations.graphql, MediaTagFields). */
const tagFields = 'id type slug name description icon color order isActive createdAt updatedAt';

async function register(user: SignedUpUser, filename: string): Promise<string> {
  const res = await t.json('POST', '/api/v1/media', { url: `https://cdn.example.com/${filename}`, filename, fileSize: 1000, mimeType: 'image/jpeg' }, as(user));
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

async function createTag(user: SignedUpUser, body: Record<string, unknown>): Promise<string> {
  const res = await t.json('POST', '/api/v1/media-tags', body, as(user));
  if (res.status !== 201) throw new Error(`tag failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

async function setTags(user: SignedUpUser, mediaId: string, tagIds: string[]): Promise<void> {
  const res = await t.json('PUT', `/api/v1/media/${mediaId}/tags`, { tagIds }, as(user));
  if (res.status !== 200) throw new Error(`tagging failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** The caller's media list through GraphQL, with each record's tags: record id → tags. */
async function listedTags(user: SignedUpUser, limit = 100): Promise<Map<string, Tag[]>> {
  const res = await t.graphql(`{ mediaList(limit: ${limit}) { items { id tags { ${tagFields} } } } }`, undefined, as(user));
  if (res.status !== 200 || !res.body.data) throw new Error(`list failed: ${res.status} ${JSON.stringify(res.body)}`);
  return new Map(res.body.data.mediaList.items.map((m: { id: string; tags: Tag[] }) => [m.id, m.tags]));
}

/** Record id → the names of its tags, in order. */
const namesOf = (listed: Map<string, Tag[]>) => new Map([...listed].map(([id, tags]) => [id, tags.map((tag) => tag.name)]));

describe('Media.tags in a list', () => {
  it('gives each record its own tags, by order then name, as a one-record read does; none of another team', async () => {
    const alice = await signUp(t);
    const bob = await signUp(t);
    const zeta = await createTag(alice, { name: 'Zeta', order: 0 });
    const beta = await createTag(alice, { name: 'Beta', order: 1 });
    const alpha = await createTag(alice, { name: 'Alpha', order: 1 });
    const gone = await createTag(alice, { name: 'Gone', order: 0 });
    const quiet = await createTag(alice, { name: 'Quiet', order: 5, isActive: false });
    const bobs = await createTag(bob, { name: 'Bob only' });

    const many = await register(alice, 'many.jpg');
    const one = await register(alice, 'one.jpg');
    const none = await register(alice, 'none.jpg');
    const withQuiet = await register(alice, 'quiet.jpg');
    const foreign = await register(bob, 'foreign.jpg');
    await setTags(alice, many, [beta, gone, alpha, zeta]);
    await setTags(alice, one, [alpha]);
    await setTags(alice, withQuiet, [quiet, beta]);
    await setTags(bob, foreign, [bobs]);
    // A soft-deleted tag stays linked but is no record's tag any more.
    await t.database.prisma.mediaTag.update({ where: { id: gone }, data: { deletedAt: new Date() } });

    const listed = await listedTags(alice);
    const mine = namesOf(listed);
    expect([...mine.keys()].sort()).toEqual([many, one, none, withQuiet].sort());
    expect(mine.get(many)).toEqual(['Zeta', 'Alpha', 'Beta']);
    expect(mine.get(one)).toEqual(['Alpha']);
    expect(mine.get(none)).toEqual([]);
    // Field for field, the rows the one-record read gives: what adding a tag already on it answers
    // (POST /media/{id}/tags; idempotent). GET /media/{id}/tags runs `media(id) { tags }`, this field.
    for (const [id, tags] of listed) {
      if (!tags.length) continue;
      const single = await t.json('POST', `/api/v1/media/${id}/tags`, { tagId: tags[0]!.id }, as(alice));
      expect(tags, id).toEqual(single.body.data);
      expect((await t.json('GET', `/api/v1/media/${id}/tags`, undefined, as(alice))).body.data).toEqual(tags);
    }
    expect(listed.get(many)![0]).toMatchObject({ id: zeta, type: 'media_tag', slug: 'zeta', order: 0, isActive: true, description: null });
    expect(namesOf(await listedTags(bob))).toEqual(new Map([[foreign, ['Bob only']]]));

    // A member of both teams gets both teams' records in one list, each with its own team's tags.
    const carol = await signUp(t);
    await addMember(t, alice, alice.activeTeamId, carol);
    await addMember(t, bob, bob.activeTeamId, carol);
    const both = namesOf(await listedTags(carol));
    expect(both.get(many)).toEqual(['Zeta', 'Alpha', 'Beta']);
    expect(both.get(foreign)).toEqual(['Bob only']);
    expect(both.get(none)).toEqual([]);

    const single = await t.graphql(`{ media(id: "${many}") { tags { name } } }`, undefined, as(alice));
    expect(single.body.data.media.tags.map((tag: { name: string }) => tag.name)).toEqual(['Zeta', 'Alpha', 'Beta']);
    const refused = await t.graphql(`{ media(id: "${foreign}") { tags { name } } }`, undefined, as(alice));
    expect(refused.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('shows a tag change made earlier in the same request (mutations in turn): nothing is cached', async () => {
    const erin = await signUp(t);
    const [red, blue] = [await createTag(erin, { name: 'Red' }), await createTag(erin, { name: 'Blue', order: 1 })];
    const id = await register(erin, 'changing.jpg');
    await setTags(erin, id, [red]);
    const res = await t.graphql(
      `mutation ($id: ID!, $tags: [ID!]!) {
        before: updateMedia(id: $id, input: { title: "a" }) { tags { name } }
        setMediaTags(mediaId: $id, tagIds: $tags) { name }
        after: updateMedia(id: $id, input: { title: "b" }) { tags { name } }
      }`,
      { id, tags: [blue, red] },
      as(erin),
    );
    expect(res.body.errors).toBeUndefined();
    const names = (tags: { name: string }[]) => tags.map((tag) => tag.name);
    expect(names(res.body.data.before.tags)).toEqual(['Red']);
    expect(names(res.body.data.after.tags)).toEqual(['Red', 'Blue']);
  });

  it('costs as many SQL statements for 20 records as for 3: one for the tags of the page', async () => {
    const dave = await signUp(t);
    const tags = [await createTag(dave, { name: 'Red' }), await createTag(dave, { name: 'Blue', order: 1 })];
    for (let i = 0; i < 20; i++) await setTags(dave, await register(dave, `file-${i}.jpg`), i % 2 ? tags : [tags[0]!]);

    /** The statements one request of `send` costs (sent once before: sessions, prepared statements). */
    const statementsOf = async (send: () => Promise<unknown>) => {
      await send();
      const counter = countStatements();
      try {
        await send();
        return counter.statements();
      } finally {
        counter.stop();
      }
    };
    const withTags = (limit: number) => async () => {
      const listed = await listedTags(dave, limit);
      expect(listed.size).toBe(limit);
      expect([...listed.values()].every((tagsOfRecord) => tagsOfRecord.length >= 1)).toBe(true);
    };
    const three = await statementsOf(withTags(3));
    const twenty = await statementsOf(withTags(20));
    const withoutTags = await statementsOf(() => t.graphql('{ mediaList(limit: 20) { items { id } } }', undefined, as(dave)));
    console.info(`SQL statements per mediaList: with tags, 3 records ${three}, 20 records ${twenty}; without tags ${withoutTags}`);
    expect(twenty).toBe(three);
    // The tags of the whole page: one statement.
    expect(twenty).toBe(withoutTags + 1);
  });
});
