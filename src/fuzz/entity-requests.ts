// Focused requests for the entity routes, written over their generic form (`/api/v1/{entity}…`;
// openapi-arbitraries.ts maps each concrete route, `/api/v1/tasks/{id}`, onto it with its one
// entity): each request uses the entity's fields, with valid values, then one odd thing (a filter at
// 2^31 or year 0, a NUL, a hostile member), so that creates and updates reach the database and the
// REST edge's query-string parser meets odd values; LISTs also get operator parameters and `filter`
// JSON (nested groups, past the limits, wrong operators). A new entity is fuzzed with no change here.
import fc from 'fast-check';
import { inversesOf, relationFields, type EntityDefinition, type FieldDefinition } from '../config/entity-definition.js';
import { fieldValue } from './entity-values.js';
import type { FuzzRequest } from './fuzz-request.js';
import { hostileJson, oddDates, oddNumberTexts, shortHostileString } from './hostile-values.js';
import { percentEncode, queryString, racing } from './http-parts.js';
import { jsonText, toTree, type JsonTree } from './json-text.js';
import type { ApiOperation } from './openapi-arbitraries.js';
import { refsFor, type ValueContext } from './schema-values.js';
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

/** A value for an operator: valid for the field, a list of them, a flag, or an odd one. */
const operand = (field: FieldDefinition): fc.Arbitrary<JsonTree> =>
  fc.oneof(fieldValue(field).map(toTree), fc.array(fieldValue(field).map(toTree), { maxLength: 4 }), fc.boolean(), fc.constantFrom('insensitive', 'INSENSITIVE'), oddValue.map((s): JsonTree => s));

/**
 * `filter`'s JSON (GraphQL's `where`): conditions on the fields, nested AND/OR/NOT, through relations
 * (`customer: {…}`) and reverse sides (`projects: { some: {…} }`, with this entity's fields: valid for
 * a relation to its own entity, else refused), sometimes past the limits.
 */
function whereTree(fields: readonly FieldDefinition[], links: { relations: string[]; inverses: string[] } = { relations: [], inverses: [] }): fc.Arbitrary<JsonTree> {
  const condition = fc.constantFrom(...fields).chain((field) =>
    fc.array(fc.tuple(fc.constantFrom(...operatorNames), operand(field)), { minLength: 1, maxLength: 3 }).map((entries): [string, JsonTree] => [field.name, { entries }]),
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
    fc.tuple(fc.constantFrom(...operatorNames), fc.oneof(fieldValue(field).map((v) => (Array.isArray(v) ? v.join(',') : String(v))), oddValue)).map(([op, value]): [string, string] => [`${field.name}[${op}]`, value]),
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
