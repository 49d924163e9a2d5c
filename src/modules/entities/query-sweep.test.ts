// Every operator on every filterable field (and the stamps) of every configured entity, required and
// optional, as a member and, on public entities, anonymously: REST LIST `{field}[op]=`, REST
// aggregate, GraphQL `where` directly, inside OR and NOT, and through every relation, reverse side
// and many-to-many relation that reaches the entity; every groupBy field alone and together; every
// expand, `child=all`, and every relation GraphQL selects. Each answers 200 (these values are all
// valid), never a 5xx, and no error is logged (issue 36: `isNull` and `groupBy` on a required field
// were 500s). Results are checked where they are known: `isNull` against the records as listed, the
// aggregate's count against LIST's total, groups adding up to every record. The table is made from
// the definitions, so a new entity or field is swept too. On PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityDefinitions } from '../../config/entities/index.js';
import { type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import { expandableRelations, inversesOf, relationTarget } from '../../config/entity-relations.js';
import { signUp } from '../../testkit/accounts.js';
import { collectLogs } from '../../testkit/logs.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { aggregateNames } from './aggregate-schema.js';
import { groupFields } from './aggregate.js';
import { enumValueName, graphqlNames, hasEnum } from './graphql-names.js';
import { filterableInverses, filterableLinks, flagOperators, listOperators, operatorsOf, relationsOf, whereFields, type Operator } from './where.js';

type Row = Record<string, any>;
type Where = Record<string, unknown>;
let t: TestApp;
const logs = collectLogs();
let member: Record<string, string>;
const anonymous: Record<string, string> = {};
/** Every record of each entity, as the member lists it (after seeding). */
const records = new Map<string, Row[]>();

const listed = entityDefinitions.filter((d) => d.operations.list);
const bySlug = (slug: string) => entityDefinitions.find((d) => d.slug === slug)!;

async function post(slug: string, body: Row): Promise<Row> {
  const res = await t.json('POST', `/api/v1/${slug}`, body, member);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: 'warn', RATE_LIMIT_ENABLED: 'false' }, undefined, { logDestination: logs.destination });
  member = { cookie: (await signUp(t)).cookie };
  // Two records each, one with its optional fields empty.
  const c = await post('customers', { name: 'Acme', account: 1, office: 'Madrid', salesRep: 'Ana', visitDays: ['lun'] });
  await post('customers', { name: 'Bare', account: 2, office: 'Paris' });
  const task = await post('tasks', { title: 'Full', dueDate: '2026-01-01', estimatedHours: 2, completed: true, tags: ['x'], status: 'done' });
  await post('tasks', { title: 'Bare' });
  const p = await post('projects', { name: 'Parent', budget: 10, customerId: c.id, milestoneId: task.id, taskIds: [task.id] });
  await post('projects', { name: 'Child', parentProjectId: p.id });
  await post('posts', { title: 'Out', slug: 'out', status: 'published', publishedAt: '2026-01-01T00:00:00Z' });
  await post('posts', { title: 'Draft', slug: 'draft' });
  for (const d of listed) records.set(d.slug, (await t.json('GET', `/api/v1/${d.slug}?limit=100`, undefined, member)).body.data);
}, 240_000);
afterAll(() => t?.close());

/** A valid value of `f`: as GraphQL takes it, and as REST writes it. */
function sample(f: FieldDefinition): { gql: unknown; rest: string } {
  if (hasEnum(f)) return { gql: enumValueName(f.enum![0]!), rest: f.enum![0]! };
  switch (f.type) {
    case 'number':
      return { gql: 1.5, rest: '1.5' };
    case 'integer':
      return { gql: 1, rest: '1' };
    case 'decimal':
      return { gql: '12.50', rest: '12.50' };
    case 'boolean':
      return { gql: true, rest: 'true' };
    case 'date':
      return { gql: '2026-01-01', rest: '2026-01-01' };
    case 'datetime':
      return { gql: '2026-01-01T00:00:00.000Z', rest: '2026-01-01T00:00:00.000Z' };
    case 'relation': {
      const id = records.get(relationTarget(f).slug)?.[0]?.id ?? '00000000-0000-4000-8000-000000000000';
      return { gql: id, rest: id };
    }
    case 'media':
      return { gql: '5c8e2a1f-6d3b-4e9a-8b7c-1f0e2d3c4b5a', rest: '5c8e2a1f-6d3b-4e9a-8b7c-1f0e2d3c4b5a' };
    default:
      return { gql: 'a', rest: 'a' };
  }
}

