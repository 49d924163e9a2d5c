// The in-memory filter (where-in-memory.ts) against the database: for generated filters of every
// entity (every operator of every filterable field kind, required and optional, AND/OR/NOT groups,
// LIST's field filters and ranges, ids), the records it keeps are exactly those PostgreSQL returns for
// the same Prisma where, over generated records full of what tends to differ (NULLs, LIKE's own
// characters, case and Unicode variants, lone surrogates, -0, extreme numbers and dates). What it
// cannot decide (case-insensitive text, text order, search, relations) it must say so, never guess.
// On PGlite and, with TEST_DATABASE_URL, PostgreSQL.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDefinition, FieldDefinition } from '../../config/entity-definition.js';
import { entityDefinitions } from '../../config/entities/index.js';
import { runAsUser } from '../../db/request-db.js';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';
import { checkListQuery, type ListQuery } from './query.js';
import { delegateOf } from './repository.js';
import { filterWhere } from './service.js';
import { inMemoryFilter } from './where-in-memory.js';
import { operatorsOf, whereFields } from './where.js';

type Values = Record<string, unknown>;
let t: TestApp;
let owner: SignedUpUser;
const definition = (slug: string) => entityDefinitions.find((d) => d.slug === slug)!;
/** Each entity's rows as Prisma reads them (raw: dates as Date), all of the owner's team. */
const rows = new Map<string, Values[]>();
/** Ids of the rows, for relations and `ids`. */
const idsOf = (slug: string) => (rows.get(slug) ?? []).map((r) => r.id as string);

// Values that tend to tell implementations apart.
const texts = ['', ' ', 'a', 'A', 'ab', 'abc', 'ABC', 'Abc', 'a%b', 'a_b', 'a\\b', '%', '_', '\\', '\\%', 'Madrid', 'madrid', 'MADRID', 'madrid north', 'ñandú', 'Ñandú', 'straße', 'STRASSE', 'İstanbul', 'istanbul', 'K', 'k', 'Σίσυφος', 'ΣΊΣΥΦΟΣ', '😀', 'a😀b', 'e\u0301', 'é', 'x\ny', 'tab\there', "it's", '"q"'];
const lone = ['\ud800', 'a\udfffb'];
const numbers = [0, -0, 1, -1, 0.1, 0.2, 0.30000000000000004, 1e-7, 1.2345678901234566e-7, 1.5, 2.5, 3, 999, 0.1 + 0.7, 123456789012345.67, 9007199254740991, 9007199254740992, 9007199254740994, 1e20, 12345678901234567000, 1e21, 1e300, -1e300, 5e-324, -5e-324, 123456.789];
const integers = [0, 1, -1, 2, 40, 50, 2_147_483_647, -2_147_483_648, 1000];
const days = ['0001-01-01', '1969-12-31', '1970-01-01', '2000-02-29', '2026-01-10', '2026-01-11', '2026-03-15', '9999-12-31'];
const instants = ['0001-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z', '2026-01-10T00:00:00.000Z', '2026-01-10T12:34:56.789Z', '2026-01-10T12:34:56.790Z', '2026-01-11T00:00:00.000Z', '9999-12-31T23:59:59.999Z'].map((s) => new Date(s));
const dayDate = (day: string) => new Date(`${day}T00:00:00.000Z`);

const textValue = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...texts) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }).filter((s) => !s.includes('\u0000')) });
// Any double as a filter value; stored ones within what Prisma can write (it rounds past 2^53: where-in-memory.ts).
const doubleValue = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...numbers) }, { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) });
const storedDouble = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...numbers) }, { weight: 1, arbitrary: fc.double({ noNaN: true, min: -1e300, max: 1e300 }) });
const intValue = fc.oneof(fc.constantFrom(...integers), fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }));
const enumOf = (f: FieldDefinition) => fc.constantFrom(...(f.enum?.length ? f.enum : ['x', 'y', 'z', 'X', '']));

/** Media ids the records name (the columns have no foreign key: any id can be stored, and compared). */
const mediaIds = ['5c8e2a1f-6d3b-4e9a-8b7c-1f0e2d3c4b5a', 'a4c1e7b2-9d3f-4e6a-8b1c-2d5f7e9a0b3c', '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9'];

/** A stored value of a field (row side), null allowed where the column allows it. */
function storedValue(d: EntityDefinition, f: FieldDefinition): fc.Arbitrary<unknown> {
  const value = (() => {
    switch (f.type) {
      case 'number':
        return storedDouble;
      case 'integer':
        return intValue;
      case 'boolean':
        return fc.boolean();
      case 'date':
        return fc.constantFrom(...days).map(dayDate);
      case 'datetime':
        return fc.constantFrom(...instants);
      case 'select':
        return enumOf(f);
      case 'multiselect':
        return fc.array(enumOf(f), { maxLength: 4 });
      case 'relation': {
        const target = idsOf(f.to!);
        return target.length ? fc.constantFrom(...target) : fc.constant(null);
      }
      case 'media':
        return f.many ? fc.subarray(mediaIds) : fc.constantFrom(...mediaIds);
      default:
        return textValue;
    }
  })();
  if (f.required || f.type === 'multiselect' || f.many) return value;
  return fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: value });
}

