// graphql-yoga serves /graphql (and GraphiQL in a browser). The request's context is the server
// context yoga is called with (see endpoint.ts), so resolvers and plugins share one object.
import { NoSchemaIntrospectionCustomRule, type GraphQLSchema } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { activeTracing } from '../telemetry/tracing.js';
import type { Context } from './context.js';
import { toClientError } from './errors.js';
import { graphiqlPage, graphiqlPolicy } from './graphiql.js';
import { defaultOperationLimits, operationLimitPlugins, type OperationLimits } from './limits.js';
import { eventByEventSubscriptions } from './subscriptions.js';
import { tracedOperations } from './traced-operations.js';

/** Marks the request failed (rollback) and makes every execution error client-safe, with the request's logger. */
const errorsToClient: Plugin<Context> = {
  onExecute: ({ args }) => ({
    onExecuteDone: ({ result, setResult }) => {
      if (!('errors' in result) || !result.errors?.length) return;
      const ctx = args.contextValue;
      ctx.fail();
      setResult({ ...result, errors: result.errors.map((error) => toClientError(error, ctx.log)) });
    },
  }),
};

/** Refuses `__schema` and `__type` in validation (graphql-js's own rule): no schema for whoever asks. */
const noIntrospection: Plugin<Context> = { onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule) };

export interface GraphQLServerOptions {
  /** Serve the GraphiQL page to browsers (GRAPHIQL). */
  graphiql?: boolean;
  /** Answer introspection queries (GRAPHQL_INTROSPECTION). */
  introspection?: boolean;
  /** Depth, aliases, tokens and cost of an operation (GRAPHQL_MAX_*); the defaults when absent. */
  limits?: OperationLimits;
  /** Where unexpected errors that yoga masks outside an execution (no request context there) are logged. */
  log?: Logger;
}

export function createGraphQLServer(schema: GraphQLSchema, { graphiql = true, introspection = true, limits = defaultOperationLimits, log }: GraphQLServerOptions = {}): YogaServerInstance<Context, Context> {
  const tracing = activeTracing();
  return createYoga<Context, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: graphiql && { title: 'Platform GraphiQL' },
    renderGraphiQL: graphiqlPage,
    landingPage: false,
    logging: false,
    multipart: false,
    maskedErrors: { maskError: (error) => toClientError(error, log) },
    plugins: [
      errorsToClient, eventByEventSubscriptions, graphiqlPolicy, ...(introspection ? [] : [noIntrospection]), ...operationLimitPlugins(limits),
      ...(tracing ? [tracedOperations(tracing)] : []),
    ],
  });
}
