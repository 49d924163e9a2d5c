// A relation whose record the caller cannot see shows null, its id as well as its record (issue 36):
// a member's shared project names the member's private task as its milestone; the teammates see the
// project with `milestoneId: null` and `milestone: null` on every face (REST LIST, READ, expand and a
// write's answer; GraphQL lists, reads, reverse sides and many-to-many sides; realtime events), while
// the task's creator sees the id everywhere. Many-to-many ids (`taskIds`) are filtered alike. Reading
// those relations costs statements per page, not per record. On PGlite and, with TEST_DATABASE_URL,
// PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { openEventStream, type SseClient } from '../../testkit/event-stream.js';
import { countStatements } from '../../testkit/statements.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
/** Owner of the team and creator of the private task; `mate` a member of the same team. */
let owner: SignedUpUser;
let mate: SignedUpUser;
const as = (u: SignedUpUser) => ({ cookie: u.cookie });
const streams: SseClient[] = [];

let secret: Row; // the owner's private task
let mateTask: Row; // the mate's own task, linked to the project too
let customer: Row;
let project: Row; // shared, names the secret task as milestone
let sub: Row; // a sub-project of `project`, for expand=parentProject

async function write(u: SignedUpUser, method: string, path: string, body?: unknown): Promise<Row> {
  const res = await t.json(method, path, body, as(u));
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body.data;
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t);
  mate = await signUp(t);
  await joinTeam(t, owner, owner.activeTeamId, mate);
  secret = await write(owner, 'POST', '/api/v1/tasks', { title: 'Secret milestone' });
  mateTask = await write(mate, 'POST', '/api/v1/tasks', { title: 'Mate task' });
  customer = await write(owner, 'POST', '/api/v1/customers', { name: 'Acme', account: 1, office: 'Madrid' });
  project = await write(owner, 'POST', '/api/v1/projects', { name: 'Launch', customerId: customer.id, milestoneId: secret.id, taskIds: [secret.id] });
  await write(mate, 'PATCH', `/api/v1/projects/${project.id}`, { taskIds: [mateTask.id] });
  sub = await write(owner, 'POST', '/api/v1/projects', { name: 'Launch, part 1', parentProjectId: project.id });
}, 240_000);
afterAll(async () => {
  for (const s of streams) s.close();
  await t?.close();
});

/** The ids a user must see on the project: the milestone's, and each linked task's, only when the task is theirs. */
const seenBy = (u: SignedUpUser) => (u === owner ? { milestoneId: secret.id, taskIds: [secret.id] } : { milestoneId: null, taskIds: [mateTask.id] });

describe('REST', () => {
  it.each([['owner'], ['mate']])('LIST, READ, expand and fields show the %s the milestone’s id only when the task is theirs', async (who) => {
    const u = who === 'owner' ? owner : mate;
    const expected = seenBy(u);
    const list = await t.json('GET', '/api/v1/projects?limit=100', undefined, as(u));
    expect(list.body.data.find((p: Row) => p.id === project.id)).toMatchObject({ ...expected, customerId: customer.id });
    const read = await t.json('GET', `/api/v1/projects/${project.id}?expand=milestone,customer`, undefined, as(u));
    expect(read.body.data).toMatchObject({ ...expected, customerId: customer.id, customer: { id: customer.id } });
    expect(read.body.data.milestone).toEqual(u === owner ? expect.objectContaining({ id: secret.id }) : null);
    const picked = await t.json('GET', `/api/v1/projects?ids=${project.id}&fields=milestoneId,name`, undefined, as(u));
    expect(picked.body.data).toEqual([{ milestoneId: expected.milestoneId, name: 'Launch' }]);
    // The project read as another record's related record.
    const expanded = await t.json('GET', `/api/v1/projects/${sub.id}?expand=parentProject`, undefined, as(u));
    expect(expanded.body.data.parentProject).toMatchObject({ id: project.id, milestoneId: expected.milestoneId });
  });

  it('a teammate’s write answers null for the milestone, and leaves it in place for its creator', async () => {
    const changed = await write(mate, 'PATCH', `/api/v1/projects/${project.id}`, { budget: 10 });
    expect(changed).toMatchObject({ budget: 10, milestoneId: null });
    expect((await t.json('GET', `/api/v1/projects/${project.id}`, undefined, as(owner))).body.data.milestoneId).toBe(secret.id);
  });
});

