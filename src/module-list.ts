// The composition root: the platform's modules (src/modules/index.ts), then the app's own (src/app/),
// in one list, and the platform's composition of it (schema and route tables, made when this is first
// imported). It stands above both folders, so neither imports the other's list.
import { lexicographicSortSchema, printSchema } from 'graphql';
import { appModules } from './app/index.js';
import { compose, type Composition } from './modules/composition.js';
import { platformModules } from './modules/index.js';
import type { ModuleDescription } from './modules/module-description.js';

export const modules: readonly ModuleDescription[] = Object.freeze([...platformModules, ...appModules]);

export const composition: Composition = compose(modules);

/** The printed, sorted schema: schema/schema.graphql, the reviewed contract of the GraphQL API. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(composition.schema))}\n`;
}
