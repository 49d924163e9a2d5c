// With traces on (telemetry/), each operation /graphql executes (JSON, GET, multipart, WebSocket) runs
// in a span of its own (Tracing.operation), the parent of its SQL statements' spans; REST's compiled
// operations get the same span in rest/execute.ts. Last of yoga's plugins, so it wraps the execute
// function the others settled on. A subscription's span covers its opening (its authorization, its
// first reads), not the stream that follows: its events run later, each in a scope of its own.
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Tracing } from '../telemetry/tracing.js';
import type { Context } from './context.js';

/** yoga's plugin: the operation's execution in a span named by its type and name. */
export function tracedOperations(tracing: Tracing): Plugin<Context> {
  return {
    onExecute: ({ args, executeFn, setExecuteFn }) => {
      const operation = getOperationAST(args.document, args.operationName);
      const traced = { type: operation?.operation ?? 'query', name: operation?.name?.value } as const;
      setExecuteFn((executeArgs) => tracing.operation(traced, async () => executeFn(executeArgs)));
    },
    onSubscribe: ({ args, subscribeFn, setSubscribeFn }) => {
      const name = getOperationAST(args.document, args.operationName)?.name?.value;
      setSubscribeFn((subscribeArgs) => tracing.operation({ type: 'subscription', name }, async () => subscribeFn(subscribeArgs)));
    },
  };
}