interface Condition {
  d: EntityDefinition;
  field: FieldDefinition;
  op: Operator;
  /** The flag of isNull / isEmpty. */
  flag?: boolean;
}

const conditionsOf = (d: EntityDefinition, field: FieldDefinition): Condition[] =>
  operatorsOf(field).flatMap((op) => (flagOperators.has(op) ? [true, false].map((flag) => ({ d, field, op, flag })) : [{ d, field, op }]));

const label = (c: Condition) => `${c.field.name}${c.field.required ? ' (required' : ' (optional'} ${c.field.type}) ${c.op}${c.flag === undefined ? '' : ` ${c.flag}`}`;

function whereOf(c: Condition): Where {
  const value = c.flag ?? (listOperators.has(c.op) ? [sample(c.field).gql] : sample(c.field).gql);
  return { [c.field.name]: { [c.op]: value } };
}

const restOf = (c: Condition) => `${c.field.name}[${c.op}]=${encodeURIComponent(c.flag === undefined ? sample(c.field).rest : String(c.flag))}`;

/** Wheres of other entities (and of this one) that hold `w` about `d`'s records: relations, reverse sides, links, OR and NOT. */
function reachers(d: EntityDefinition, w: Where): [EntityDefinition, Where][] {
  const out: [EntityDefinition, Where][] = [[d, { OR: [w] }], [d, { NOT: w }]];
  const quantified = (name: string) => ({ [name]: { some: w, none: w, every: w } });
  for (const e of listed) {
    for (const [name, f] of relationsOf(e)) if (relationTarget(f) === d) out.push([e, { [name]: w }]);
    for (const [name, f] of filterableLinks(e)) if (relationTarget(f) === d) out.push([e, quantified(name)]);
    for (const [name, inverse] of filterableInverses(e)) if (inverse.source === d) out.push([e, quantified(name)]);
  }
  return out;
}

/** The expected LIST total of a condition, where the records say it (isNull). */
function expectedTotal(c: Condition, rows: Row[]): number | undefined {
  if (c.op !== 'isNull') return undefined;
  return rows.filter((r) => (r[c.field.name] === null) === c.flag).length;
}

/** Runs `work` over `items`, a few at a time. */
async function inBatches<T>(items: T[], work: (item: T) => Promise<void>, size = 6): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

const callers = (d: EntityDefinition) => [['member', () => member] as const, ...(d.access.public ? [['anonymous', () => anonymous] as const] : [])];
/** Each field where takes, with each caller. */
const fieldCases = (d: EntityDefinition) => whereFields(d).flatMap((f) => callers(d).map(([who, headers]) => [`${f.name} (${f.required ? 'required' : 'optional'} ${f.type})`, who, f, headers] as const));

