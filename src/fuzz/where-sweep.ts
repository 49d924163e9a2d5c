// Every operator on every field of every entity, enumerated rather than drawn by chance: the filters a
// fuzzer's random draws reach seldom (`slug[isNull]=true` on a required field needs the operator, the
// field and the value `true` at once) are each one case here. From the GraphQL schema's where types
// (their condition fields and operators, their relations and to-many sides) and the entity
// definitions (every field, filterable or not, required or not), on each face:
//   REST `?{field}[{op}]=value` for every field and every operator name (refused ones too);
//   REST `filter=` JSON, plain and inside AND, OR and NOT, and through relations and to-many sides;
//   GraphQL `where` (as a variable and inline), at the root and through the same paths, and on the
//   to-many fields of a record (`customers { items { projects(where: …) } }`);
//   subscriptions (the REST events route, the GraphQL subscription over SSE) with each field's operators.
// Values come in four classes (sweep-values.ts). The core (returned apart) is, for each field, every
// operator the schema gives it at once with valid values, on REST and GraphQL: cheap enough for every
// test run.
import { getNamedType, isEnumType, isInputObjectType, isObjectType, type GraphQLInputObjectType, type GraphQLSchema } from 'graphql';
import { type EntityDefinition } from '../config/entity-definition.js';
import { relationFields } from '../config/entity-relations.js';
import { graphqlNames } from '../modules/entities/graphql-names.js';
import type { FuzzRequest } from './fuzz-request.js';
import { graphqlLiteral } from './graphql-values.js';
import { queryText } from './http-parts.js';
import { jsonText, type JsonTree } from './json-text.js';
import { callersOf, graphqlPost, restGet, selectionOf, streamed } from './sweep-requests.js';
import { everyOperator, kindNamed, operand, valueClasses, type Face, type ValueClass } from './sweep-values.js';
import type { CallerKind } from './world.js';

/** One member of a where type: a field's conditions (its operators), a relation (its target's where), or a to-many side (some/none/every of a where). */
type Member = { kind: 'condition'; name: string; ops: string[]; enums: Set<string> } | { kind: 'one' | 'many'; name: string; where: GraphQLInputObjectType };

/** An entity whose LIST the schema has, with its root field and where type. */
export interface Listed {
  d: EntityDefinition;
  list: string;
  where: GraphQLInputObjectType;
}

const obj = (...entries: [string, JsonTree][]): JsonTree => ({ entries });

/** The entities the schema lists with a where, in definition order. */
export function listedEntities(schema: GraphQLSchema, entities: readonly EntityDefinition[]): Listed[] {
  const query = schema.getQueryType()?.getFields() ?? {};
  return entities.flatMap((d) => {
    const list = graphqlNames(d).list;
    const where = query[list]?.args.find((a) => a.name === 'where');
    const type = where && getNamedType(where.type);
    return d.operations.list && type && isInputObjectType(type) ? [{ d, list, where: type }] : [];
  });
}

/** The members of a where type, in schema order (AND, OR and NOT left out). */
export function membersOf(where: GraphQLInputObjectType): Member[] {
  return Object.values(where.getFields()).flatMap((field): Member[] => {
    const type = getNamedType(field.type);
    if (['AND', 'OR', 'NOT'].includes(field.name) || !isInputObjectType(type)) return [];
    const fields = type.getFields();
    if (fields.some) return [{ kind: 'many', name: field.name, where: getNamedType(fields.some.type) as GraphQLInputObjectType }];
    if (fields.AND) return [{ kind: 'one', name: field.name, where: type }];
    const enums = new Set(Object.values(fields).flatMap((f) => { const t = getNamedType(f.type); return isEnumType(t) ? t.getValues().map((v) => v.name) : []; }));
    return [{ kind: 'condition', name: field.name, ops: Object.keys(fields), enums }];
  });
}

/** `tree` alone, or inside AND, OR or NOT (by `n`). */
function wrapped(tree: JsonTree, n: number): JsonTree {
  return [tree, obj(['AND', [tree]]), obj(['OR', [tree, tree]]), obj(['NOT', tree])][n % 4]!;
}

