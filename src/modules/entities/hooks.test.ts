// Lifecycle hooks of entity definitions (issue 37), through the front door: the shipped `orders`
// example (numbered per team by beforeChange, even in a concurrent burst; paidAt and the paid rule;
// order:paid scheduled by afterChange; lineCount filled by afterRead) over REST and GraphQL, then
// hooks set on other definitions for a test (restored after it): a failing afterChange leaves nothing
// behind, hooks act as the caller (RLS) unless they ask for named system access, and they run on the
// children's writes and on a scheduled publish. The CLI seed's path is cli.test.ts's. On PGlite and,
// with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { entityDefinitions } from '../../config/entities/index.js';
import type { StoredHooks } from '../../config/entity-hooks.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { createKey } from '../../testkit/api-keys.js';
import { cronSecret, runCron, storedAction, userWithRole } from '../../testkit/scheduled-actions.js';
import { joinTeam } from '../../testkit/teams.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

type Row = Record<string, any>;
let t: TestApp;
let owner: SignedUpUser;
let member: SignedUpUser;
let customerId: string;
const as = (u: SignedUpUser) => ({ cookie: u.cookie });
const definition = (slug: string) => entityDefinitions.find((d) => d.slug === slug)!;

/** Hooks set on a definition for one test; the definition's own come back after it. */
const restores: (() => void)[] = [];
function withHooks(owner: { hooks?: StoredHooks }, hooks: StoredHooks): void {
  const before = owner.hooks;
  owner.hooks = hooks;
  restores.push(() => (owner.hooks = before));
}

beforeAll(async () => {
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false', CRON_SECRET: cronSecret });
  owner = await signUp(t);
  member = await signUp(t);
  await joinTeam(t, owner, owner.activeTeamId, member, 'member');
  customerId = (await t.json('POST', '/api/v1/customers', { name: 'Buyer', account: 1, office: 'Madrid' }, as(owner))).body.data.id;
});
afterEach(() => {
  for (const restore of restores.splice(0)) restore();
});
afterAll(async () => {
  await t?.close();
});

