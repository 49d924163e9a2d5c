// Builds an app's composition from a module list: the GraphQL schema (a builder of its own, each
// module's registerSchema, one toSchema) and the route tables of both declaration kinds, frozen.
// `composition` is the platform's list's (index.ts), made when first imported; createApp({ modules })
// composes another list the same way (a subset of the modules: tests). Still process-wide, filled once
// from the platform's list: scope resources, usage counters and the queue's action handlers (with the
// rule each requires of its creator); the handler registry is sealed when an app is created
// (sealModules), so that tests may still register handlers of their own before that.
import type { GraphQLSchema } from 'graphql';
import { defineScopeResource } from '../auth/scopes.js';
import { createBuilder } from '../graphql/builder.js';
import type { HttpRoute } from '../rest/http-route.js';
import type { RestRoute } from '../rest/route.js';
import { modules } from './index.js';
import type { ModuleDescription } from './module-description.js';
import { registerHandler, sealHandlers } from './scheduled-actions/registry.js';
import { defineUsageCounter } from './teams/plan-usage.js';

export interface Composition {
  schema: GraphQLSchema;
  /** Every module's JSON route declarations (defineRoute). */
  routes: readonly RestRoute[];
  /** Every module's HTTP route declarations (defineHttpRoute). */
  httpRoutes: readonly HttpRoute[];
}

/** The schema and routes of `list`, in its order (a module using another's types comes after it). */
export function compose(list: readonly ModuleDescription[]): Composition {
  const b = createBuilder();
  for (const module of list) module.registerSchema?.(b);
  return Object.freeze({
    schema: b.toSchema(),
    routes: Object.freeze(list.flatMap((m) => m.routes ?? [])),
    httpRoutes: Object.freeze(list.flatMap((m) => m.httpRoutes ?? [])),
  });
}

/** The process-wide registries, from the platform's list. */
function register(list: readonly ModuleDescription[]): void {
  for (const module of list) {
    for (const resource of module.scopes ?? []) defineScopeResource(resource.name, resource);
    for (const counter of module.usageCounters ?? []) defineUsageCounter(counter.limitSlug, counter.count);
    for (const action of module.actions ?? []) registerHandler(action.handler, action.creatorRule);
  }
}

register(modules);
export const composition: Composition = compose(modules);

/** Ends start-up: from now on no action handler may be registered. */
export function sealModules(): void {
  sealHandlers();
}
