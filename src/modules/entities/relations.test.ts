// Relations (many-to-one, the shipped example src/config/entities/projects.ts) as clients see them:
// writes name only records the caller can see in its team (422 otherwise, the same answer whether the
// record exists in another team or nowhere), onDelete is the database's (restrict, cascade, setNull,
// also across another user's private rows), reads give the related record through GraphQL and REST
// `expand` (null for one the caller cannot see, a 403 without the target's read scope), and LIST
// filters through a relation. On PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { countStatements } from '../../testkit/statements.js';
import { joinTeam } from '../../testkit/teams.js';

type Row = Record<string, any>;
let t: TestApp;
/** Owner of the team; `mate` a member of it; `stranger` of another team. */
let owner: SignedUpUser;
let mate: SignedUpUser;
let stranger: SignedUpUser;
const as = (u: SignedUpUser) => ({ cookie: u.cookie });
let account = 1000;

async function customer(u: SignedUpUser, office = 'Madrid'): Promise<Row> {
  const res = await t.json('POST', '/api/v1/customers', { name: `Customer ${account}`, account: account++, office }, as(u));
  expect(res.status).toBe(201);
  return res.body.data;
}

async function project(u: SignedUpUser, body: Row): Promise<Row> {
  const res = await t.json('POST', '/api/v1/projects', { name: 'Project', ...body }, as(u));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

async function task(u: SignedUpUser, title: string): Promise<Row> {
  return (await t.json('POST', '/api/v1/tasks', { title }, as(u))).body.data;
}

/**
 * The SQL statements one run of `query` costs as the owner: the fewest of three runs after a first
 * (prepared statements, caches; a cached session that expires between runs on a loaded machine costs
 * its lookup once more).
 */
async function statementsOf(query: string, check: (body: Row) => void): Promise<number> {
  await t.graphql(query, {}, as(owner));
  const counts: number[] = [];
  for (let run = 0; run < 3; run++) {
    const counter = countStatements();
    try {
      const res = await t.graphql(query, {}, as(owner));
      expect(res.body.errors).toBeUndefined();
      check(res.body);
      counts.push(counter.statements());
    } finally {
      counter.stop();
    }
  }
  return Math.min(...counts);
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t);
  mate = await signUp(t);
  stranger = await signUp(t);
  await joinTeam(t, owner, owner.activeTeamId, mate);
});
afterAll(() => t?.close());

