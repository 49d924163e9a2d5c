// Values from a JSON Schema (the OpenAPI document's): mostly what the schema asks for, with its edges
// (min-1, max+1, too long), seeded ids where an id is expected, and at every level a chance of a
// hostile value instead. Conforming values carry requests past validation into the services;
// the rest tries the validation itself.
import fc from 'fast-check';
import { hostileJson, hostileKey, hostileString, oddNumber, prototypeKeys, refText } from './hostile-values.js';
import { toTree, type JsonTree } from './json-text.js';

/** The parts of a JSON Schema (as zod writes them into the OpenAPI document) that values are made from. */
export interface JsonSchema {
  type?: string | string[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  $ref?: string;
}
type Schema = JsonSchema;

/** What value generators know of the seeded world. */
export interface ValueContext {
  /** Reference names of seeded ids and tokens (world.ts). */
  idRefs: readonly string[];
  /** Entity slugs, child slugs, field names, limit slugs. */
  names: readonly string[];
  /** Slugs by the parameter name that takes them (`entity`, `child`, `limitSlug`). */
  slugs: Readonly<Record<string, readonly string[]>>;
  /** Valid-looking values by entity field name (entity-values.ts). */
  fieldValues: ReadonlyMap<string, fc.Arbitrary<unknown>>;
  /** Only what the schema asks for (and its edges): no hostile value at any level. */
  conforming?: boolean;
}

/** The words of a name (`scheduled-actions` → scheduled, action; `victim.apiKeyId` → victim, api, key), singular, without `id`. */
function wordsOf(name: string): string[] {
  return (name.match(/[a-z]+|[A-Z][a-z]*|\d+/g) ?? []).map((w) => w.toLowerCase().replace(/s$/, '')).filter((w) => w !== 'id' && w !== 'v1' && w !== 'api' && w.length > 1);
}

/** References whose name shares a word with a parameter or property name (`teamId` → the team refs; `webhooksId` → the webhook refs), else all of them. */
export function refsFor(name: string, ctx: ValueContext): fc.Arbitrary<string> {
  const wanted = new Set(wordsOf(name));
  const fitting = wanted.size ? ctx.idRefs.filter((ref) => wordsOf(ref.slice(ref.indexOf('.') + 1)).some((w) => wanted.has(w))) : [];
  const pool = fitting.length ? fitting : ctx.idRefs;
  return fc.constantFrom(...pool).map(refText);
}

/** Whether values named `name` are ids, tokens or names of seeded things. */
export const namesSeeded = (name: string) => /(?:^id|Ids?|_ids?|token|^entity$|^child$|Slug$)$/i.test(name);

function stringValue(schema: Schema, name: string, ctx: ValueContext): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 50;
  const options: fc.Arbitrary<string>[] = [fc.string({ minLength: min, maxLength: Math.min(max, 60) })];
  const seeded = schema.format === 'uuid' || namesSeeded(name);
  const slugs = Object.hasOwn(ctx.slugs, name) ? ctx.slugs[name]! : [];
  // A slug is looked up by the request's word: Object.prototype's names are as interesting as the real ones.
  if (slugs.length) return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...slugs) }, { weight: 3, arbitrary: fc.constantFrom(...prototypeKeys) }, { weight: 1, arbitrary: fc.constantFrom(...ctx.names) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) });
  if (schema.format === undefined) options.push(fc.constantFrom(...ctx.names));
  if (schema.format === 'date-time') options.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()));
  if (schema.format === 'date') options.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)));
  if (schema.format === 'email') options.push(fc.emailAddress(), fc.constantFrom(refText('victim.email'), refText('attacker.email')));
  if (schema.format === 'uri') options.push(fc.webUrl());
  if (typeof schema.pattern === 'string' && !schema.format) {
    try {
      options.push(fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max));
    } catch {
      // A pattern JavaScript cannot read: the other options stay.
    }
  }
  if (schema.maxLength !== undefined) options.push(fc.constant('x'.repeat(max + 1)));
  if (min > 0) options.push(fc.constant('x'.repeat(min - 1)));
  // An id: a seeded one that fits mostly (so requests reach records), a random uuid, or any string.
  if (seeded) return fc.oneof({ weight: 6, arbitrary: refsFor(name, ctx) }, { weight: 1, arbitrary: fc.uuid() }, { weight: 1, arbitrary: fc.oneof(...options) });
  return fc.oneof(...options);
}

