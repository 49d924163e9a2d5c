// The Pothos builder of a composition (modules/composition.ts makes one per module list; each module's
// registerSchema adds its types and fields to it); scope-auth is wired for the whole schema: fields declare `authenticated`, `role` or `scope`.
// The dataloader plugin gives loadable fields (a list's field read for every record in one batch).
// Subscription fields are authorized when they open (authorizeOnSubscribe), not on every event.
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';
import { GraphQLUpload, Upload, type FileUpload } from 'graphql-upload-minimal';
import type { GlobalRole } from '../auth/actor.js';
import { refusalError, ruleChecks } from '../auth/rules.js';
import type { Context } from './context.js';
import { isDecimalText, numberText } from '../shared/decimal.js';

/** A builder with the platform's plugins, scalars and root types (tests build fixture schemas with their own). */
export function createBuilder() {
  const builder = new SchemaBuilder<{
    Context: Context;
    /**
     * The atoms of the platform's one rule (auth/rules.ts): `scope`: the caller holds one of the given
     * `entity:action` scopes; `anonymous`: nobody is signed in (public entity reads); `role`: at least
     * this global role; `nobody`: refuses everyone (an entity operation whose definition lists no
     * scope), naming the operation.
     */
    AuthScopes: { authenticated: boolean; session: boolean; anonymous: boolean; role: GlobalRole; scope: string | readonly string[]; nobody: string };
    Scalars: {
      DateTime: { Input: Date; Output: Date | string };
      JSONObject: { Input: Record<string, unknown>; Output: unknown };
      Date: { Input: string; Output: Date | string };
      JSON: { Input: unknown; Output: unknown };
      Decimal: { Input: string; Output: string };
      StringMap: { Input: Record<string, string | null>; Output: unknown };
      Upload: { Input: Promise<FileUpload>; Output: never };
    };
    DefaultFieldNullability: false;
  }>({
    // scope-auth first (Pothos' advice): its checks wrap every resolver, loadable ones included.
    plugins: [ScopeAuthPlugin, DataloaderPlugin],
    defaultFieldNullability: false,
    scopeAuth: {
      authScopes: (ctx) => ruleChecks(ctx.actor),
      // A subscription is authorized once, when it opens (its events then carry what the service let through).
      authorizeOnSubscribe: true,
      // The contract's answers: 401 for nobody, else 403 naming what was missing (the first failed rule).
      unauthorizedError: (_parent, ctx, _info, result) => refusalError(result.failure, ctx.actor),
    },
  });
  builder.addScalarType(
    'DateTime',
    new GraphQLScalarType({
      name: 'DateTime',
      description: 'An instant, as an ISO 8601 string in UTC.',
      serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
      parseValue: (value) => parseDate(value),
      parseLiteral: (ast) => (ast.kind === Kind.STRING ? parseDate(ast.value) : invalidDate()),
    }),
  );

  builder.addScalarType(
    'JSONObject',
    new GraphQLScalarType({
      name: 'JSONObject',
      description: 'A JSON object (settings and the like).',
      serialize: (value) => value,
      parseValue: (value) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError('JSONObject must be an object');
        return value as Record<string, unknown>;
      },
      parseLiteral: (ast, variables) => {
        if (ast.kind !== Kind.OBJECT) throw new TypeError('JSONObject must be an object');
        return valueFromASTUntyped(ast, variables) as Record<string, unknown>;
      },
    }),
  );

  builder.addScalarType(
    'Date',
    new GraphQLScalarType({
      name: 'Date',
      description: 'A calendar day, as YYYY-MM-DD.',
      serialize: (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value)),
      parseValue: (value) => parseDay(value),
      parseLiteral: (ast) => parseDay(ast.kind === Kind.STRING ? ast.value : null),
    }),
  );

  // Any JSON value (entity fields of type json); variables are JSON already, literals are read as JSON.
  builder.addScalarType(
    'JSON',
    new GraphQLScalarType({
      name: 'JSON',
      description: 'Any JSON value.',
      serialize: (value) => value,
      parseValue: (value) => value,
      parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
    }),
  );

  // Exact decimals (entity fields of type decimal): strings, so no digit is lost to floating point. A
  // literal may be written as a number (its text is kept as written); the field's validator checks
  // its digits against the field's precision and scale.
  builder.addScalarType(
    'Decimal',
    new GraphQLScalarType({
      name: 'Decimal',
      description: 'An exact decimal number, as a string ("12.30"); inputs may be numbers too.',
      serialize: (value) => String(value),
      // A number's digits without an exponent (1e-7 → "0.0000001"), as the field's validator reads them.
      parseValue: (value) => parseDecimalText(typeof value === 'number' && Number.isFinite(value) ? numberText(value) : value),
      parseLiteral: (ast) => parseDecimalText(ast.kind === Kind.STRING || ast.kind === Kind.INT || ast.kind === Kind.FLOAT ? ast.value : null),
    }),
  );

  builder.addScalarType(
    'StringMap',
    new GraphQLScalarType({
      name: 'StringMap',
      description: 'An object whose values are strings (metas); in an update, a null value removes the key.',
      serialize: (value) => value,
      parseValue: (value) => parseStringMap(value),
      parseLiteral: (ast, variables) => parseStringMap(ast.kind === Kind.OBJECT ? valueFromASTUntyped(ast, variables) : null),
    }),
  );

  // graphql-upload-minimal's scalar: a file of a multipart request (graphql/endpoint.ts) is a promise of
  // its stream. Its own parseValue throws the CommonJS copy of GraphQLError, which this (ESM) graphql
  // does not recognise, so a wrong value would be masked as a 500: the same checks, with errors that
  // say they are the client's (graphql keeps their extensions when it wraps them).
  const notAFile = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
  builder.addScalarType('Upload', GraphQLUpload, {
    description: 'A file, sent as multipart form data (the GraphQL multipart request spec: fields operations, map, then the files).',
    parseValue: (value) => {
      if (value instanceof Upload) return value.promise;
      throw notAFile('Upload value invalid: send files as multipart form data (GraphQL multipart request spec)');
    },
    parseLiteral: () => {
      throw notAFile('Upload literal unsupported: send files as variables of a multipart request');
    },
    serialize: () => {
      throw new GraphQLError('Upload serialization unsupported');
    },
  });

  builder.queryType({});
  builder.mutationType({});
  // The Subscription type is declared with its fields (realtime module): a schema without any has none.
  return builder;
}

export type Builder = ReturnType<typeof createBuilder>;

function parseDate(value: unknown): Date {
  const date = typeof value === 'string' ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date : invalidDate();
}

function parseDay(value: unknown): string {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))) return value;
  throw new TypeError('Date must be a day as YYYY-MM-DD');
}

function parseDecimalText(value: unknown): string {
  if (isDecimalText(value)) return value;
  throw new TypeError('Decimal must be a decimal number such as "12.30" (digits, an optional point and digits; no exponent)');
}

function parseStringMap(value: unknown): Record<string, string | null> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).every((v) => v === null || typeof v === 'string')) {
    throw new TypeError('StringMap must be an object whose values are strings (or null to remove a key)');
  }
  return value as Record<string, string | null>;
}

function invalidDate(): never {
  throw new TypeError('DateTime must be an ISO 8601 string');
}

