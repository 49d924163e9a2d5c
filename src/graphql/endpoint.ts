// The /graphql endpoint. A JSON POST whose query parses and validates (the common request of every
// front-end) runs straight through yoga's envelop pipeline (same plugins, parse/validate caches,
// masking and error handling) and is answered with yoga's own result processor. Everything else
// (GraphiQL, GET queries, other media types, malformed bodies, invalid documents) goes to yoga's
// full HTTP handling, so answers are yoga's in every case; only the fetch-API round trip is skipped.
import { getOperationAST, type DocumentNode, type GraphQLSchema } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import { fromFetchResponse, reply, toFetchRequest, type HttpRequest, type HttpResponse } from '../http/exchange.js';
import { isJsonContentType, readLimitedText } from '../rest/body.js';
import type { Context } from './context.js';
import { createGraphQLServer } from './yoga.js';

interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  extensions?: Record<string, unknown>;
}

const paramNames = new Set(['query', 'variables', 'operationName', 'extensions']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The request's GraphQL parameters when they are plainly well-formed; null sends it to yoga. */
function plainParams(text: string): GraphQLParams | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(body) || typeof body.query !== 'string') return null;
  for (const key in body) if (!paramNames.has(key)) return null;
  const { query, variables, operationName, extensions } = body;
  if (variables != null && !isObject(variables)) return null;
  if (operationName != null && typeof operationName !== 'string') return null;
  if (extensions != null && !isObject(extensions)) return null;
  return { query, variables: variables ?? undefined, operationName: operationName ?? undefined, extensions: extensions ?? undefined };
}

/** yoga's choice of media type for these Accept values (see its result processors); null for any other. */
function plainMediaType(accept: string | null): string | null {
  switch (accept?.replace(/\s/g, '').toLowerCase()) {
    case undefined:
    case '':
    case '*/*':
    case 'application/json':
      return 'application/json';
    case 'application/graphql-response+json':
      return 'application/graphql-response+json';
    default:
      return null;
  }
}

export type GraphQLEndpoint = (request: HttpRequest, ctx: Context) => Promise<HttpResponse>;

export function createGraphQLEndpoint(schema: GraphQLSchema, bodyLimit: number): GraphQLEndpoint {
  const yoga = createGraphQLServer(schema);

  async function viaYoga(request: HttpRequest, ctx: Context, body?: string): Promise<HttpResponse> {
    return fromFetchResponse(await yoga.fetch(toFetchRequest(request, body), ctx));
  }

  return async function serve(request, ctx) {
    if (request.method !== 'POST' || !isJsonContentType(request.header('content-type'))) return viaYoga(request, ctx);
    const text = await readLimitedText(request, bodyLimit);
    const mediaType = plainMediaType(request.header('accept'));
    const params = mediaType ? plainParams(text) : null;
    if (!mediaType || !params) return viaYoga(request, ctx, text);

    // What yoga's own handler adds to the context before its plugins run: they read the request's
    // method (mutations only by POST) and the params, and classify parse errors by them (the parse
    // cache then holds the error exactly as yoga's path would make it).
    const enveloped = yoga.getEnveloped(Object.assign(ctx, { request: { method: request.method }, params }));
    let document: DocumentNode;
    try {
      document = enveloped.parse(params.query);
    } catch {
      return viaYoga(request, ctx, text);
    }
    const operation = getOperationAST(document, params.operationName);
    if (!operation || operation.operation === 'subscription' || enveloped.validate(enveloped.schema, document).length > 0) {
      return viaYoga(request, ctx, text);
    }
    const contextValue = await enveloped.contextFactory();
    const result = await enveloped.execute({ schema: enveloped.schema, document, contextValue, variableValues: params.variables, operationName: params.operationName });
    if (!result.errors?.length && !result.extensions) {
      return reply(200, JSON.stringify(result), { 'content-type': `${mediaType}; charset=utf-8` });
    }
    return fromFetchResponse(await processRegularResult(result, yoga.fetchAPI, mediaType));
  };
}
