// The one Pothos builder. Modules register their types and fields on it (src/graphql/schema.ts lists
// them); scope-auth is wired for the whole schema: fields declare `authenticated`, `role` or `scope`.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';
import type { GlobalRole } from '../auth/actor.js';
import { hasGlobalRole } from '../auth/actor.js';
import { hasScope } from '../auth/scopes.js';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import { forbidden, unauthenticated } from '../shared/errors.js';
import type { Context } from './context.js';
import { lazyPrismaClient } from './lazy-prisma.js';

/** A builder with the platform's plugins, scalars and root types (tests build fixture schemas with their own). */
export function createBuilder() {
  const builder = new SchemaBuilder<{
    Context: Context;
    PrismaTypes: PrismaTypes;
    AuthScopes: { authenticated: boolean; session: boolean; role: GlobalRole; scope: string };
    Scalars: { DateTime: { Input: Date; Output: Date | string }; JSONObject: { Input: Record<string, unknown>; Output: unknown } };
    DefaultFieldNullability: false;
  }>({
    plugins: [ScopeAuthPlugin, PrismaPlugin],
    defaultFieldNullability: false,
    scopeAuth: {
      authScopes: (ctx) => {
        const { actor } = ctx;
        const user = actor.kind === 'user' ? actor : null;
        return {
          authenticated: user !== null,
          session: user?.via === 'session',
          role: (required) => user !== null && hasGlobalRole(user.role, required),
          scope: (required) => user !== null && hasScope(user.scopes, required),
        };
      },
      unauthorizedError: (_parent, ctx) => (ctx.actor.kind === 'anonymous' ? unauthenticated() : forbidden()),
    },
    prisma: {
      client: (ctx) => lazyPrismaClient(ctx.db),
      dmmf: getDatamodel(),
      exposeDescriptions: false,
      onUnusedQuery: null,
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

  builder.queryType({});
  builder.mutationType({});
  return builder;
}

export type Builder = ReturnType<typeof createBuilder>;

/** The platform's schema builder: every module registers its types on it (src/graphql/schema.ts). */
export const builder = createBuilder();

function parseDate(value: unknown): Date {
  const date = typeof value === 'string' ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date : invalidDate();
}

function invalidDate(): never {
  throw new TypeError('DateTime must be an ISO 8601 string');
}

