// Focused requests for the entity routes, written over their generic form (`/api/v1/{entity}…`;
// openapi-arbitraries.ts maps each concrete route, `/api/v1/tasks/{id}`, onto it with its one
// entity): each request uses the entity's fields, with valid values, then one odd thing (a filter at
// 2^31 or year 0, a NUL, a hostile member), so that creates and updates reach the database and the
// REST edge's query-string parser meets odd values; LISTs also get operator parameters and `filter`
// JSON (nested groups, past the limits, wrong operators), their values often the kind the operator
// takes (a flag for isNull, a list for in: sweep-values.ts); aggregates get groupBy and measures of
// the fields their document lists. A new entity is fuzzed with no change here.
import fc from 'fast-check';
import { type EntityDefinition, type FieldDefinition } from '../config/entity-definition.js';
import { inversesOf, relationFields } from '../config/entity-relations.js';
import { fieldValue } from './entity-values.js';
import type { FuzzRequest } from './fuzz-request.js';
import { hostileJson, oddDates, oddNumberTexts, refText, shortHostileString } from './hostile-values.js';
import { percentEncode, queryString, queryText, racing } from './http-parts.js';
import { jsonText, toTree, type JsonTree } from './json-text.js';
import type { ApiOperation } from './openapi-arbitraries.js';
import { refsFor, type JsonSchema, type ValueContext } from './schema-values.js';
import { kindOf, operand as classedOperand, valueClasses } from './sweep-values.js';
import type { CallerKind } from './world.js';

/** A record of `fields`: the required ones mostly, others sometimes, each with a valid value. */
function record(fields: readonly FieldDefinition[]): fc.Arbitrary<[string, JsonTree][]> {
  const members = fields.map((field) =>
    fc.option(fieldValue(field).map((value): [string, JsonTree] => [field.name, toTree(value)]), { freq: field.required ? 10 : 2, nil: undefined }),
  );
  return fc.tuple(...members).map((present) => present.filter((m): m is [string, JsonTree] => m !== undefined));
}

/** One odd value: a number or date past what the column holds, or a string with NUL or control characters. */
const oddValue = fc.oneof(fc.constantFrom(...oddNumberTexts, ...oddDates), shortHostileString, fc.string({ maxLength: 6 }).map((s) => `${s}\u0000${s}`));

/** Operators of LIST's `where` (where.ts), with a few that are no operator of any type. */
const operatorNames = ['eq', 'ne', 'in', 'notIn', 'lt', 'lte', 'gt', 'gte', 'contains', 'startsWith', 'endsWith', 'isNull', 'has', 'hasSome', 'hasEvery', 'isEmpty', 'mode', 'like', '__proto__'];

/** A value of the kind `op` takes on `field` (a flag, a list, one value), in one of the sweep's classes. */
const classed = (field: FieldDefinition, op: string): fc.Arbitrary<JsonTree> => fc.tuple(fc.constantFrom(...valueClasses), fc.nat(99)).map(([klass, n]) => classedOperand(kindOf(field), op, klass, n, 'rest'));

/** A value for `op`: of the kind the operator takes, or valid for the field, a list of them, a flag, or an odd one. */
const operand = (field: FieldDefinition, op: string): fc.Arbitrary<JsonTree> =>
  fc.oneof(
    { weight: 3, arbitrary: classed(field, op) },
    { weight: 2, arbitrary: fc.oneof(fieldValue(field).map(toTree), fc.array(fieldValue(field).map(toTree), { maxLength: 4 }), fc.boolean(), fc.constantFrom('insensitive', 'INSENSITIVE'), oddValue.map((s): JsonTree => s)) },
  );

/**
 * `filter`'s JSON (GraphQL's `where`): conditions on the fields, nested AND/OR/NOT, through relations
 * (`customer: {…}`) and reverse sides (`projects: { some: {…} }`, with this entity's fields: valid for
 * a relation to its own entity, else refused), sometimes past the limits.
 */
