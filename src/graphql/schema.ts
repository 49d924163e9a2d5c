// The one schema: every module registers its types on the builder; the module list
// (src/modules/index.ts) names the modules and composition.ts calls toSchema once.
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { composition } from '../modules/composition.js';

export const schema: GraphQLSchema = composition.schema;

/** The printed, sorted schema: schema/schema.graphql, the reviewed contract of the GraphQL API. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