describe('writes', () => {
  it('relates records of the team, through REST and GraphQL, and clears a relation with null', async () => {
    const acme = await customer(owner);
    const parent = await project(mate, { name: 'Parent' });
    const mine = await task(owner, 'Kick-off');
    const created = await project(owner, { customerId: acme.id, parentProjectId: parent.id, milestoneId: mine.id });
    expect(created).toMatchObject({ customerId: acme.id, parentProjectId: parent.id, milestoneId: mine.id });

    const gql = await t.graphql('mutation($input: CreateProjectInput!) { createProject(input: $input) { id customerId customer { name } } }', { input: { name: 'Typed', customerId: acme.id } }, as(mate));
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.createProject).toMatchObject({ customerId: acme.id, customer: { name: acme.name } });

    const cleared = await t.json('PATCH', `/api/v1/projects/${created.id}`, { customerId: null }, as(owner));
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.customerId).toBeNull();
  });

  it('refuses another team’s record and a record that does not exist alike, with 422, writing nothing', async () => {
    const theirs = await customer(stranger);
    const before = (await t.json('GET', '/api/v1/projects?limit=1', undefined, as(owner))).body.pagination.total;
    const foreign = await t.json('POST', '/api/v1/projects', { name: 'X', customerId: theirs.id }, as(owner));
    const missing = await t.json('POST', '/api/v1/projects', { name: 'X', customerId: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b' }, as(owner));
    expect(foreign.status).toBe(422);
    expect(missing.status).toBe(422);
    expect(foreign.body).toEqual(missing.body);
    expect(foreign.body.details).toEqual({ customerId: 'must be the id of a customers record you can see in this team' });
    expect((await t.json('GET', '/api/v1/projects?limit=1', undefined, as(owner))).body.pagination.total).toBe(before);

    const notAnId = await t.json('POST', '/api/v1/projects', { name: 'X', customerId: 'acme' }, as(owner));
    expect(notAnId.status).toBe(422);
    const gql = await t.graphql('mutation($id: ID!) { createProject(input: { name: "X", customerId: $id }) { id } }', { id: theirs.id }, as(owner));
    expect(gql.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    const existing = await project(owner, { name: 'Kept' });
    expect((await t.json('PATCH', `/api/v1/projects/${existing.id}`, { customerId: theirs.id }, as(owner))).status).toBe(422);
    expect((await t.json('GET', `/api/v1/projects/${existing.id}`, undefined, as(owner))).body.data.customerId).toBeNull();
  });

  it('refuses a teammate’s private task: tasks are their creator’s alone', async () => {
    const theirs = await task(owner, 'Private');
    const res = await t.json('POST', '/api/v1/projects', { name: 'X', milestoneId: theirs.id }, as(mate));
    expect(res.status).toBe(422);
    expect(res.body.details).toHaveProperty('milestoneId');
  });
});

describe('onDelete, in the database', () => {
  it('restrict: a customer with projects cannot be deleted (409) until none names it', async () => {
    const acme = await customer(owner);
    const p = await project(mate, { customerId: acme.id });
    const refused = await t.json('DELETE', `/api/v1/customers/${acme.id}`, undefined, as(owner));
    expect(refused.status).toBe(409);
    expect(refused.body.success).toBe(false);
    expect((await t.json('GET', `/api/v1/customers/${acme.id}`, undefined, as(owner))).status).toBe(200);
    await t.json('PATCH', `/api/v1/projects/${p.id}`, { customerId: null }, as(mate));
    expect((await t.json('DELETE', `/api/v1/customers/${acme.id}`, undefined, as(owner))).status).toBe(200);
  });

  it('cascade: sub-projects go with their parent, whoever created them', async () => {
    const parent = await project(owner, { name: 'Parent' });
    const child = await project(mate, { name: 'Child', parentProjectId: parent.id });
    const grandchild = await project(owner, { name: 'Grandchild', parentProjectId: child.id });
    expect((await t.json('DELETE', `/api/v1/projects/${parent.id}`, undefined, as(owner))).status).toBe(200);
    for (const gone of [child, grandchild]) expect((await t.json('GET', `/api/v1/projects/${gone.id}`, undefined, as(owner))).status).toBe(404);
  });

  it('setNull: deleting a private task clears the milestone of the team’s project', async () => {
    const milestone = await task(owner, 'Milestone');
    const p = await project(owner, { milestoneId: milestone.id });
    expect((await t.json('DELETE', `/api/v1/tasks/${milestone.id}`, undefined, as(owner))).status).toBe(200);
    expect((await t.json('GET', `/api/v1/projects/${p.id}`, undefined, as(mate))).body.data.milestoneId).toBeNull();
  });
});

describe('reads', () => {
  let acme: Row;
  let milestone: Row;
  let p: Row;
  beforeAll(async () => {
    acme = await customer(owner, 'Lisboa');
    milestone = await task(owner, 'Owner’s milestone');
    const parent = await project(owner, { name: 'Programme' });
    p = await project(owner, { name: 'Read me', customerId: acme.id, parentProjectId: parent.id, milestoneId: milestone.id });
  });

  it('GraphQL selects the related records; a record the caller cannot see is null', async () => {
    const query = `{ projects(ids: ["${p.id}"]) { items { name customer { name office notes { body } } parentProject { name } milestone { title } } } }`;
    const mine = await t.graphql(query, {}, as(owner));
    expect(mine.body.errors).toBeUndefined();
    expect(mine.body.data.projects.items).toEqual([{ name: 'Read me', customer: { name: acme.name, office: 'Lisboa', notes: [] }, parentProject: { name: 'Programme' }, milestone: { title: 'Owner’s milestone' } }]);
    const theirs = await t.graphql(query, {}, as(mate));
    expect(theirs.body.errors).toBeUndefined();
    expect(theirs.body.data.projects.items[0].milestone).toBeNull();
    expect(theirs.body.data.projects.items[0].customer.name).toBe(acme.name);
  });

  it('REST expand gives the related records inline, and fields may name their members', async () => {
    const read = await t.json('GET', `/api/v1/projects/${p.id}?expand=customer,milestone`, undefined, as(mate));
    expect(read.status).toBe(200);
    expect(read.body.data.customer).toMatchObject({ id: acme.id, name: acme.name, office: 'Lisboa', account: acme.account });
    expect(read.body.data.milestone).toBeNull();
    expect(read.body.data).not.toHaveProperty('parentProject');

    const picked = await t.json('GET', `/api/v1/projects?ids=${p.id}&fields=name,customer.name`, undefined, as(owner));
    expect(picked.status).toBe(200);
    expect(picked.body.data).toEqual([{ name: 'Read me', customer: { name: acme.name } }]);

    const unknown = await t.json('GET', `/api/v1/projects?expand=owner`, undefined, as(owner));
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.errors[0].path).toBe('expand');

    // A selection is worked out once and remembered (list-params.ts): asked again, by LIST or READ, the same answer and the same refusal.
    expect((await t.json('GET', `/api/v1/projects?ids=${p.id}&fields=name,customer.name`, undefined, as(owner))).body.data).toEqual(picked.body.data);
    expect((await t.json('GET', `/api/v1/projects/${p.id}?fields=name,customer.name`, undefined, as(owner))).body.data).toEqual(picked.body.data[0]);
    const again = await t.json('GET', `/api/v1/projects/${p.id}?expand=owner`, undefined, as(owner));
    expect(again.status).toBe(400);
    expect(again.body.details.errors).toEqual(unknown.body.details.errors);
  });

  it('asks the related entity’s read scope: a projects-only key reads projects but not their customers', async () => {
    const key = await t.json('POST', '/api/v1/api-keys', { name: 'projects only', scopes: ['projects:read'] }, as(owner));
    expect(key.status).toBe(201);
    const bearer = { authorization: `Bearer ${key.body.data.key}` };
    expect((await t.json('GET', `/api/v1/projects/${p.id}`, undefined, bearer)).status).toBe(200);
    const expanded = await t.json('GET', `/api/v1/projects/${p.id}?expand=customer`, undefined, bearer);
    expect(expanded.status).toBe(403);
  });
});

