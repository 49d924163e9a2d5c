// Argument values for GraphQL input types, read from the schema: right values of each type (seeded
// ids for ID, enum values, input objects field by field, JSON objects keyed by entity field names)
// and, at every level, a chance of a wrong one. Values are JSON trees, sent as variables or written
// inline as GraphQL literals.
import fc from 'fast-check';
import { isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, type GraphQLInputType } from 'graphql';
import { hostileJson, hostileKey, hostileString, oddNumber } from './hostile-values.js';
import { jsonText, type JsonTree } from './json-text.js';
import { namesSeeded, refsFor, schemaValue, type ValueContext } from './schema-values.js';

const scalarValue = (scalar: string, name: string, ctx: ValueContext): fc.Arbitrary<JsonTree> => {
  switch (scalar) {
    case 'ID':
      return fc.oneof({ weight: 4, arbitrary: refsFor(name, ctx) }, { weight: 1, arbitrary: fc.uuid() }, { weight: 1, arbitrary: hostileString }, { weight: 1, arbitrary: fc.integer() });
    case 'String':
      return namesSeeded(name) ? fc.oneof(refsFor(name, ctx), fc.constantFrom(...ctx.names), hostileString) : fc.oneof({ weight: 2, arbitrary: fc.string({ maxLength: 30 }) }, { weight: 1, arbitrary: fc.constantFrom(...ctx.names) }, { weight: 2, arbitrary: hostileString });
    case 'Int':
      return fc.oneof({ weight: 3, arbitrary: fc.integer({ min: -5, max: 200 }) }, { weight: 1, arbitrary: fc.integer() }, { weight: 1, arbitrary: oddNumber });
    case 'Float':
      return fc.oneof(fc.double({ noNaN: true }).map((n): JsonTree => n), oddNumber);
    case 'Boolean':
      return fc.boolean();
    case 'DateTime':
      return fc.oneof(fc.date({ noInvalidDate: true }).map((d): JsonTree => d.toISOString()), hostileString);
    case 'Date':
      return fc.oneof(fc.date({ noInvalidDate: true }).map((d): JsonTree => d.toISOString().slice(0, 10)), hostileString);
    case 'Upload':
      return fc.constant(null);
    default:
      // JSONObject and any other custom scalar: an object keyed by entity field names, or anything.
      return fc.oneof({ weight: 3, arbitrary: schemaValue({ type: 'object' }, name, ctx, 1) }, { weight: 1, arbitrary: hostileJson });
  }
};

/** A value for an argument or input field of type `type` named `name`. */
export function inputValue(type: GraphQLInputType, name: string, ctx: ValueContext, depth = 0): fc.Arbitrary<JsonTree> {
  const right = rightValue(type, name, ctx, depth);
  return fc.oneof({ weight: 7, arbitrary: right }, { weight: 1, arbitrary: hostileJson });
}

function rightValue(type: GraphQLInputType, name: string, ctx: ValueContext, depth: number): fc.Arbitrary<JsonTree> {
  if (isNonNullType(type)) return rightValue(type.ofType, name, ctx, depth);
  if (isListType(type)) return depth > 3 ? fc.constant([]) : fc.array(inputValue(type.ofType, name, ctx, depth + 1), { maxLength: 4 });
  if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((v) => v.name));
  if (isScalarType(type)) return scalarValue(type.name, name, ctx);
  if (isInputObjectType(type)) {
    if (depth > 3) return fc.constant({ entries: [] });
    const fields = Object.values(type.getFields()).map((field) =>
      fc.option(inputValue(field.type, field.name, ctx, depth + 1).map((value): [string, JsonTree] => [field.name, value]), { freq: isNonNullType(field.type) ? 12 : 2, nil: undefined }),
    );
    const extra = fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(hostileKey, hostileJson) });
    return fc.tuple(fc.tuple(...fields), extra).map(([present, more]): JsonTree => ({ entries: [...present, more].filter((e): e is [string, JsonTree] => e !== undefined) }));
  }
  return hostileJson;
}

/** `tree` as a GraphQL literal; strings naming an enum value are written bare when `enumValues` says so. */
export function graphqlLiteral(tree: JsonTree, enumValues: ReadonlySet<string> = new Set()): string {
  if (tree === null || typeof tree === 'boolean') return String(tree);
  if (typeof tree === 'number') return Number.isFinite(tree) ? String(tree) : '1e999';
  if (typeof tree === 'string') return enumValues.has(tree) ? tree : JSON.stringify(tree);
  if (Array.isArray(tree)) return `[${tree.map((t) => graphqlLiteral(t, enumValues)).join(', ')}]`;
  if ('raw' in tree) return tree.raw;
  if ('entries' in tree) return `{${tree.entries.map(([k, v]) => `${/^[_A-Za-z][_0-9A-Za-z]*$/.test(k) ? k : JSON.stringify(k)}: ${graphqlLiteral(v, enumValues)}`).join(', ')}}`;
  return jsonText(tree);
}