function whereTree(fields: readonly FieldDefinition[], links: { relations: string[]; inverses: string[] } = { relations: [], inverses: [] }): fc.Arbitrary<JsonTree> {
  const condition = fc.constantFrom(...fields).chain((field) =>
    fc.array(fc.constantFrom(...operatorNames).chain((op) => fc.tuple(fc.constant(op), operand(field, op))), { minLength: 1, maxLength: 3 }).map((entries): [string, JsonTree] => [field.name, { entries }]),
  );
  const none = fc.constant(null);
  return fc.letrec<{ where: JsonTree }>((tie) => ({
    where: fc
      .array(
        fc.oneof(
          { weight: 4, arbitrary: condition },
          { weight: 1, arbitrary: fc.tuple(fc.constantFrom('AND', 'OR'), fc.array(tie('where'), { maxLength: 3 })) },
          { weight: 1, arbitrary: fc.tuple(fc.constant('NOT'), tie('where')) },
          { weight: links.relations.length ? 1 : 0, arbitrary: links.relations.length ? fc.tuple(fc.constantFrom(...links.relations), tie('where')) : none },
          {
            weight: links.inverses.length ? 1 : 0,
            arbitrary: links.inverses.length ? fc.tuple(fc.constantFrom(...links.inverses), fc.array(fc.tuple(fc.constantFrom('some', 'none', 'every', 'any'), tie('where')), { maxLength: 3 }).map((entries): JsonTree => ({ entries }))) : none,
          },
        ),
        { maxLength: 4 },
      )
      .map((entries) => ({ entries: entries.filter((e): e is [string, JsonTree] => e !== null) })),
  })).where;
}

/** One operator parameter (`{field}[op]=value`) or `filter=<JSON>`. */
export function operatorParameter(fields: readonly FieldDefinition[], links?: { relations: string[]; inverses: string[] }): fc.Arbitrary<[string, string]> {
  const param = fc.constantFrom(...fields).chain((field) =>
    fc.constantFrom(...operatorNames).chain((op) =>
      fc.oneof(classed(field, op).map(queryText), fieldValue(field).map((v) => (Array.isArray(v) ? v.join(',') : String(v))), oddValue).map((value): [string, string] => [`${field.name}[${op}]`, value]),
    ),
  );
  return fc.oneof(param, fc.oneof(whereTree(fields, links), hostileJson).map((tree): [string, string] => ['filter', jsonText(tree)]));
}