describe('filters through a relation', () => {
  let madrid: Row;
  let paris: Row;
  beforeAll(async () => {
    madrid = await customer(owner, 'Filter-Madrid');
    paris = await customer(owner, 'Filter-Paris');
    await project(owner, { name: 'F1', customerId: madrid.id });
    await project(owner, { name: 'F2', customerId: paris.id });
    await project(owner, { name: 'F3' });
  });
  const names = (rows: Row[]) => rows.map((r) => r.name).filter((n: string) => /^F\d$/.test(n)).sort();

  it('GraphQL where names the related record’s fields, and the relation’s id by operators', async () => {
    const by = async (where: string) => names((await t.graphql(`{ projects(limit: 100, where: ${where}) { items { name } } }`, {}, as(owner))).body.data.projects.items);
    expect(await by('{ customer: { office: { eq: "Filter-Madrid" } } }')).toEqual(['F1']);
    expect(await by('{ customer: { office: { startsWith: "Filter-" } } }')).toEqual(['F1', 'F2']);
    expect(await by('{ NOT: { customer: { office: { eq: "Filter-Madrid" } } } }')).toContain('F3');
    expect(await by(`{ customerId: { in: ["${paris.id}"] } }`)).toEqual(['F2']);
    expect(await by('{ customerId: { isNull: true } }')).toEqual(['F3']);
  });

  it('counts a total through a relation afresh: a change of the related record changes it', async () => {
    const movable = await customer(owner, 'Filter-Moving');
    await project(owner, { name: 'F4', customerId: movable.id });
    const total = async () => (await t.graphql('{ projects(where: { customer: { office: { eq: "Filter-Moving" } } }) { total } }', {}, as(owner))).body.data.projects.total;
    expect(await total()).toBe(1);
    expect(await total()).toBe(1);
    expect((await t.json('PATCH', `/api/v1/customers/${movable.id}`, { office: 'Filter-Moved' }, as(owner))).status).toBe(200);
    expect(await total()).toBe(0);
  });

  it('REST takes the same as filter=<JSON>, the relation’s id by {field}= and operators', async () => {
    const by = async (query: string) => {
      const res = await t.json('GET', `/api/v1/projects?limit=100&${query}`, undefined, as(owner));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return names(res.body.data);
    };
    expect(await by(`filter=${encodeURIComponent(JSON.stringify({ customer: { office: { eq: 'Filter-Paris' } } }))}`)).toEqual(['F2']);
    expect(await by(`customerId=${madrid.id}`)).toEqual(['F1']);
    expect(await by(`customerId[in]=${madrid.id},${paris.id}`)).toEqual(['F1', 'F2']);
    // Filtering by a customer's office reads customers: the key needs customers' read scope too.
    const key = async (scopes: string[]) => ({ authorization: `Bearer ${(await t.json('POST', '/api/v1/api-keys', { name: scopes.join(' '), scopes }, as(owner))).body.data.key}` });
    const byOffice = `/api/v1/projects?filter=${encodeURIComponent(JSON.stringify({ customer: { office: { eq: 'Filter-Paris' } } }))}`;
    expect((await t.json('GET', byOffice, undefined, await key(['projects:read']))).status).toBe(403);
    expect((await t.json('GET', `/api/v1/projects?customerId=${paris.id}`, undefined, await key(['projects:read']))).status).toBe(200);
    const both = await t.json('GET', byOffice, undefined, await key(['projects:read', 'customers:read']));
    expect(both.status).toBe(200);
    expect(names(both.body.data)).toEqual(['F2']);
    const bad = await t.json('GET', '/api/v1/projects?customerId=acme', undefined, as(owner));
    expect(bad.status).toBe(400);
    const deep = await t.json('GET', `/api/v1/projects?filter=${encodeURIComponent(JSON.stringify({ customer: { phone: { eq: 'x' } } }))}`, undefined, as(owner));
    expect(deep.status).toBe(400);
  });
});

