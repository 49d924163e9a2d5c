// Subscriptions run each event in a context of its own. graphql-js's subscribe executes every event
// with the context of the request that opened the subscription, whose transaction is over once the
// answer starts (http/pipeline.ts): a record's relation read through it would fail or, worse, read
// through a finished transaction. Here the source stream is made with the request's context (the
// subscribe resolver: authorization, filters, the hub), and each event is executed with a fresh
// context for the same caller (`realtime.detached`: its own transaction, dataloaders, request scope),
// finished when that event's result is complete. Events are executed one after another, in order.
import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
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

/** One event executed as the subscriber, in a context (and transaction) of its own. */
function executeEvent(args: ExecutionArgs, ctx: Context, payload: unknown): Promise<ExecutionResult> {
  return ctx.realtime.detached(ctx.actor, async (own) => execute({ ...args, rootValue: payload, contextValue: own }));
}

/** graphql-js's subscribe, with each event executed in its own context (see above). */
export async function subscribeEventByEvent(args: ExecutionArgs): Promise<ExecutionResult | AsyncIterableIterator<ExecutionResult>> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source as ExecutionResult;
  const ctx = args.contextValue as Context;
  return mapped(source[Symbol.asyncIterator](), (payload) => executeEvent(args, ctx, payload));
}

/** The envelop plugin that makes yoga (SSE) and the WebSocket transport subscribe so. */
export const eventByEventSubscriptions: Plugin<Context> = {
  onSubscribe: ({ setSubscribeFn }) => setSubscribeFn(subscribeEventByEvent as never),
};
