// graphql-yoga serves /graphql (and GraphiQL in a browser) with the request's prebuilt context.
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { GraphQLSchema } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Context } from './context.js';
import { toClientError } from './errors.js';

export interface YogaServerContext {
  platform: Context;
}

/** Marks the request failed (rollback) and makes every execution error client-safe, with the request's logger. */
const errorsToClient: Plugin<Context> = {
  onExecute: ({ args }) => ({
    onExecuteDone: ({ result, setResult }) => {
      if (!('errors' in result) || !result.errors?.length) return;
      const ctx = args.contextValue;
      ctx.failed = true;
      setResult({ ...result, errors: result.errors.map((error) => toClientError(error, ctx.log)) });
    },
  }),
};

export function createGraphQLServer(schema: GraphQLSchema): YogaServerInstance<YogaServerContext, Context> {
  return createYoga<YogaServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    context: ({ platform }) => platform,
    graphiql: { title: 'Platform GraphiQL' },
    renderGraphiQL,
    landingPage: false,
    logging: false,
    multipart: false,
    maskedErrors: { maskError: (error) => toClientError(error, undefined) },
    plugins: [errorsToClient],
  });
}