/** The steps from an entity's where to another's: none, then through one relation or to-many side (each quantifier), then two. */
type Path = { steps: [string, string | null][]; where: GraphQLInputObjectType };

function pathsOf(where: GraphQLInputObjectType, depth: number): Path[] {
  if (depth === 0) return [];
  return membersOf(where).flatMap((m): Path[] => {
    if (m.kind === 'condition') return [];
    const quantifiers = m.kind === 'many' ? ['some', 'none', 'every'] : [null];
    return quantifiers.flatMap((q) => {
      const step: [string, string | null] = [m.name, q];
      return [{ steps: [step], where: m.where }, ...pathsOf(m.where, depth - 1).map((p) => ({ steps: [step, ...p.steps], where: p.where }))];
    });
  });
}

/** `inner` reached through `steps` (`{ projects: { some: { customer: inner } } }`). */
function along(steps: [string, string | null][], inner: JsonTree): JsonTree {
  return steps.reduceRight<JsonTree>((tree, [name, q]) => obj([name, q ? obj([q, tree]) : tree]), inner);
}

export interface Sweep {
  core: FuzzRequest[];
  rest: FuzzRequest[];
}

/** The where sweep of every listed entity. */
export function whereSweep(schema: GraphQLSchema, entities: readonly EntityDefinition[]): Sweep {
  const listed = listedEntities(schema, entities);
  const owner = new Map(listed.map((l) => [l.where.name, l.d]));
  const core: FuzzRequest[] = [];
  const rest: FuzzRequest[] = [];
  for (const { d, list, where } of listed) {
    let turn = 0;
    const callers = callersOf(d);
    const who = (): CallerKind => callers[turn++ % callers.length]!;
    const route = `/api/v1/${d.slug}`;
    const gql = (tree: JsonTree, n: number, inline?: Set<string>) =>
      inline && n % 2
        ? graphqlPost(who(), `Query.${list}`, `query Sweep { ${list}(where: ${graphqlLiteral(tree, inline)}) { items { id } } }`)
        : graphqlPost(who(), `Query.${list}`, `query Sweep($where: ${where.name}) { ${list}(where: $where) { items { id } } }`, { where: tree });
    const conditions = membersOf(where).filter((m): m is Extract<Member, { kind: 'condition' }> => m.kind === 'condition');

    // The core: every operator the schema gives each field at once (conditions of one field combine with AND), with valid values, on REST's query string and GraphQL; the rest of the sweep has them one at a time.
    for (const [i, c] of conditions.entries()) {
      const kind = kindNamed(d, c.name);
      // Each face meets each caller in turn (two callers taken in turn by the two faces would pair them for good).
      const [first, second] = [callers[i % callers.length]!, callers[(i + 1) % callers.length]!];
      core.push(restGet(first, route, c.ops.map((op): [string, string] => [`${c.name}[${op}]`, queryText(operand(kind, op, 'valid', 0, 'rest'))])));
      const condition = obj(...c.ops.map((op): [string, JsonTree] => [op, operand(kind, op, 'valid', 0, 'graphql')]));
      core.push(graphqlPost(second, `Query.${list}`, `query Sweep($where: ${where.name}) { ${list}(where: $where) { items { id } } }`, { where: obj([c.name, condition]) }));
    }

    // Subscriptions with each field's operators (all at once): the REST events route and the GraphQL subscription over SSE, read while a record changes.
    const subscription = Object.values(schema.getSubscriptionType()?.getFields() ?? {}).find((f) => f.args.some((a) => a.name === 'where' && getNamedType(a.type) === where));
    for (const [i, c] of conditions.entries()) {
      const kind = kindNamed(d, c.name);
      rest.push(streamed(restGet(callers[i % callers.length]!, `${route}/events`, c.ops.map((op): [string, string] => [`${c.name}[${op}]`, queryText(operand(kind, op, 'valid', i, 'rest'))])), d));
      if (!subscription) continue;
      const condition = obj(...c.ops.map((op): [string, JsonTree] => [op, operand(kind, op, 'valid', i, 'graphql')]));
      const query = `subscription Sweep($where: ${where.name}) { ${subscription.name}(where: $where) ${selectionOf(getNamedType(subscription.type), 1)} }`;
      rest.push(streamed(graphqlPost(callers[(i + 1) % callers.length]!, `Subscription.${subscription.name}`, query, { where: obj([c.name, condition]) }), d));
    }

    // Every field of the definition (filterable or not, the stamps, a relation's name, names of none) with every operator name, in every class of value.
    const names = [...d.fields.map((f) => f.name), ...d.links.map((f) => f.name), 'createdAt', 'updatedAt', ...relationFields(d).map((f) => f.relation), 'id', 'nope'];
    let n = 0;
    for (const name of names) {
      const accepted = conditions.find((c) => c.name === name)?.ops ?? [];
      for (const op of everyOperator) {
        // An operator the field does not take is refused whatever its value: one case.
        const classes: readonly ValueClass[] = accepted.includes(op) ? valueClasses : ['valid'];
        for (const klass of classes) {
          const kind = kindNamed(d, name);
          rest.push(restGet(who(), route, [[`${name}[${op}]`, queryText(operand(kind, op, klass, n, 'rest'))]]));
          rest.push(restGet(who(), route, [['filter', jsonText(wrapped(obj([name, obj([op, operand(kind, op, klass, n, 'rest')])]), n))]]));
          n++;
        }
      }
    }

    // GraphQL: each operator of each field in every class, as a variable or inline (Date and DateTime parse both ways).
    for (const c of conditions) {
      for (const op of c.ops) {
        for (const klass of valueClasses) {
          rest.push(gql(wrapped(obj([c.name, obj([op, operand(kindNamed(d, c.name), op, klass, n, 'graphql')])]), n), n, c.enums));
          n++;
        }
      }
    }

    // Through relations and to-many sides (one and two steps), each operator of the far entity's fields with a valid value (a flag both ways), on both faces.
    for (const path of pathsOf(where, 2)) {
      const far = owner.get(path.where.name);
      if (!far) continue;
      const farConditions = membersOf(path.where).filter((m): m is Extract<Member, { kind: 'condition' }> => m.kind === 'condition');
      for (const c of farConditions) {
        // Two steps away: the flags and the first operator only (the far entity's own sweep has the rest).
        const ops = path.steps.length > 1 ? c.ops.filter((op, i) => i === 0 || op === 'isNull' || op === 'isEmpty') : c.ops;
        for (const op of ops) {
          const classes: ValueClass[] = op === 'isNull' || op === 'isEmpty' ? ['valid', 'boundary'] : ['valid'];
          for (const klass of classes) {
            const condition = (face: Face) => obj([c.name, obj([op, operand(kindNamed(far, c.name), op, klass, n, face)])]);
            rest.push(restGet(who(), route, [['filter', jsonText(along(path.steps, condition('rest')))]]));
            rest.push(gql(along(path.steps, condition('graphql')), n));
            n++;
          }
        }
      }
    }
  }
  rest.push(...nestedWheres(schema, listed, owner));
  return { core, rest };
}

/** GraphQL: the to-many fields of each entity's records (`customers { items { projects(where: …) } }`), each operator of their where with a valid value. */
function nestedWheres(schema: GraphQLSchema, listed: Listed[], owner: Map<string, EntityDefinition>): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  for (const { d, list } of listed) {
    const type = schema.getType(graphqlNames(d).type);
    if (!type || !isObjectType(type)) continue;
    let turn = 0;
    for (const field of Object.values(type.getFields())) {
      const arg = field.args.find((a) => a.name === 'where');
      const where = arg && getNamedType(arg.type);
      const far = where && owner.get(where.name);
      if (!where || !isInputObjectType(where) || !far) continue;
      for (const m of membersOf(where)) {
        if (m.kind !== 'condition') continue;
        for (const op of m.ops) {
          const callers = callersOf(d);
          const value = obj([m.name, obj([op, operand(kindNamed(far, m.name), op, 'valid', 0, 'graphql')])]);
          out.push(graphqlPost(callers[turn++ % callers.length]!, `Query.${list}`, `query Sweep($where: ${where.name}) { ${list} { items { id ${field.name}(where: $where, limit: 5) { id } } } }`, { where: value }));
        }
      }
    }
  }
  return out;
}