describe.each(listed.map((d) => [d.slug, d] as const))('%s', (_slug, d) => {
  const names = graphqlNames(d);
  const agg = aggregateNames(d);

  it.each(fieldCases(d))('every operator on %s answers 200 on each face, as %s', async (_name, who, field, headers) => {
    const as = headers();
    const rows = who === 'member' ? records.get(d.slug)! : (await t.json('GET', `/api/v1/${d.slug}?limit=100`, undefined, as)).body.data;
    await inBatches(conditionsOf(d, field), async (c) => {
      const name = label(c);
      const list = await t.json('GET', `/api/v1/${d.slug}?limit=100&${restOf(c)}`, undefined, as);
      expect(list.status, `${name}: ${JSON.stringify(list.body)}`).toBe(200);
      const expected = expectedTotal(c, rows);
      if (expected !== undefined) expect(list.body.pagination.total, name).toBe(expected);
      const counted = await t.json('GET', `/api/v1/${d.slug}/aggregate?${restOf(c)}`, undefined, as);
      expect(counted.status, `${name}: ${JSON.stringify(counted.body)}`).toBe(200);
      expect(counted.body.data[0].count, name).toBe(list.body.pagination.total);

      const w = whereOf(c);
      // Through other entities only as a member: anonymous callers list public entities alone.
      const nested = who === 'member' ? reachers(d, w) : [];
      const vars: Row = { w, ...Object.fromEntries(nested.map(([, v], i) => [`v${i}`, v])) };
      const params = [`$w: ${names.where}`, ...nested.map(([e], i) => `$v${i}: ${graphqlNames(e).where}`)].join(', ');
      const fields = [`list: ${names.list}(where: $w, limit: 100) { total }`, `agg: ${agg.field}(where: $w) { groups { count } }`, ...nested.map(([e], i) => `n${i}: ${graphqlNames(e).list}(where: $v${i}) { total }`)];
      const res = await t.graphql(`query(${params}) { ${fields.join(' ')} }`, vars, as);
      expect(res.body.errors, `${name}: ${JSON.stringify(res.body.errors)}`).toBeUndefined();
      expect(res.body.data.list.total, name).toBe(list.body.pagination.total);
      expect(res.body.data.agg.groups[0].count, name).toBe(list.body.pagination.total);
    });
  });

  it.each(callers(d))('groups by every field alone and together, adding up to every record, as %s', async (_who, headers) => {
    const as = headers();
    const total = (await t.json('GET', `/api/v1/${d.slug}?limit=1`, undefined, as)).body.pagination.total as number;
    const fields = groupFields(d).map((f) => f.name);
    const sets = [...fields.map((f) => [f]), ...Array.from({ length: Math.ceil(fields.length / 3) }, (_, i) => fields.slice(i * 3, i * 3 + 3))];
    await inBatches(sets, async (by) => {
      const rest = await t.json('GET', `/api/v1/${d.slug}/aggregate?groupBy=${by.join(',')}`, undefined, as);
      expect(rest.status, `${by}: ${JSON.stringify(rest.body)}`).toBe(200);
      expect(rest.body.data.reduce((n: number, g: Row) => n + g.count, 0), String(by)).toBe(total);
      const graphql = await t.graphql(`{ ${agg.field}(groupBy: [${by.join(', ')}]) { groups { key { ${by.join(' ')} } count } } }`, {}, as);
      expect(graphql.body.errors, `${by}: ${JSON.stringify(graphql.body.errors)}`).toBeUndefined();
      expect(graphql.body.data[agg.field].groups.length, String(by)).toBe(rest.body.data.length);
    });
  });

  it.each(callers(d))('expands every relation, includes child=all and selects every relation, as %s', async (_who, headers) => {
    const as = headers();
    const id = (await t.json('GET', `/api/v1/${d.slug}?limit=1`, undefined, as)).body.data[0]?.id as string;
    const expansions = [...expandableRelations(d).map((f) => `expand=${f.relation}`), 'child=all', ...d.children.map((c) => `child=${c.slug}`)];
    await inBatches(expansions, async (query) => {
      for (const path of [`/api/v1/${d.slug}?${query}`, ...(id ? [`/api/v1/${d.slug}/${id}?${query}`] : [])]) {
        const res = await t.json('GET', path, undefined, as);
        // Anonymous callers may not read a related entity that is not public: a clear 401.
        expect([200, 401], `${path}: ${JSON.stringify(res.body)}`).toContain(res.status);
        if (as === member) expect(res.status, path).toBe(200);
      }
    });
    if (as !== member) return;
    const related = [...expandableRelations(d).map((f) => f.relation), ...inversesOf(d).filter((i) => i.source.operations.list).map((i) => i.name)];
    const res = await t.graphql(`{ ${names.list}(limit: 100) { items { id ${related.map((r) => `${r} { id }`).join(' ')} } } }`, {}, as);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  });
});

describe('the sweep', () => {
  it('covers required and optional fields, and logs no error', () => {
    const kinds = new Set(listed.flatMap((d) => whereFields(d).map((f) => `${f.required ? 'required' : 'optional'} ${f.type}`)));
    expect([...kinds]).toEqual(expect.arrayContaining(['required string', 'required integer', 'required datetime', 'optional string', 'optional relation', 'optional select']));
    expect(bySlug('projects').links.length).toBeGreaterThan(0);
    expect(logs.lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
  });
});