describe('GraphQL', () => {
  const selection = 'id milestoneId milestone { id } taskIds';
  it.each([['owner'], ['mate']])('lists, reads, reverse and many-to-many sides show the %s the id only when the task is theirs', async (who) => {
    const u = who === 'owner' ? owner : mate;
    const { milestoneId, taskIds } = seenBy(u);
    const expected = { id: project.id, milestoneId, milestone: milestoneId ? { id: milestoneId } : null, taskIds };
    const query = `query($id: ID!, $customer: ID!, $task: ID!) {
      projects(ids: [$id]) { items { ${selection} } }
      project(id: $id) { ${selection} }
      customer(id: $customer) { projects { ${selection} } }
      task(id: $task) { projects { ${selection} } }
    }`;
    // Each reads the project from a task of their own that it links.
    const res = await t.graphql(query, { id: project.id, customer: customer.id, task: u === owner ? secret.id : mateTask.id }, as(u));
    expect(res.body.errors).toBeUndefined();
    const { data } = res.body;
    expect(data.projects.items).toEqual([expected]);
    expect(data.project).toEqual(expected);
    expect(data.customer.projects).toEqual([expected]);
    expect(data.task.projects).toEqual([expected]);
  });
});

describe('realtime', () => {
  it('an event of the project carries the milestone’s id to its creator only', async () => {
    const streamOf = async (u: SignedUpUser) => {
      const stream = await openEventStream(`${t.origin}/api/v1/projects/events?ids=${project.id}`, as(u));
      expect(stream.status, JSON.stringify(stream.refusal)).toBe(200);
      streams.push(stream);
      return stream;
    };
    const [mine, theirs] = [await streamOf(owner), await streamOf(mate)];
    await write(owner, 'PATCH', `/api/v1/projects/${project.id}`, { name: 'Launch!' });
    const [a, b] = [await mine.next(), await theirs.next()];
    expect(a.data).toMatchObject({ type: 'UPDATED', id: project.id, record: { name: 'Launch!', ...seenBy(owner) } });
    expect(b.data).toMatchObject({ type: 'UPDATED', id: project.id, record: { name: 'Launch!', ...seenBy(mate) } });
  });
});

describe('cost', () => {
  /** Statements of one GET as the mate: the fewest of three runs after a first (caches). */
  async function statementsOf(path: string, rows: number): Promise<number> {
    await t.json('GET', path, undefined, as(mate));
    const counts: number[] = [];
    for (let run = 0; run < 3; run++) {
      const counter = countStatements();
      try {
        const res = await t.json('GET', path, undefined, as(mate));
        expect(res.body.data).toHaveLength(rows);
        expect(res.body.data.every((p: Row) => p.milestoneId === null)).toBe(true);
        counts.push(counter.statements());
      } finally {
        counter.stop();
      }
    }
    return Math.min(...counts);
  }

  it('hides the ids of a page with statements per page, not per record', async () => {
    const milestones = await Promise.all(Array.from({ length: 8 }, (_, i) => write(owner, 'POST', '/api/v1/tasks', { title: `Milestone ${i}` })));
    for (const m of milestones) await write(owner, 'POST', '/api/v1/projects', { name: `Costed ${m.title}`, milestoneId: m.id });
    const path = (limit: number) => `/api/v1/projects?limit=${limit}&search=Costed`;
    expect(await statementsOf(path(2), 2)).toBe(await statementsOf(path(8), 8));
  });
});
