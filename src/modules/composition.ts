// Builds an app's composition from a module list: the GraphQL schema (a builder of its own, each
// module's registerSchema, one toSchema) and the route tables of both declaration kinds, frozen (the
// platform's list's is made once: src/module-list.ts; createApp({ modules }) composes another list the
// same way). A list's runtime (createModuleRuntime) holds the rest, per app:
// its modules' services and workers, and what the list declares for the core to look up: the scope
// resources keys may name, the usage counters of plan limits and the queue's action handlers. Nothing
// is process-wide: two apps of two lists in one process have each their own.
import type { GraphQLSchema } from 'graphql';
import { scopeResourcesKey, scopeResourcesOf } from '../auth/scopes.js';
import { createBuilder } from '../graphql/builder.js';
import type { HttpRoute } from '../rest/http-route.js';
import type { RestRoute } from '../rest/route.js';
import type { ServiceKey, Services } from '../shared/services.js';
import type { ModuleDeps, ModuleDescription } from './module-description.js';
import { actionHandlersKey, actionHandlersOf } from './scheduled-actions/registry.js';
import { usageCountersKey, usageCountersOf } from './teams/plan-usage.js';

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
  const declared = list.flatMap((m) => m.services ?? []);
  if (new Set(declared.map((d) => d.key)).size < declared.length) throw new Error('Two modules of the list provide one service');
  const made = declared.map((declaration) => ({ declaration, service: declaration.create(deps) as unknown }));
  const entries: Array<readonly [ServiceKey<unknown>, unknown]> = [
    ...made.map(({ declaration, service }) => [declaration.key, service] as const),
    [scopeResourcesKey, scopeResourcesOf(list.flatMap((m) => m.scopes ?? []))],
    [usageCountersKey, usageCountersOf(list.flatMap((m) => m.usageCounters ?? []))],
    [actionHandlersKey, actionHandlersOf(list.flatMap((m) => m.actions ?? []))],
  ];
  const byKey = new Map(entries);
  const services: Services = {
    get(key) {
      if (!byKey.has(key)) throw new Error(`No module of this app provides the service "${key.name}"`);
      return byKey.get(key) as never;
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