async function order(u: SignedUpUser, body: Row = {}): Promise<Row> {
  const res = await t.json('POST', '/api/v1/orders', { customerId, ...body }, as(u));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

describe('the orders example', () => {
  it('numbers orders per team through REST and GraphQL, never twice in a concurrent burst, and counts lines (virtual)', async () => {
    const first = await order(owner, { lines: [{ item: 'a' }, { item: 'b' }], number: 'MINE-1' });
    // The number is the hook's, whatever the request said.
    expect(first).toMatchObject({ number: 'ORD-0001', status: 'draft', paidAt: null, lineCount: 2 });
    const gql = await t.graphql('mutation($input: CreateOrderInput!) { createOrder(input: $input) { number lineCount status } }', { input: { customerId, lines: [] } }, as(member));
    expect(gql.body).toEqual({ data: { createOrder: { number: 'ORD-0002', lineCount: 0, status: 'DRAFT' } } });

    const burst = await Promise.all(Array.from({ length: 20 }, () => t.json('POST', '/api/v1/orders', { customerId }, as(member))));
    expect(burst.map((r) => r.status)).toEqual(Array(20).fill(201));
    const numbers = burst.map((r) => r.body.data.number).sort();
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => `ORD-${String(i + 3).padStart(4, '0')}`));

    // Another team counts from one; reads show the virtual field too (LIST, READ, fields=).
    const stranger = await signUp(t);
    const theirCustomer = (await t.json('POST', '/api/v1/customers', { name: 'Other', account: 1, office: 'Paris' }, as(stranger))).body.data.id;
    expect((await t.json('POST', '/api/v1/orders', { customerId: theirCustomer }, as(stranger))).body.data.number).toBe('ORD-0001');
    expect((await t.json('GET', `/api/v1/orders/${first.id}`, undefined, as(member))).body.data.lineCount).toBe(2);
    const picked = await t.json('GET', `/api/v1/orders?fields=number,lineCount&search=ORD-0001`, undefined, as(member));
    expect(picked.body.data).toEqual([{ number: 'ORD-0001', lineCount: 2 }]);
    const listed = await t.graphql('{ orders(where: { number: { eq: "ORD-0001" } }) { items { number lineCount } } }', {}, as(owner));
    expect(listed.body.errors).toBeUndefined();
    expect(listed.body.data.orders.items).toEqual([{ number: 'ORD-0001', lineCount: 2 }]);
    // A virtual field is not written.
    const written = await t.json('PATCH', `/api/v1/orders/${first.id}`, { lineCount: 5 }, as(owner));
    expect(written.status).toBe(422);
    expect(written.body.details).toHaveProperty('lineCount');
  });

  it('keeps a number once given (422 details.number)', async () => {
    const made = await order(owner);
    const res = await t.json('PATCH', `/api/v1/orders/${made.id}`, { number: 'ORD-9999' }, as(owner));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED', details: { number: expect.stringContaining('cannot change') } });
  });

  it('pays: paidAt set, order:paid scheduled for the team once; a member may then neither change (422) nor delete (409) it, an owner may', async () => {
    const made = await order(member, { status: 'placed' });
    const before = new Date();
    const paid = await t.json('PATCH', `/api/v1/orders/${made.id}`, { status: 'paid' }, as(member));
    expect(paid.status).toBe(200);
    expect(new Date(paid.body.data.paidAt).getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
    const scheduled = await t.database.prisma.scheduledAction.findMany({ where: { actionType: 'webhook:send', teamId: owner.activeTeamId } });
    const mine = scheduled.filter((a) => (a.payload as Row).entityId === made.id);
    expect(mine.map((a) => (a.payload as Row).eventType)).toEqual(['order:paid']);
    expect((mine[0]!.payload as Row).data).toMatchObject({ number: made.number, paidAt: paid.body.data.paidAt });

    const change = await t.json('PATCH', `/api/v1/orders/${made.id}`, { lines: [{ item: 'late' }] }, as(member));
    expect(change.status).toBe(422);
    expect(change.body.details).toEqual({ status: expect.stringContaining('a paid order cannot be changed') });
    const gqlChange = await t.graphql('mutation($id: ID!) { updateOrder(id: $id, input: { status: DRAFT }) { status } }', { id: made.id }, as(member));
    expect(gqlChange.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', details: { status: expect.any(String) } });
    const removal = await t.json('DELETE', `/api/v1/orders/${made.id}`, undefined, as(member));
    expect(removal.status).toBe(409);
    expect((await t.json('GET', `/api/v1/orders/${made.id}`, undefined, as(member))).body.data).toMatchObject({ status: 'paid', lines: null });

    // The owner may: back to placed clears paidAt; no second order:paid was scheduled meanwhile.
    const undone = await t.json('PATCH', `/api/v1/orders/${made.id}`, { status: 'placed' }, as(owner));
    expect(undone.body.data).toMatchObject({ status: 'placed', paidAt: null });
    const after = await t.database.prisma.scheduledAction.findMany({ where: { actionType: 'webhook:send', teamId: owner.activeTeamId } });
    expect(after.filter((a) => (a.payload as Row).entityId === made.id)).toHaveLength(1);
  });
});

describe('hooks on every path', () => {
  it('a failing afterChange leaves nothing: not the order, not what its hooks wrote, no event, no scheduled action', async () => {
    const counts = async () => ({
      orders: await t.database.prisma.order.count(),
      customers: await t.database.prisma.customer.count(),
      actions: await t.database.prisma.scheduledAction.count(),
      events: await t.database.prisma.entityEvent.count(),
    });
    const base = definition('orders').hooks!;
    withHooks(definition('orders'), {
      ...base,
      async afterChange(args) {
        await base.afterChange!(args); // schedules order:paid
        await args.context.entities.create('customers', { name: 'Made by a hook', account: 999, office: 'Lyon' });
        throw args.context.invalid({ customerId: 'refused after the write' });
      },
    });
    const before = await counts();
    const res = await t.json('POST', '/api/v1/orders', { customerId, status: 'paid' }, as(owner));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { customerId: 'refused after the write' } });
    expect(await counts()).toEqual(before);
    const gql = await t.graphql('mutation($input: CreateOrderInput!) { createOrder(input: $input) { id } }', { input: { customerId, status: 'PAID' } }, as(owner));
    expect(gql.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(await counts()).toEqual(before);
  });

  it('acts as the caller: context.entities sees what the caller sees (RLS), context.system sees beyond it', async () => {
    const privateTask = (await t.json('POST', '/api/v1/tasks', { title: 'The owner’s own' }, as(owner))).body.data.id; // tasks are their creator's
    const seen: Row = {};
    withHooks(definition('orders'), {
      ...definition('orders').hooks!,
      async afterChange({ context }) {
        seen.asCaller = await context.entities.read('tasks', privateTask);
        seen.bySystem = await context.system('test: a task beyond the caller', async (tx) => (await tx.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM tasks WHERE id = ${privateTask}::uuid`)[0]!.n);
        seen.afterSystem = await context.entities.read('tasks', privateTask);
        seen.caller = context.caller;
      },
    });
    await order(member);
    expect(seen).toEqual({ asCaller: null, bySystem: 1, afterSystem: null, caller: { userId: member.id, teamId: owner.activeTeamId, role: 'member' } });
    seen.asCaller = undefined;
    await order(owner);
    expect(seen.asCaller).toMatchObject({ id: privateTask, title: 'The owner’s own' });
  });

  it('beforeValidate shapes the input before validation (title trimmed, an excerpt from it), afterDelete sees what was deleted: REST and GraphQL', async () => {
    const deleted: unknown[] = [];
    withHooks(definition('posts'), {
      beforeValidate: ({ operation, data }) => {
        if (operation !== 'create' || typeof data.title !== 'string') return;
        const title = data.title.trim();
        return { ...data, title, excerpt: data.excerpt ?? `About ${title}` };
      },
      afterDelete: ({ record }) => void deleted.push(record.title),
    });
    const slug = () => `hooked-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const rest = await t.json('POST', '/api/v1/posts', { title: '  Hooks, a first post  ', slug: slug() }, as(owner));
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect(rest.body.data).toMatchObject({ title: 'Hooks, a first post', excerpt: 'About Hooks, a first post' });
    // What beforeValidate gives is validated as a request is: a title too long is still 422.
    const refused = await t.json('POST', '/api/v1/posts', { title: `  ${'x'.repeat(300)}`, slug: slug() }, as(owner));
    expect(refused.status).toBe(422);
    expect(refused.body.details).toHaveProperty('title');
    const gql = await t.graphql('mutation($slug: String!) { createPost(input: { title: " From GraphQL ", slug: $slug }) { id title excerpt } }', { slug: slug() }, as(owner));
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.createPost).toMatchObject({ title: 'From GraphQL', excerpt: 'About From GraphQL' });

    expect((await t.json('DELETE', `/api/v1/posts/${rest.body.data.id}`, undefined, as(owner))).status).toBe(200);
    expect((await t.graphql('mutation($id: ID!) { deletePost(id: $id) { __typename } }', { id: gql.body.data.createPost.id }, as(owner))).body.errors).toBeUndefined();
    expect(deleted).toEqual(['Hooks, a first post', 'From GraphQL']);
  });

  it('runs on the children’s writes: beforeChange changes the data, beforeDelete refuses, afterChange sees both versions', async () => {
    const notes = definition('customers').children.find((c) => c.slug === 'notes')!;
    const calls: Row[] = [];
    withHooks(notes, {
      beforeChange: ({ operation, data }) => ({ ...data, body: `${String(data.body).trim()} (${operation})` }),
      afterChange: ({ operation, record, previous }) => void calls.push({ operation, body: record.body, previous: previous?.body ?? null }),
      beforeDelete: ({ record, context }) => {
        if (String(record.body).includes('keep')) throw context.conflict('This note is kept');
      },
    });
    const path = `/api/v1/customers/${customerId}/child/notes`;
    const made = await t.json('POST', path, { body: '  keep me ' }, as(member));
    expect(made.status).toBe(201);
    expect(made.body.data.body).toBe('keep me (create)');
    const changed = await t.json('PATCH', `${path}/${made.body.data.id}`, { body: 'keep this' }, as(member));
    expect(changed.body.data.body).toBe('keep this (update)');
    expect(calls).toEqual([
      { operation: 'create', body: 'keep me (create)', previous: null },
      { operation: 'update', body: 'keep this (update)', previous: 'keep me (create)' },
    ]);
    const refused = await t.json('DELETE', `${path}/${made.body.data.id}`, undefined, as(member));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, code: 'CONFLICT', error: 'This note is kept' });
  });

  it('runs on a scheduled publish, as the action’s creator, and may refuse it (the attempt fails, the record stays a draft)', async () => {
    const developer = await userWithRole(t, 'developer');
    const key = await createKey(t, developer, { scopes: ['scheduled-actions:*', 'posts:write'] });
    const draft = async (title: string) => (await t.json('POST', '/api/v1/posts', { title, slug: `post-${Date.now()}-${Math.random().toString(36).slice(2)}`, status: 'draft' }, as(developer))).body.data.id as string;
    const calls: Row[] = [];
    withHooks(definition('posts'), {
      beforeChange: ({ operation, data, previous, context }) => {
        calls.push({ operation, data, previous: previous?.status, caller: context.caller });
        if (String(previous?.title).includes('embargo')) throw context.invalid({ status: 'under embargo' });
      },
      afterChange: ({ record }) => void calls.push({ after: record.status }),
    });
    const publish = async (id: string) => {
      const res = await t.json('POST', '/api/v1/devtools/scheduled-actions', { actionType: 'content:publish', payload: { entityType: 'posts', entityId: id } }, { authorization: `Bearer ${key.key}` });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data.id as string;
    };
    const free = await draft('Free to publish');
    const embargoed = await draft('Under embargo');
    const [ok, refused] = [await publish(free), await publish(embargoed)];
    expect((await runCron(t)).status).toBe(200);
    expect((await storedAction(t, ok)).status).toBe('completed');
    const failed = await storedAction(t, refused);
    expect(failed.status === 'failed' || failed.status === 'pending').toBe(true);
    expect(failed.errorMessage ?? '').toContain('under embargo');
    expect((await t.json('GET', `/api/v1/posts/${free}`, undefined, as(developer))).body.data.status).toBe('published');
    expect((await t.json('GET', `/api/v1/posts/${embargoed}`, undefined, as(developer))).body.data.status).toBe('draft');
    expect(calls).toContainEqual({ operation: 'update', data: { status: 'published', publishedAt: expect.any(String) }, previous: 'draft', caller: { userId: developer.id, teamId: developer.activeTeamId, role: 'owner' } });
    expect(calls).toContainEqual({ after: 'published' });
    // The publish kept its version, as the action's creator through the action face; the refused one none.
    const versions = async (id: string) => (await t.json('GET', `/api/v1/posts/${id}/versions`, undefined, as(developer))).body.data.map((v: Row) => [v.version, v.operation, v.face, v.userId, v.changedFields]);
    expect(await versions(free)).toEqual([[2, 'update', 'action', developer.id, ['status', 'publishedAt']], [1, 'create', 'rest', developer.id, expect.any(Array)]]);
    expect(await versions(embargoed)).toEqual([[1, 'create', 'rest', developer.id, expect.any(Array)]]);
  });

  it('on a scheduled publish, context.entities writes as the action’s creator in the publish’s transaction: kept with it, gone when it fails', async () => {
    const developer = await userWithRole(t, 'developer');
    const key = await createKey(t, developer, { scopes: ['scheduled-actions:*', 'posts:write'] });
    const draft = async (title: string) => (await t.json('POST', '/api/v1/posts', { title, slug: `post-${Date.now()}-${Math.random().toString(36).slice(2)}`, status: 'draft' }, as(developer))).body.data.id as string;
    withHooks(definition('posts'), {
      afterChange: async ({ operation, record, previous, context }) => {
        if (operation !== 'update' || record.status !== 'published' || previous?.status === 'published') return;
        await context.entities.create('tasks', { title: `Announce ${String(record.title)}` });
        if (String(record.title).includes('refused')) throw context.conflict('announcement refused');
      },
    });
    const publish = async (id: string) => {
      const res = await t.json('POST', '/api/v1/devtools/scheduled-actions', { actionType: 'content:publish', payload: { entityType: 'posts', entityId: id }, maxRetries: 1 }, { authorization: `Bearer ${key.key}` });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data.id as string;
    };
    const [kept, refused] = [await draft('Kept news'), await draft('News refused')];
    const [keptAction, refusedAction] = [await publish(kept), await publish(refused)];
    expect((await runCron(t)).status).toBe(200);
    expect(await storedAction(t, keptAction)).toMatchObject({ status: 'completed' });
    expect(await storedAction(t, refusedAction)).toMatchObject({ status: 'failed', errorMessage: expect.stringContaining('announcement refused') });
    expect((await t.json('GET', `/api/v1/posts/${refused}`, undefined, as(developer))).body.data.status).toBe('draft');
    // Tasks are private to their creator: the announcement is the developer's, in their team.
    const tasks = (await t.json('GET', '/api/v1/tasks?search=Announce&limit=100', undefined, as(developer))).body.data as Row[];
    expect(tasks.map((task) => task.title)).toEqual(['Announce Kept news']);
    expect(tasks[0]).toMatchObject({ userId: developer.id, teamId: developer.activeTeamId });
  });
});
