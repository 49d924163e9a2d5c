// Builds the app's registries from the module list (index.ts), once per process, when first imported:
// scope resources, usage counters, the queue's action handlers (with the scope each requires of its
// creator), the GraphQL schema (one builder, one toSchema) and the route tables of both declaration
// kinds. The tables are frozen; the handler registry is sealed when an app is created (sealModules),
// so that tests may still register handlers of their own before that.
import type { GraphQLSchema } from 'graphql';
import { defineScopeResource } from '../auth/scopes.js';
import { builder } from '../graphql/builder.js';
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

function compose(list: readonly ModuleDescription[]): Composition {
  for (const module of list) {
    for (const resource of module.scopes ?? []) defineScopeResource(resource.name, resource);
    for (const counter of module.usageCounters ?? []) defineUsageCounter(counter.limitSlug, counter.count);
    for (const action of module.actions ?? []) registerHandler(action.handler, action.creatorRule);
    module.registerSchema?.(builder);
  }
  return Object.freeze({
    schema: builder.toSchema(),
    routes: Object.freeze(list.flatMap((m) => m.routes ?? [])),
    httpRoutes: Object.freeze(list.flatMap((m) => m.httpRoutes ?? [])),
  });
}

export const composition: Composition = compose(modules);

/** Ends start-up: from now on no action handler may be registered. */
export function sealModules(): void {
  sealHandlers();
}
