// The words of the composition root. A *module* is one domain (accounts, teams, media…); its
// *description* (src/modules/<domain>/module.ts) says everything the app takes from it: the scope
// *resources* API keys may name, the *usage counters* of plan limits, the *actions* the queue runs
// (with the rule each requires of its creator), its REST *routes* (defineRoute), its *HTTP routes*
// (defineHttpRoute: bytes, streams, the cron answer), how its GraphQL types are registered, its
// *services* (made once per app, found by key) and its *workers* (started when the app is ready,
// stopped when it closes). One list (src/module-list.ts: the platform's, then the app's) names the modules; composition.ts builds
// the app's registries from it.
import type { Logger } from 'pino';
import type { ScopeResource } from '../auth/scopes.js';
import type { Rule } from '../auth/rules.js';
import type { Builder } from '../graphql/builder.js';
import type { HttpRoute } from '../rest/http-route.js';
import type { RestRoute } from '../rest/route.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import type { ServiceKey, Services } from '../shared/services.js';
import type { ActionHandler } from './scheduled-actions/interfaces.js';
import type { UsageCounterDeclaration } from './teams/plan-usage.js';

/** A resource (`media`, `teams`, an entity slug) whose `resource:action` scopes keys may carry. */
export type ScopeResourceDeclaration = ScopeResource;

/** A plan limit's counter (teams/plan-usage.ts). */
export type { UsageCounterDeclaration } from './teams/plan-usage.js';

/** An action type of the queue, and the rule its creator must pass (auth/rules.ts): to create it through the API, and when it runs. */
export interface ActionDeclaration<P = never> {
  handler: ActionHandler<P>;
  creatorRule?: (payload: P) => Rule;
}

/** What a module's services and workers are made from: the app's own. */
export interface ModuleDeps {
  config: Config;
  database: Database;
  logger: Logger;
  now(): Date;
}

/** A service of the module (media storage): made once per app, closed when the app closes. */
export interface ServiceDeclaration<T> {
  key: ServiceKey<T>;
  create(deps: ModuleDeps): T;
  close?(service: T): Promise<void>;
}

/**
 * Background work of the module (the scheduler, the orphan sweep): started when the app is ready (its
 * migrations applied), stopped, waiting for work in progress, when it closes. Null: not configured to run.
 */
export interface WorkerDeclaration {
  name: string;
  start(deps: ModuleDeps & { services: Services }): { stop(): Promise<void> } | null;
}

/**
 * A worker that runs `work` every `everyMs` (and once at start with `atStart`), one run at a time:
 * a failure is logged under the worker's name and the next run comes as planned; stopping waits for
 * the run in progress. The retention sweeps (history and trash, audit, the realtime event log).
 */
export function periodicWorker(name: string, schedule: { everyMs: number; atStart: boolean }, work: (deps: ModuleDeps) => Promise<unknown>): WorkerDeclaration {
  return {
    name,
    start: (deps) => {
      let running: Promise<unknown> = Promise.resolve();
      const run = () => {
        running = running.then(() => work(deps)).catch((error: unknown) => deps.logger.error({ err: error }, `${name} failed`));
      };
      if (schedule.atStart) run();
      const timer = setInterval(run, schedule.everyMs);
      timer.unref();
      return {
        stop: async () => {
          clearInterval(timer);
          await running;
        },
      };
    },
  };
}

export interface ModuleDescription {
  name: string;
  scopes?: readonly ScopeResourceDeclaration[];
  usageCounters?: readonly UsageCounterDeclaration[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each action has its own payload type
  actions?: readonly ActionDeclaration<any>[];
  routes?: readonly RestRoute[];
  httpRoutes?: readonly HttpRoute[];
  /**
   * Registers the module's GraphQL types and fields on the builder of a composition (composition.ts
   * makes one per module list, so a module registers nothing by being imported).
   */
  registerSchema?(builder: Builder): void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each service has its own type
  services?: readonly ServiceDeclaration<any>[];
  workers?: readonly WorkerDeclaration[];
}

/** Declares a module; the description is frozen (it does not change after start-up). */
export function defineModule(description: ModuleDescription): ModuleDescription {
  return Object.freeze({ ...description });
}

/** A service declaration with its type checked between its key, its making and its closing. */
export function defineService<T>(declaration: ServiceDeclaration<T>): ServiceDeclaration<T> {
  return declaration;
}

/** An action declaration with its payload type checked against its creator-rule function. */
export function defineAction<P>(declaration: ActionDeclaration<P>): ActionDeclaration<P> {
  return declaration;
}
