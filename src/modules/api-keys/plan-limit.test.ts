// The plans' `api_keys` limit is applied, not only reported (issue 36: `/usage/api_keys` said
// percentUsed 140 after 7 keys on the free plan and minting went on): a team counts its members'
// usable keys against its plan (free: 25), and minting a key needs room in every team of its owner (a
// key acts in any of them). Concurrent mints, by one member or several, never pass it together. On
// PGlite and, with TEST_DATABASE_URL, PostgreSQL (the concurrency that matters).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { addMember } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

const freeKeys = 25; // the free plan's default
let t: TestApp;
const as = (u: SignedUpUser) => ({ cookie: u.cookie });
const mint = (u: SignedUpUser, name: string) => t.json('POST', '/api/v1/api-keys', { name, scopes: ['tasks:read'] }, as(u));
const usage = async (u: SignedUpUser, teamId: string) => (await t.json('GET', `/api/v1/teams/${teamId}/usage/api_keys`, undefined, as(u))).body.data;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

describe('api_keys plan limit', () => {
  it('lets exactly the plan’s number of a concurrent burst of two members’ mints through, and reports it', async () => {
    const owner = await signUp(t);
    const member = await signUp(t); // also the owner of a team of its own
    await addMember(t, owner, owner.activeTeamId, member);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => mint(i % 2 ? member : owner, `burst ${i}`)));
    const minted = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(minted).toHaveLength(freeKeys);
    for (const answer of refused) {
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ success: false, error: `The team's plan allows ${freeKeys} api keys` });
    }
    expect(await usage(owner, owner.activeTeamId)).toEqual({ limitSlug: 'api_keys', current: freeKeys, max: freeKeys, remaining: 0, allowed: false, percentUsed: 100 });
    // The member's keys count in its own team too.
    const membersKeys = minted.filter((a) => answers.indexOf(a) % 2 === 1).length;
    expect(await usage(member, member.activeTeamId)).toMatchObject({ current: membersKeys, max: freeKeys });

    // GraphQL's mutation is refused alike; a revoked key frees its place.
    const graphql = await t.graphql('mutation { createApiKey(input: { name: "one more", scopes: ["tasks:read"] }) { id } }', {}, as(owner));
    expect(graphql.body.errors[0]).toMatchObject({ extensions: { code: 'PLAN_LIMIT_REACHED' } });
    const ownKey = minted.find((a) => answers.indexOf(a) % 2 === 0)!.body.data.id;
    expect((await t.json('DELETE', `/api/v1/api-keys/${ownKey}`, undefined, as(owner))).status).toBe(200);
    expect((await mint(owner, 'in its place')).status).toBe(201);
    expect((await mint(member, 'no place left')).status).toBe(403);
  });

  it('a member of a full team mints no key, whichever team it would act in', async () => {
    const busy = await signUp(t);
    const outsider = await signUp(t);
    expect((await mint(outsider, 'free to mint')).status).toBe(201);
    await Promise.all(Array.from({ length: freeKeys }, (_, i) => mint(busy, `fill ${i}`)));
    expect((await usage(busy, busy.activeTeamId)).current).toBe(freeKeys);
    // The outsider joins the full team, bringing its key (the count passes the plan: documented), and
    // then mints none, though its own team has room.
    await addMember(t, busy, busy.activeTeamId, outsider);
    expect(await usage(busy, busy.activeTeamId)).toMatchObject({ current: freeKeys + 1, allowed: false, percentUsed: 104 });
    expect((await mint(outsider, 'joined a full team')).status).toBe(403);
    expect((await usage(outsider, outsider.activeTeamId)).current).toBe(1);
  });
});