/** A filter value of a field as GraphQL coerces it (select: stored value, date: YYYY-MM-DD, datetime: Date). */
function filterValue(f: FieldDefinition, d: EntityDefinition): fc.Arbitrary<unknown> {
  switch (f.type) {
    case 'number':
      return doubleValue;
    case 'integer':
      return intValue;
    case 'boolean':
      return fc.boolean();
    case 'date':
      return fc.constantFrom(...days);
    case 'datetime':
      return fc.constantFrom(...instants);
    case 'select':
    case 'multiselect':
      return enumOf(f);
    case 'relation': {
      const target = idsOf(f.to ?? d.slug);
      // Ids in either case: the database parses a uuid whatever its case.
      return fc.tuple(target.length ? fc.constantFrom(...target) : fc.uuid(), fc.boolean()).map(([id, upper]) => (upper ? id.toUpperCase() : id));
    }
    case 'media':
      return fc.tuple(fc.constantFrom(...mediaIds), fc.boolean()).map(([id, upper]) => (upper ? id.toUpperCase() : id));
    default:
      return fc.oneof({ weight: 9, arbitrary: textValue }, { weight: 1, arbitrary: fc.constantFrom(...lone) });
  }
}

/** One field's condition object: one to three of its operators (sometimes with `mode`). */
function condition(d: EntityDefinition, f: FieldDefinition): fc.Arbitrary<Values> {
  const ops = operatorsOf(f);
  const one = fc.constantFrom(...ops).chain((op): fc.Arbitrary<[string, unknown]> => {
    if (op === 'isNull' || op === 'isEmpty') return fc.boolean().map((v) => [op, v]);
    if (op === 'in' || op === 'notIn' || op === 'hasSome' || op === 'hasEvery') return fc.array(filterValue(f, d), { maxLength: 4 }).map((v) => [op, v]);
    return filterValue(f, d).map((v) => [op, v]);
  });
  const withMode = ops.includes('contains') ? fc.constantFrom(undefined, undefined, undefined, 'default', 'insensitive') : fc.constant(undefined);
  return fc.tuple(fc.array(one, { minLength: 1, maxLength: 3 }), withMode).map(([pairs, mode]) => ({ ...Object.fromEntries(pairs), ...(mode ? { mode } : {}) }));
}

/** A `where` of `d` (GraphQL-coerced), groups nested up to `depth` more levels. */
function whereOf(d: EntityDefinition, depth: number): fc.Arbitrary<Values> {
  const fields = whereFields(d);
  const leaf = fc.constantFrom(...fields).chain((f) => condition(d, f).map((c) => ({ [f.name]: c })));
  if (depth === 0) return leaf;
  const inner = whereOf(d, depth - 1);
  return fc.oneof(
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(inner, { maxLength: 3 }).map((AND) => ({ AND })) },
    { weight: 1, arbitrary: fc.array(inner, { maxLength: 3 }).map((OR) => ({ OR })) },
    { weight: 1, arbitrary: inner.map((NOT) => ({ NOT })) },
    { weight: 1, arbitrary: fc.tuple(leaf, inner).map(([a, b]) => ({ ...b, ...a })) },
  );
}

