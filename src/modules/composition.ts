// Builds an app's composition from a module list: the GraphQL schema (a builder of its own, each
// module's registerSchema, one toSchema) and the route tables of both declaration kinds, frozen.
// `composition` is the platform's list's (index.ts), made when first imported; createApp({ modules })
// composes another list the same way (a subset of the modules: tests). Still process-wide, filled once
// from the platform's list: scope resources, usage counters and the queue's action handlers (with the
// rule each requires of its creator); the handler registry is sealed when an app is created
// (sealModules), so that tests may still register handlers of their own before that.
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { defineScopeResource } from '../auth/scopes.js';
import { createBuilder } from '../graphql/builder.js';
import type { HttpRoute } from '../rest/http-route.js';
import type { RestRoute } from '../rest/route.js';
import { modules } from './index.js';
import type { Services } from '../shared/services.js';
import type { ModuleDeps, ModuleDescription } from './module-description.js';
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

/** The services and workers of a module list, for one app (or one CLI command: services only). */
export interface ModuleRuntime {
  services: Services;
  /** Starts the workers (the app is ready); again does nothing. */
  startWorkers(): void;
  /** Stops the workers, waiting for their work in progress. */
  stopWorkers(): Promise<void>;
  /** Stops the workers, then closes the services. */
  close(): Promise<void>;
}

/** Makes the services of `list` now; its workers start with startWorkers. */
export function createModuleRuntime(list: readonly ModuleDescription[], deps: ModuleDeps): ModuleRuntime {
  const made = list.flatMap((m) => m.services ?? []).map((declaration) => ({ declaration, service: declaration.create(deps) as unknown }));
  const byName = new Map(made.map(({ declaration, service }) => [declaration.key.name, service]));
  const services: Services = {
    get(key) {
      if (!byName.has(key.name)) throw new Error(`No module of this app provides the service "${key.name}"`);
      return byName.get(key.name) as never;
    },
  };
  let running: Array<{ stop(): Promise<void> }> = [];
  let started = false;
  const stopWorkers = async () => {
    const stopping = running;
    running = [];
    await Promise.all(stopping.map((worker) => worker.stop()));
  };
  return {
    services,
    startWorkers() {
      if (started) return;
      started = true;
      running = list.flatMap((m) => m.workers ?? []).flatMap((worker) => worker.start({ ...deps, services }) ?? []);
    },
    stopWorkers,
    async close() {
      await stopWorkers();
      for (const { declaration, service } of made) await declaration.close?.(service);
    },
  };
}

/** The printed, sorted schema: schema/schema.graphql, the reviewed contract of the GraphQL API. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(composition.schema))}\n`;
}

/** Ends start-up: from now on no action handler may be registered. */
export function sealModules(): void {
  sealHandlers();
}
