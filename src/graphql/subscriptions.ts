// Subscriptions run each event in a context of its own. graphql-js's subscribe executes every event
// with the context of the request that opened the subscription, whose transaction is over once the
// answer starts (pipeline/pipeline.ts): a record's relation read through it would fail or, worse, read
// through a finished transaction. Here the source stream is made with the request's context (the
// subscribe resolver: authorization, filters, the hub), and each event is executed with a fresh
// context for the same caller (`realtime.detached`: its own transaction, dataloaders, request scope),
// finished when that event's result is complete. Events are executed one after another, in order.
// An event is executed once for every subscriber who would get the same result: the hub hands one
// object per change to the subscribers who read it alike, and those with the same document, variables
// and authority (user, team, roles, scopes: everything a resolver or a rule reads of the caller, not
// which session or key) share its execution. A thousand subscriptions of one user with a nested
// relation then cost one execution per event, not a thousand.
import { createSourceEventStream, execute, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Actor } from '../auth/actor.js';
import type { Context } from './context.js';

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> => typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/** `source`'s items mapped one at a time by `map`; `return()` reaches the source at once, even while an item is awaited. */
function mapped<T, R>(source: AsyncIterator<T>, map: (item: T) => Promise<R>): AsyncIterableIterator<R> {
  const close = () => source.return?.() ?? Promise.resolve({ value: undefined, done: true as const });
  const iterator: AsyncIterableIterator<R> = {
    async next() {
      const next = await source.next();
      if (next.done) return { value: undefined, done: true };
      try {
        return { value: await map(next.value), done: false };
      } catch (error) {
        await close().catch(() => {});
        throw error;
      }
    },
    async return() {
      await close();
      return { value: undefined, done: true };
    },
    async throw(error?: unknown) {
      await close();
      throw error;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** Executions of an event, by the event (one object for all who read it alike) and then by `executionKey`; gone with the event. */
const executions = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();
const documentIds = new WeakMap<DocumentNode, number>();
let documents = 0;

/** What an event's result depends on besides the event: the operation (yoga's parse cache makes equal documents one object) and the caller's authority. */
function executionKey(args: ExecutionArgs, actor: Actor): string {
  let document = documentIds.get(args.document);
  if (document === undefined) documentIds.set(args.document, (document = documents++));
  const authority = actor.kind === 'user' ? { ...actor, sessionId: null, apiKeyId: null } : actor;
  return JSON.stringify([document, args.operationName ?? null, args.variableValues ?? null, authority]);
}

/** One event executed as the subscriber, in a context (and transaction) of its own, or the result of the same execution for another subscriber. */
function executeEvent(args: ExecutionArgs, ctx: Context, payload: unknown): Promise<ExecutionResult> {
  const run = () => ctx.realtime.detached(ctx.actor, async (own) => execute({ ...args, rootValue: payload, contextValue: own }));
  if (typeof payload !== 'object' || payload === null) return run();
  const key = executionKey(args, ctx.actor);
  let byKey = executions.get(payload);
  if (!byKey) executions.set(payload, (byKey = new Map()));
  let result = byKey.get(key);
  if (!result) {
    const byThisEvent = byKey;
    byKey.set(key, (result = run()));
    // A failed execution is not shared: the next subscriber tries again.
    result.catch(() => byThisEvent.delete(key));
  }
  return result;
}

/** graphql-js's subscribe, with each event executed in its own context (see above). */
export async function subscribeEventByEvent(args: ExecutionArgs): Promise<ExecutionResult | AsyncIterableIterator<ExecutionResult>> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source as ExecutionResult;
  const ctx = args.contextValue as Context & { request?: Request };
  const events = mapped(source[Symbol.asyncIterator](), (payload) => executeEvent(args, ctx, payload));
  // A subscriber over SSE who leaves ends the subscription at once, by its connection (yoga's context
  // carries the fetch Request, whose signal is the client's connection's: http/node.ts). Cancelling
  // yoga's event stream did not always reach it: in the fuzzer's long run, a subscription left while
  // its next change was awaited was returned only when a change came (its filter matched none: never),
  // and stayed counted against its holders. Over WebSocket, graphql-ws returns it.
  const signal = ctx.request?.signal;
  const end = () => events.return?.().catch(() => undefined);
  if (signal?.aborted) await end();
  else signal?.addEventListener('abort', () => void end(), { once: true });
  return events;
}

/** The envelop plugin that makes yoga (SSE) and the WebSocket transport subscribe so. */
export const eventByEventSubscriptions: Plugin<Context> = {
  onSubscribe: ({ setSubscribeFn }) => setSubscribeFn(subscribeEventByEvent as never),
};
