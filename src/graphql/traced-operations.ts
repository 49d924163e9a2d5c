// With traces on (telemetry/), each operation /graphql executes (JSON, GET, multipart, WebSocket) runs
// in a span of its own (Tracing.operation), the parent of its SQL statements' spans; REST's compiled
// operations get the same span in rest/execute.ts. Last of yoga's plugins, so it wraps the execute
// function the others settled on. Subscriptions are long-lived streams and get no operation span.
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
  };
}