function numberValue(schema: Schema, integer: boolean): fc.Arbitrary<JsonTree> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : undefined);
  const inRange = integer
    ? fc.integer({ min: Math.max(min ?? -1000, Number.MIN_SAFE_INTEGER), max: Math.min(max ?? 1000, Number.MAX_SAFE_INTEGER) })
    : fc.double({ min: min ?? -1000, max: max ?? 1000, noNaN: true });
  const edges = [min, max, min !== undefined ? min - 1 : undefined, max !== undefined ? max + 1 : undefined].filter((n): n is number => n !== undefined);
  return fc.oneof({ weight: 3, arbitrary: inRange.map((n): JsonTree => n) }, { weight: 1, arbitrary: edges.length ? fc.constantFrom(...edges) : oddNumber }, { weight: 1, arbitrary: oddNumber });
}

/** A record keyed by entity field names (and hostile keys), for bodies the schema leaves open. */
function openObject(ctx: ValueContext): fc.Arbitrary<JsonTree> {
  const fieldNames = [...ctx.fieldValues.keys()];
  if (ctx.conforming) return fc.array(fc.constantFrom(...fieldNames).chain((name) => ctx.fieldValues.get(name)!.map((v): [string, JsonTree] => [name, toTree(v)])), { maxLength: 6 }).map((entries): JsonTree => ({ entries }));
  const entry = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...fieldNames).chain((name) => fc.tuple(fc.constant(name), fc.oneof({ weight: 3, arbitrary: ctx.fieldValues.get(name)!.map((v) => v as JsonTree) }, { weight: 1, arbitrary: hostileJson }))) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('metas', ...prototypeKeys), hostileJson) },
    { weight: 1, arbitrary: fc.tuple(hostileKey, hostileJson) },
  );
  return fc.array(entry, { maxLength: 6 }).map((entries): JsonTree => ({ entries }));
}

/** A value for `schema` (named `name` where it sits): conforming mostly, hostile sometimes. */
export function schemaValue(schema: Schema | undefined, name: string, ctx: ValueContext, depth = 0): fc.Arbitrary<JsonTree> {
  if (ctx.conforming) return conforming(schema ?? {}, name, ctx, depth);
  return fc.oneof({ weight: 6, arbitrary: conforming(schema ?? {}, name, ctx, depth) }, { weight: 1, arbitrary: hostileJson }, { weight: depth === 0 ? 0 : 1, arbitrary: hostileString.map((s): JsonTree => s) });
}

function conforming(schema: Schema, name: string, ctx: ValueContext, depth: number): fc.Arbitrary<JsonTree> {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches?.length) return fc.oneof(...branches.map((branch) => conforming(branch, name, ctx, depth)));
  if ('const' in schema) return fc.constant(toTree(schema.const));
  if (Array.isArray(schema.enum)) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...schema.enum.map(toTree)) }, { weight: 1, arbitrary: hostileString.map((s): JsonTree => s) });
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringValue(schema, name, ctx).map((s): JsonTree => s);
    case 'integer':
      return numberValue(schema, true);
    case 'number':
      return numberValue(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = depth > 4 ? hostileJson : schemaValue(schema.items, name, ctx, depth + 1);
      return fc.array(items, { minLength: 0, maxLength: Math.min(schema.maxItems ?? 4, 6) + (schema.maxItems !== undefined ? 1 : 0) });
    }
    case 'object': {
      const properties = schema.properties ?? {};
      if (!Object.keys(properties).length) return depth > 4 ? hostileJson : openObject(ctx);
      const required = new Set(schema.required ?? []);
      // Each property: present (required ones mostly), its value from its schema; sometimes an extra key.
      const members = Object.entries(properties).map(([key, member]) =>
        fc.option(schemaValue(member, key, ctx, depth + 1).map((value): [string, JsonTree] => [key, value]), { freq: required.has(key) ? 12 : 2, nil: undefined }),
      );
      const extra = fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(hostileKey, hostileJson) });
      return fc.tuple(fc.tuple(...members), extra).map(([present, more]): JsonTree => ({ entries: [...present, more].filter((e): e is [string, JsonTree] => e !== undefined) }));
    }
    default:
      return fc.oneof(hostileJson, fc.constantFrom(...ctx.names), openObject(ctx));
  }
}