/** Requests for `op` about one entity at a time; null when `op` is not an entity route. */
export function entityRequests(op: ApiOperation, ctx: ValueContext, entities: readonly EntityDefinition[]): fc.Arbitrary<FuzzRequest> | null {
  const params = op.parameters.filter((p) => p.in === 'path');
  if (!params.some((p) => p.name === 'entity') || !entities.length) return null;
  const who = fc.record({
    caller: fc.constantFrom<CallerKind>('session', 'session', 'wildcardKey', 'narrowKey', 'anonymous'),
    keyHeader: fc.constantFrom<'authorization' | 'x-api-key'>('authorization', 'x-api-key'),
  });
  return fc.constantFrom(...entities).chain((entity) => {
    const child = entity.children.length ? fc.constantFrom(...entity.children) : fc.constant(null);
    return fc.tuple(who, child).chain(([caller, chosenChild]) => {
      const fields = chosenChild && params.some((p) => p.name === 'child') ? chosenChild.fields : entity.fields;
      const names = fields.map((f) => f.name);
      return fc
        .record({
          id: refsFor(`${entity.slug}Id`, ctx),
          childId: refsFor(`${chosenChild?.slug ?? entity.slug}Id`, ctx),
          body: record(fields),
          hostile: fc.option(fc.tuple(fc.nat(), fc.oneof(hostileJson, oddValue.map((s): JsonTree => s))), { freq: 3, nil: null }),
          twin: op.method === 'GET' ? fc.constant(false) : racing,
          filter: fc.option(fc.tuple(fc.tuple(fc.constantFrom(...names, 'page', 'limit', 'sortBy', 'fields', 'ids', 'from', 'to', 'search'), fc.constantFrom('', '', '_min', '_max')).map(([n, s]) => n + s), oddValue), { freq: 2, nil: null }),
          operators: op.method === 'GET' ? fc.option(operatorParameter(fields, chosenChild ? undefined : { relations: relationFields(entity).map((f) => f.relation), inverses: [...inversesOf(entity).map((i) => i.name), ...entity.links.map((f) => f.relation)] }), { freq: 2, nil: null }) : fc.constant(null),
        })
        .map(({ id, childId, body, hostile, filter, operators, twin }): FuzzRequest => {
          const values: Record<string, string> = { entity: entity.slug, id, child: chosenChild?.slug ?? 'none', childId };
          const path = params.reduce((p, param) => p.replace(`{${param.name}}`, percentEncode(values[param.name] ?? 'x')), op.path);
          if (hostile && body.length) body[hostile[0] % body.length] = [body[hostile[0] % body.length]![0], hostile[1]];
          else if (hostile) body.push([names[hostile[0] % names.length] ?? 'x', hostile[1]]);
          const text = op.body ? jsonText({ entries: body }) : null;
          return {
            kind: 'rest',
            route: `${op.method} ${op.path}`,
            method: op.method,
            target: path + queryString([...(filter ? [filter] : []), ...(operators ? [operators] : [])], null),
            ...caller,
            headers: text === null ? [] : [['content-type', 'application/json']],
            body: text === null ? undefined : [text],
            twin,
          };
        });
    });
  });
}

/** The values a list parameter of the document names (`items.enum`). */
const listedValues = (schema: JsonSchema | undefined): string[] => (schema?.type === 'array' ? (schema.items?.enum ?? []) : []).map(String);

/**
 * Requests for `entity`'s aggregate route: groupBy of one to three of the fields its document lists
 * (sometimes others), some measures naming their fields, an operator or `filter` sometimes.
 */
export function aggregateRequests(op: ApiOperation, entity: EntityDefinition): fc.Arbitrary<FuzzRequest> {
  const names = entity.fields.map((f) => f.name);
  const lists = op.parameters.filter((p) => p.in === 'query' && listedValues(p.schema).length);
  const pick = (values: string[]) => fc.oneof({ weight: 4, arbitrary: fc.subarray(values, { minLength: 1, maxLength: Math.min(3, values.length) }) }, { weight: 1, arbitrary: fc.subarray([...values, ...names, 'nope'], { minLength: 0, maxLength: 4 }) }).map((v) => v.join(','));
  const each = lists.map((p) => fc.option(pick(listedValues(p.schema)).map((v): [string, string] => [p.name, v]), { freq: p.name === 'groupBy' ? 2 : 3, nil: null }));
  const who = entity.access.public ? fc.constantFrom<CallerKind>('anonymous', 'session', 'wildcardKey') : fc.constantFrom<CallerKind>('session', 'wildcardKey', 'narrowKey');
  return fc
    .record({
      caller: who,
      pairs: fc.tuple(...each),
      count: fc.option(fc.constantFrom('true', 'false', 'yes'), { freq: 4, nil: null }),
      operators: fc.option(operatorParameter(entity.fields), { freq: 2, nil: null }),
    })
    .map(({ caller, pairs, count, operators }): FuzzRequest => {
      const query = [...pairs.filter((p): p is [string, string] => p !== null), ...(count ? [['count', count] as [string, string]] : []), ...(operators ? [operators] : [])];
      return { kind: 'rest', route: `GET ${op.path}`, method: 'GET', target: op.path + queryString(query, null), caller, keyHeader: 'authorization', headers: caller === 'wildcardKey' ? [['x-team-id', refText('attacker.teamId')]] : [] };
    });
}
