// A replay reads only the reconnecting subscriber's own events, in SQL (issue 36: it read up to 10,001
// events of the entity for every team, then filtered, so another team's 10,500 writes turned a
// reconnection after one missed event into a GAP, whose id also told their volume): its active team's
// (of a private entity, those of records it created), or the public ones for an anonymous subscriber.
// Another team's writes here go straight in SQL, as an import would (their trigger logs each one).
// On PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayLimit } from '../../realtime/event-log.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { openEventStream, type SseClient, type SseEvent } from '../../testkit/event-stream.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

let t: TestApp;
let alice: SignedUpUser;
let bob: SignedUpUser; // another team
const open: SseClient[] = [];
const as = (u: SignedUpUser) => ({ cookie: u.cookie });

async function subscribe(path: string, headers: Record<string, string>): Promise<SseClient> {
  const stream = await openEventStream(`${t.origin}${path}`, headers);
  expect(stream.status, JSON.stringify(stream.refusal)).toBe(200);
  open.push(stream);
  return stream;
}

/** Every event until none comes for a while, without a replay's repeats of events already had (by event id). */
async function rest(stream: SseClient, had: Set<string>): Promise<SseEvent[]> {
  return (await stream.drain(1000)).filter((e) => !had.has(e.id!));
}

beforeAll(async () => {
  t = await createTestApp();
  alice = await signUp(t);
  bob = await signUp(t);
});
afterAll(async () => {
  for (const stream of open) stream.close();
  await t?.close();
});

describe('a replay', () => {
  it('reads its own team’s events: another team’s writes past the replay limit neither make a GAP nor hide the one it missed', async () => {
    const first = await subscribe('/api/v1/tasks/events', as(alice));
    const seen = (await t.json('POST', '/api/v1/tasks', { title: 'Seen' }, as(alice))).body.data.id;
    const last = await first.next();
    expect(last.data).toMatchObject({ type: 'CREATED', id: seen });
    first.close();

    // While away: more of another team's writes than one reconnection replays, then one of hers.
    await t.database.prisma.$executeRaw`
      INSERT INTO tasks (id, team_id, user_id, title, status, priority, estimated_hours, completed, updated_at)
      SELECT gen_random_uuid(), ${bob.activeTeamId}::uuid, ${bob.id}::uuid, 'bulk ' || i, 'todo', 'medium', 0, false, now()
        FROM generate_series(1, ${replayLimit + 500}) AS i`;
    const missed = (await t.json('POST', '/api/v1/tasks', { title: 'Missed' }, as(alice))).body.data.id;

    const again = await subscribe('/api/v1/tasks/events', { ...as(alice), 'last-event-id': last.id! });
    const replayed = await rest(again, new Set([last.id!]));
    expect(replayed.map((e) => [e.data.type, e.data.id])).toEqual([['CREATED', missed]]);
  }, 120_000);

  it('of an anonymous subscriber reads the public events of every team, and only those', async () => {
    const post = (u: SignedUpUser, status: string) => t.json('POST', '/api/v1/posts', { title: status, slug: `${status}-${randomBytes(4).toString('hex')}`, status }, as(u));
    const first = await subscribe('/api/v1/posts/events', {});
    const before = (await post(alice, 'published')).body.data.id;
    const last = await first.next();
    expect(last.data).toMatchObject({ type: 'CREATED', id: before });
    first.close();

    const drafts = [(await post(alice, 'draft')).body.data.id, (await post(bob, 'draft')).body.data.id];
    const published = [(await post(bob, 'published')).body.data.id, (await post(alice, 'published')).body.data.id];
    const again = await subscribe('/api/v1/posts/events', { 'last-event-id': last.id! });
    const replayed = await rest(again, new Set([last.id!]));
    expect(replayed.map((e) => [e.data.type, e.data.id])).toEqual(published.map((id) => ['CREATED', id]));
    expect(JSON.stringify(replayed)).not.toContain(drafts[0]);
    expect(JSON.stringify(replayed)).not.toContain(drafts[1]);
  });
});
