// The one schema: every module registers its types on the builder; this file lists the modules.
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import '../modules/accounts/schema.js';
import '../modules/api-keys/schema.js';
import '../modules/teams/schema.js';
import '../modules/entities/schema.js';
import '../modules/media/schema.js';
import '../modules/scheduled-actions/schema.js';
import '../modules/webhooks/schema.js';

export const schema: GraphQLSchema = builder.toSchema();

/** The printed, sorted schema: schema/schema.graphql, the reviewed contract of the GraphQL API. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