describe('reverse sides (one-to-many)', () => {
  const customers: Row[] = [];
  beforeAll(async () => {
    for (const office of ['Reverse-A', 'Reverse-B', 'Reverse-C']) customers.push(await customer(owner, office));
    const [a, b] = customers;
    await project(owner, { name: 'R-a1', customerId: a!.id, status: 'active', budget: 10 });
    await project(mate, { name: 'R-a2', customerId: a!.id, status: 'done', budget: 30 });
    await project(owner, { name: 'R-a3', customerId: a!.id, status: 'active', budget: 20 });
    await project(owner, { name: 'R-b1', customerId: b!.id, status: 'done', budget: 5 });
  });
  const byOffice = (rows: Row[]) => Object.fromEntries(rows.map((c) => [c.office, c.projects.map((p: Row) => p.name)]));

  it('Customer.projects lists each customer’s projects, filtered, sorted and limited per customer', async () => {
    const res = await t.graphql(
      `{ customers(limit: 100, where: { office: { startsWith: "Reverse-" } }, sortBy: office, sortOrder: asc) { items { office projects(sortBy: budget, sortOrder: desc, limit: 2) { name budget customer { office } } } } }`,
      {},
      as(mate),
    );
    expect(res.body.errors).toBeUndefined();
    const items = res.body.data.customers.items;
    expect(byOffice(items)).toEqual({ 'Reverse-A': ['R-a2', 'R-a3'], 'Reverse-B': ['R-b1'], 'Reverse-C': [] });
    expect(items[0].projects[0]).toEqual({ name: 'R-a2', budget: 30, customer: { office: 'Reverse-A' } });

    const active = await t.graphql(`{ customers(limit: 100, where: { office: { startsWith: "Reverse-" } }, sortBy: office, sortOrder: asc) { items { office projects(where: { status: { eq: ACTIVE } }) { name } } } }`, {}, as(owner));
    expect(byOffice(active.body.data.customers.items)).toEqual({ 'Reverse-A': ['R-a3', 'R-a1'], 'Reverse-B': [], 'Reverse-C': [] });
    const tooMany = await t.graphql(`{ customers { items { projects(limit: 101) { name } } } }`, {}, as(owner));
    expect(tooMany.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });

  it('loads every record’s reverse side in one statement, whatever the page size', async () => {
    for (let i = 0; i < 6; i++) await project(owner, { name: `R-many${i}`, customerId: (await customer(owner, 'Reverse-Many')).id });
    const statements = (limit: number) =>
      statementsOf(`{ customers(limit: ${limit}, where: { office: { startsWith: "Reverse-" } }) { items { name projects(limit: 3) { name subProjects { name } } } } }`, (body) => expect(body.data.customers.items.length).toBe(limit));
    expect(await statements(2)).toBe(await statements(8));
  });

  it('shows only referring records the caller can see: another team’s never, a private entity’s the creator’s alone', async () => {
    const [a] = customers;
    // Tasks are private: Task.projects names projects (shared), visible to the whole team.
    const milestone = await task(owner, 'Reverse milestone');
    await project(owner, { name: 'R-milestone', milestoneId: milestone.id });
    const read = await t.graphql(`query($id: ID!) { task(id: $id) { milestoneOfProjects { name milestone { title } } } }`, { id: milestone.id }, as(owner));
    expect(read.body.data.task.milestoneOfProjects).toEqual([{ name: 'R-milestone', milestone: { title: 'Reverse milestone' } }]);
    // The mate sees the project, but the task is not theirs: its milestone is null to them.
    const seen = await t.graphql(`{ projects(limit: 100) { items { name milestone { title } } } }`, {}, as(mate));
    expect(seen.body.data.projects.items.find((p: Row) => p.name === 'R-milestone')).toEqual({ name: 'R-milestone', milestone: null });
    const theirs = await t.graphql(`query($id: ID!) { customer(id: $id) { name projects { name } } }`, { id: a!.id }, as(stranger));
    expect(theirs.body.errors[0].extensions.code).toBe('NOT_FOUND');
    // A key with customers' scope alone cannot list the projects beneath.
    const key = await t.json('POST', '/api/v1/api-keys', { name: 'customers only', scopes: ['customers:read'] }, as(owner));
    const bearer = { authorization: `Bearer ${key.body.data.key}` };
    const scoped = await t.graphql(`query($id: ID!) { customer(id: $id) { name projects { name } } }`, { id: a!.id }, bearer);
    expect(scoped.body.data?.customer?.projects ?? null).toBeNull();
    expect(scoped.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('filters by the referring records: some, none, every (true with none), and asks their read scope', async () => {
    const offices = async (where: string) => {
      const res = await t.graphql(`{ customers(limit: 100, where: { AND: [{ office: { startsWith: "Reverse-" } }, { office: { ne: "Reverse-Many" } }, ${where}] }) { items { office } } }`, {}, as(owner));
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      return res.body.data.customers.items.map((c: Row) => c.office).sort();
    };
    expect(await offices('{ projects: { some: { status: { eq: ACTIVE } } } }')).toEqual(['Reverse-A']);
    expect(await offices('{ projects: { some: {} } }')).toEqual(['Reverse-A', 'Reverse-B']);
    expect(await offices('{ projects: { none: { status: { eq: DONE } } } }')).toEqual(['Reverse-C']);
    expect(await offices('{ projects: { every: { status: { eq: DONE } } } }')).toEqual(['Reverse-B', 'Reverse-C']);
    expect(await offices('{ projects: { every: { budget: { gte: 10 } }, some: {} } }')).toEqual(['Reverse-A']);
    expect(await offices('{ NOT: { projects: { some: { budget: { eq: 5 } } } } }')).toEqual(['Reverse-A', 'Reverse-C']);

    const rest = await t.json('GET', `/api/v1/customers?limit=100&filter=${encodeURIComponent(JSON.stringify({ office: { startsWith: 'Reverse-' }, projects: { some: { budget: { gt: 25 } } } }))}`, undefined, as(owner));
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect(rest.body.data.map((c: Row) => c.office)).toEqual(['Reverse-A']);
    const key = await t.json('POST', '/api/v1/api-keys', { name: 'customers only', scopes: ['customers:read'] }, as(owner));
    const refused = await t.json('GET', `/api/v1/customers?filter=${encodeURIComponent(JSON.stringify({ projects: { some: {} } }))}`, undefined, { authorization: `Bearer ${key.body.data.key}` });
    expect(refused.status).toBe(403);
  });
});

describe('many-to-many (projects ↔ tasks)', () => {
  let mine: Row[];
  let matesTask: Row;
  beforeAll(async () => {
    mine = [await task(owner, 'M2M one'), await task(owner, 'M2M two'), await task(owner, 'M2M three')];
    matesTask = await task(mate, 'M2M mate’s');
  });

  it('writes a set of ids (REST and GraphQL), answers the ids the caller can see, and replaces only those on update', async () => {
    const created = await project(owner, { name: 'M2M', taskIds: [mine[0]!.id, mine[1]!.id, mine[0]!.id] });
    expect([...created.taskIds].sort()).toEqual([mine[0]!.id, mine[1]!.id].sort());
    // The mate adds their own task: the owner's private tasks stay linked, unseen by the mate.
    const matesView = await t.json('PATCH', `/api/v1/projects/${created.id}`, { taskIds: [matesTask.id] }, as(mate));
    expect(matesView.status, JSON.stringify(matesView.body)).toBe(200);
    expect(matesView.body.data.taskIds).toEqual([matesTask.id]);
    const ownersView = await t.json('GET', `/api/v1/projects/${created.id}`, undefined, as(owner));
    expect([...ownersView.body.data.taskIds].sort()).toEqual([mine[0]!.id, mine[1]!.id].sort());

    const gql = await t.graphql('mutation($id: ID!, $ids: [ID!]) { updateProject(id: $id, input: { taskIds: $ids }) { taskIds tasks(sortBy: createdAt, sortOrder: asc) { title } } }', { id: created.id, ids: [mine[2]!.id, mine[1]!.id] }, as(owner));
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.updateProject.tasks.map((x: Row) => x.title)).toEqual(['M2M two', 'M2M three']);
    const cleared = await t.json('PATCH', `/api/v1/projects/${created.id}`, { taskIds: null }, as(owner));
    expect(cleared.body.data.taskIds).toEqual([]);
    expect((await t.json('GET', `/api/v1/projects/${created.id}`, undefined, as(mate))).body.data.taskIds).toEqual([matesTask.id]);
  });

  it('refuses ids of records the caller cannot see (another user’s private task, another team’s, none) alike, with 422, writing nothing', async () => {
    const theirs = await task(stranger, 'Stranger’s');
    for (const id of [matesTask.id, theirs.id, '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b']) {
      const res = await t.json('POST', '/api/v1/projects', { name: 'M2M refused', taskIds: [mine[0]!.id, id] }, as(owner));
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual({ taskIds: 'must be ids of tasks records you can see in this team' });
    }
    const names = (await t.json('GET', '/api/v1/projects?limit=100', undefined, as(owner))).body.data.map((p: Row) => p.name);
    expect(names).not.toContain('M2M refused');
    const tooMany = await t.json('POST', '/api/v1/projects', { name: 'X', taskIds: Array.from({ length: 101 }, () => mine[0]!.id) }, as(owner));
    expect(tooMany.status).toBe(422);
  });

  it('reads both ways for a whole page in one statement, and deleting either end removes the link', async () => {
    const a = await project(owner, { name: 'M2M-a', taskIds: [mine[0]!.id, mine[1]!.id] });
    await project(owner, { name: 'M2M-b', taskIds: [mine[1]!.id] });
    const back = await t.graphql(`query($ids: [ID!]) { tasks(ids: $ids, sortBy: createdAt, sortOrder: asc) { items { title projects(sortBy: name, sortOrder: asc, limit: 100) { name taskIds } } } }`, { ids: [mine[0]!.id, mine[1]!.id] }, as(owner));
    expect(back.body.errors).toBeUndefined();
    expect(back.body.data.tasks.items[0].projects.find((p: Row) => p.name === 'M2M-a').taskIds.sort()).toEqual([mine[0]!.id, mine[1]!.id].sort());
    expect(back.body.data.tasks.items.map((x: Row) => [x.title, x.projects.map((p: Row) => p.name).filter((n: string) => n.startsWith('M2M-'))])).toEqual([
      ['M2M one', ['M2M-a']],
      ['M2M two', ['M2M-a', 'M2M-b']],
    ]);
    const statements = (limit: number) => statementsOf(`{ projects(limit: ${limit}) { items { name taskIds tasks(limit: 2) { title projects(limit: 2) { name } } } } }`, (body) => expect(body.data.projects.items.length).toBe(limit));
    expect(await statements(2)).toBe(await statements(10));

    expect((await t.json('DELETE', `/api/v1/tasks/${mine[0]!.id}`, undefined, as(owner))).status).toBe(200);
    expect((await t.json('GET', `/api/v1/projects/${a.id}`, undefined, as(owner))).body.data.taskIds).toEqual([mine[1]!.id]);
    expect((await t.json('DELETE', `/api/v1/projects/${a.id}`, undefined, as(owner))).status).toBe(200);
    const left = await t.graphql(`query($id: ID!) { task(id: $id) { projects { name } } }`, { id: mine[1]!.id }, as(owner));
    expect(left.body.data.task.projects.map((p: Row) => p.name)).toEqual(['M2M-b']);
    mine.shift();
  });

  it('REST expands the linked records (fields may name their members), and OpenAPI documents the set', async () => {
    const linked = await project(owner, { name: 'M2M-expand', taskIds: [mine[0]!.id] });
    const read = await t.json('GET', `/api/v1/projects/${linked.id}?expand=tasks,customer`, undefined, as(owner));
    expect(read.status).toBe(200);
    expect(read.body.data.tasks).toEqual([expect.objectContaining({ id: mine[0]!.id, title: mine[0]!.title })]);
    expect(read.body.data.customer).toBeNull();
    const picked = await t.json('GET', `/api/v1/projects?ids=${linked.id}&fields=name,taskIds,tasks.title`, undefined, as(owner));
    expect(picked.body.data).toEqual([{ name: 'M2M-expand', taskIds: [mine[0]!.id], tasks: [{ title: mine[0]!.title }] }]);
    expect((await t.json('GET', `/api/v1/projects/${linked.id}?expand=tasks`, undefined, as(mate))).body.data.tasks).toEqual([]);
    const doc = (await t.json('GET', '/api/v1/openapi.json')).body;
    expect(doc.components.schemas.Project.properties.taskIds).toMatchObject({ type: 'array', items: { format: 'uuid' } });
    expect(doc.components.schemas.CreateProjectInput.properties.taskIds).toMatchObject({ type: ['array', 'null'], maxItems: 100 });
    expect(doc.components.schemas.Project.properties.tasks).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/Task' } });
  });

  it('a task deleted while projects link it: each create is 201 with the link or 422, never a dangling link', async () => {
    for (let round = 0; round < 3; round++) {
      const doomed = await task(owner, `Doomed ${round}`);
      const creates = Array.from({ length: 5 }, (_, i) => t.json('POST', '/api/v1/projects', { name: `Race-link ${round}.${i}`, taskIds: [doomed.id] }, as(owner)));
      const [removed, ...made] = await Promise.all([t.json('DELETE', `/api/v1/tasks/${doomed.id}`, undefined, as(owner)), ...creates]);
      expect(removed.status).toBe(200);
      for (const res of made) expect([201, 422]).toContain(res.status);
      for (const res of made.filter((r) => r.status === 201)) {
        expect((await t.json('GET', `/api/v1/projects/${res.body.data.id}`, undefined, as(owner))).body.data.taskIds).toEqual([]);
      }
    }
  });

  it('filters by linked records with some/none/every, both ways', async () => {
    const urgent = await task(owner, 'M2M urgent');
    await t.json('PATCH', `/api/v1/tasks/${urgent.id}`, { priority: 'urgent' }, as(owner));
    await project(owner, { name: 'M2M-urgent', budget: 7, taskIds: [urgent.id, mine[0]!.id] });
    await project(owner, { name: 'M2M-calm', taskIds: [mine[0]!.id] });
    await project(owner, { name: 'M2M-empty' });
    const names = async (where: string) => {
      const res = await t.graphql(`{ projects(limit: 100, where: ${where}) { items { name } } }`, {}, as(owner));
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      return res.body.data.projects.items.map((p: Row) => p.name).filter((n: string) => ['M2M-urgent', 'M2M-calm', 'M2M-empty'].includes(n)).sort();
    };
    expect(await names('{ tasks: { some: { priority: { eq: URGENT } } } }')).toEqual(['M2M-urgent']);
    expect(await names('{ tasks: { none: { priority: { eq: URGENT } } } }')).toEqual(['M2M-calm', 'M2M-empty']);
    expect(await names('{ tasks: { every: { priority: { eq: MEDIUM } } } }')).toEqual(['M2M-calm', 'M2M-empty']);
    const tasksOf = await t.graphql(`{ tasks(limit: 100, sortBy: createdAt, sortOrder: asc, where: { projects: { some: { budget: { eq: 7 } } } }) { items { title } } }`, {}, as(owner));
    expect(tasksOf.body.errors).toBeUndefined();
    expect(tasksOf.body.data.tasks.items.map((x: Row) => x.title)).toEqual([mine[0]!.title, 'M2M urgent']);
    const rest = await t.json('GET', `/api/v1/projects?limit=100&filter=${encodeURIComponent(JSON.stringify({ tasks: { some: { priority: { eq: 'urgent' } } } }))}`, undefined, as(owner));
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect(rest.body.data.map((p: Row) => p.name)).toContain('M2M-urgent');
    expect(rest.body.data.map((p: Row) => p.name)).not.toContain('M2M-calm');
    // The mate sees none of the owner's tasks: for them no project has an urgent one.
    const matesView = await t.graphql(`{ projects(limit: 100, where: { tasks: { some: { priority: { eq: URGENT } } } }) { items { name } } }`, {}, as(mate));
    expect(matesView.body.data.projects.items).toEqual([]);
  });
});

describe('at the same moment', () => {
  it('a customer deleted while projects naming it are created: each create is 201 or 422, the delete 200 only when none remains', async () => {
    for (let round = 0; round < 3; round++) {
      const acme = await customer(owner);
      const creates = Array.from({ length: 6 }, (_, i) => t.json('POST', '/api/v1/projects', { name: `Race ${round}.${i}`, customerId: acme.id }, as(i % 2 ? owner : mate)));
      const removal = t.json('DELETE', `/api/v1/customers/${acme.id}`, undefined, as(owner));
      const [deleted, ...made] = await Promise.all([removal, ...creates]);
      for (const res of made) expect([201, 422]).toContain(res.status);
      expect([200, 409]).toContain(deleted.status);
      const naming = await t.json('GET', `/api/v1/projects?limit=100&customerId=${acme.id}`, undefined, as(owner));
      if (deleted.status === 200) expect(naming.body.pagination.total).toBe(0);
      else expect(naming.body.pagination.total).toBe(made.filter((r) => r.status === 201).length);
    }
  });
});