/** LIST's filters: a where, field filters (equality, _min/_max), ids, a day range, rarely a search. */
function listFilters(d: EntityDefinition): fc.Arbitrary<ListQuery> {
  const filterable = d.fields.filter((f) => f.filterable);
  const ranged = filterable.filter((f) => ['number', 'integer', 'date', 'datetime'].includes(f.type));
  const equality = fc.constantFrom(...filterable).chain((f) => filterValue(f, d).map((v) => [f.name, v] as const));
  const bound = ranged.length ? fc.tuple(fc.constantFrom(...ranged), fc.constantFrom('_min', '_max')).chain(([f, end]) => filterValue(f, d).map((v) => [`${f.name}${end}`, v] as const)) : fc.constant(null);
  const dateFields = ['createdAt', 'updatedAt', ...d.fields.filter((f) => f.type === 'date' || f.type === 'datetime').map((f) => f.name)];
  return fc.record(
    {
      where: whereOf(d, 3),
      filter: fc.array(fc.oneof(equality, bound), { maxLength: 2 }).map((pairs) => Object.fromEntries(pairs.filter((p) => p !== null))),
      ids: fc.subarray(idsOf(d.slug), { minLength: 1, maxLength: 5 }).map((ids) => ids.map((id, i) => (i % 2 ? id.toUpperCase() : id))),
      from: fc.constantFrom(...days),
      to: fc.constantFrom(...days),
      dateField: fc.constantFrom(...dateFields),
      search: fc.constantFrom('a', 'MADRID'),
    },
    { requiredKeys: [] },
  ).map((q) => (Math.random() < 0.9 ? { ...q, search: undefined } : q));
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await signUp(t);
  // Records written straight to the tables (RLS on, as the owner), wider than validation allows: the
  // filter must agree with SQL on anything a column can hold. Targets of relations first.
  for (const slug of ['customers', 'tasks', 'projects', 'posts']) {
    const d = definition(slug);
    const made: Values[] = [];
    const generated = fc.sample(fc.record(Object.fromEntries(d.fields.map((f) => [f.name, storedValue(d, f)]))), { numRuns: 60, seed: 36 });
    await runAsUser(t.database, owner.id, async (tx) => {
      for (const [i, values] of generated.entries()) {
        const unique = Object.fromEntries(d.fields.filter((f) => f.unique).map((f) => [f.name, f.type === 'integer' ? 10_000 + i : `unique-${i}`]));
        const stamp = instants[i % instants.length]!;
        const data: Values = { ...values, ...unique, teamId: owner.activeTeamId, userId: owner.id, createdAt: stamp, updatedAt: instants[(i + 3) % instants.length]! };
        // A record may name one made before it (parentProject).
        if (d.slug === 'projects' && made.length) data.parentProjectId = i % 3 ? (made[i % made.length]!.id as string) : null;
        made.push(await delegateOf(tx, d.name).create({ data, select: { id: true } }));
      }
    });
    rows.set(slug, await runAsUser(t.database, owner.id, (tx) => delegateOf(tx, d.name).findMany({ where: { teamId: owner.activeTeamId } })));
  }
});
afterAll(() => t?.close());

/** The ids of the rows a LIST with `query` keeps: from the database, and in memory (null: not decided). */
async function bothWays(d: EntityDefinition, query: ListQuery): Promise<{ sql: string[]; memory: string[] | null } | null> {
  let conditions: unknown[];
  try {
    conditions = filterWhere(d, checkListQuery(d, query, { fields: null, metas: false, children: [] }));
  } catch {
    return null; // refused (400): never read
  }
  const keep = inMemoryFilter(d, conditions);
  if (!keep) return { sql: [], memory: null };
  const found = await runAsUser(t.database, owner.id, (tx) => delegateOf(tx, d.name).findMany({ where: { AND: [{ teamId: owner.activeTeamId }, ...conditions] }, select: { id: true } }));
  const sort = (ids: string[]) => ids.sort();
  return { sql: sort(found.map((r) => r.id)), memory: sort(rows.get(d.slug)!.filter(keep).map((r) => r.id as string)) };
}

describe('in-memory filters agree with SQL', () => {
  for (const slug of ['tasks', 'customers', 'projects', 'posts']) {
    it(`${slug}: generated filters keep exactly the records the database returns`, async () => {
      const d = definition(slug);
      let decided = 0;
      let matched = 0;
      await fc.assert(
        fc.asyncProperty(listFilters(d), async (query) => {
          const answer = await bothWays(d, query);
          if (!answer || answer.memory === null) return;
          decided++;
          if (answer.sql.length && answer.sql.length < rows.get(slug)!.length) matched++;
          expect(answer.memory).toEqual(answer.sql);
        }),
        { numRuns: 250 },
      );
      // The property said something: most filters were decided, many kept some records and not others.
      expect(decided).toBeGreaterThan(100);
      expect(matched).toBeGreaterThan(10);
    });
  }

  it('says "not decided" for what memory cannot decide exactly', () => {
    const [tasks, customers, projects] = ['tasks', 'customers', 'projects'].map(definition) as [EntityDefinition, EntityDefinition, EntityDefinition];
    const undecided: [EntityDefinition, ListQuery][] = [
      [customers, { where: { office: { eq: 'a', mode: 'insensitive' } } }],
      [customers, { where: { office: { lt: 'b' } } }],
      [customers, { where: { NOT: { salesRep: { gte: 'b' } } } }],
      [tasks, { where: { estimatedHours: { gt: 2 ** 60 } } }],
      [tasks, { search: 'abc' }],
      [projects, { where: { customer: { office: { eq: 'Madrid' } } } }],
      [projects, { where: { tasks: { some: { status: { eq: 'todo' } } } } }],
    ];
    for (const [d, query] of undecided) {
      const conditions = filterWhere(d, checkListQuery(d, query, { fields: null, metas: false, children: [] }));
      expect(inMemoryFilter(d, conditions), JSON.stringify(query)).toBeNull();
    }
    const decided = filterWhere(customers, checkListQuery(customers, { where: { office: { contains: 'a%' }, account: { gt: 1 } }, filter: { salesRep: 'Ana' } }, { fields: null, metas: false, children: [] }));
    expect(inMemoryFilter(customers, decided)).not.toBeNull();
  });
});
