// The /graphql endpoint. A JSON POST whose query parses and validates (the common request of every
// front-end) runs straight through yoga's envelop pipeline (same plugins, parse/validate caches,
// masking and error handling) and is answered with yoga's own result processor. Everything else
// (GraphiQL, GET queries, other media types, malformed bodies, invalid documents) goes to yoga's
// full HTTP handling, so answers are yoga's in every case; only the fetch-API round trip is skipped.
// Subscriptions go to yoga too: over Server-Sent Events (Accept: text/event-stream), its answer is
// streamed (http/exchange.ts); over a WebSocket (pipeline/websocket.ts) each operation runs `overSocket`.
//
// Files: a multipart POST (the GraphQL multipart request spec, multipart.ts) runs the same way, its
// body cut off at the upload limit; its Upload variables are promises of file streams that resolvers
// read as the parts arrive (Upload scalar, builder.ts). Files no resolver reads are read and dropped.
// Parts come in one stream, so a request with files runs one root field: the one the files are for.
// Operations it will not run (unreadable, invalid) are answered by yoga as if they had come as JSON.
//
// CSRF: a cross-site form can POST multipart or url-encoded bodies (not JSON, which needs a CORS
// preflight), so such a POST must carry a header no form can set (GraphQL-Preflight, or Apollo's
// Apollo-Require-Preflight / X-Apollo-Operation-Name), else 403 CSRF_REJECTED; the app's Origin check
// (pipeline/csrf.ts) applies as to every request.
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import { fromFetchResponse, reply, toFetchRequest, type HttpRequest, type HttpResponse } from '../http/exchange.js';
import { isJsonContentType, readLimitedText } from '../http/body.js';
import { AppError } from '../shared/errors.js';
import type { Context } from './context.js';
import { toClientError } from './errors.js';
import { asJsonRequest, claimedUploads, drain, isFormPostWithoutPreflight, isMultipartRequest, readOperations, rootFieldCount, type MultipartLimits, type Refusal } from './multipart.js';
import { createGraphQLServer, type GraphQLServerOptions } from './yoga.js';

export interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  extensions?: Record<string, unknown>;
}

export interface GraphQLEndpointLimits {
  /** The largest JSON body (BODY_LIMIT_BYTES); also the largest `operations` or `map` field of a multipart request. */
  bodyLimitBytes: number;
  /** Multipart requests (uploads): the largest body and the most files. */
  multipart: { bodyLimitBytes: number; maxFiles: number; idleMs: number };
  /** GraphiQL and introspection on or off (GRAPHIQL, GRAPHQL_INTROSPECTION); both on when absent. */
  server?: GraphQLServerOptions;
}

const paramNames = new Set(['query', 'variables', 'operationName', 'extensions']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The GraphQL parameters of a request body when they are plainly well-formed; null sends it to yoga. */
function paramsOf(body: unknown): GraphQLParams | null {
  if (!isObject(body) || typeof body.query !== 'string') return null;
  for (const key in body) if (!paramNames.has(key)) return null;
  const { query, variables, operationName, extensions } = body;
  if (variables != null && !isObject(variables)) return null;
  if (operationName != null && typeof operationName !== 'string') return null;
  if (extensions != null && !isObject(extensions)) return null;
  return { query, variables: variables ?? undefined, operationName: operationName ?? undefined, extensions: extensions ?? undefined };
}

function plainParams(text: string): GraphQLParams | null {
  try {
    return paramsOf(JSON.parse(text));
  } catch {
    return null;
  }
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

/** The first JSON media type an Accept header takes, in its order (as yoga picks); null when none. */
function acceptedMediaType(accept: string | null): string | null {
  const plain = plainMediaType(accept);
  if (plain) return plain;
  for (const range of (accept ?? '').split(',')) {
    const type = range.split(';')[0]!.trim().toLowerCase();
    if (type === 'application/graphql-response+json') return type;
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return 'application/json';
  }
  return null;
}

/** What an operation sent over a WebSocket came to: refused before it ran, or its result (a subscription's stream). */
export type SocketOutcome = { refused: readonly GraphQLError[] } | { document: DocumentNode; result: ExecutionResult | AsyncIterable<ExecutionResult> };

export interface GraphQLEndpoint {
  (request: HttpRequest, ctx: Context): Promise<HttpResponse>;
  /**
   * Runs an operation that came over a WebSocket (graphql-ws) with the request's context, through
   * yoga's envelop pipeline as /graphql's (limits, masking, event-by-event subscriptions).
   */
  overSocket(params: GraphQLParams, ctx: Context): Promise<SocketOutcome>;
}

/** Why yoga refused with an empty body: a media type it does not read (415), or no acceptable answer (406). */
const emptyRefusals: Record<number, { code: string; message: string }> = {
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported Content-Type: send application/json, application/graphql or multipart/form-data' },
  406: { code: 'NOT_ACCEPTABLE', message: 'No acceptable media type: accept application/graphql-response+json or application/json' },
};

/** yoga's 415 and 406 come without a body; a GraphQL client reads why from `errors` (found by the fuzzer). */
function withErrorBody(response: HttpResponse): HttpResponse {
  const refusal = emptyRefusals[response.status];
  const empty = response.body === null || (response.body instanceof Uint8Array && response.body.byteLength === 0);
  if (!refusal || !empty) return response;
  response.body = JSON.stringify({ errors: [{ message: refusal.message, extensions: { code: refusal.code } }] });
  response.headers['content-type'] = 'application/json; charset=utf-8';
  return response;
}

export function createGraphQLEndpoint(schema: GraphQLSchema, limits: GraphQLEndpointLimits): GraphQLEndpoint {
  const yoga = createGraphQLServer(schema, limits.server);
  const multipartLimits: MultipartLimits = { ...limits.multipart, fieldLimitBytes: limits.bodyLimitBytes };

  async function viaYoga(request: HttpRequest, ctx: Context, body?: string): Promise<HttpResponse> {
    return withErrorBody(await fromFetchResponse(await yoga.fetch(toFetchRequest(request, body), ctx)));
  }

  /** A parsed, valid operation of `params`, with its pipeline; null when yoga must answer (unparsable, invalid, subscription). */
  function prepare(request: HttpRequest, ctx: Context, params: GraphQLParams) {
    // What yoga's own handler adds to the context before its plugins run: they read the request's
    // method (mutations only by POST) and the params, and classify parse errors by them (the parse
    // cache then holds the error exactly as yoga's path would make it).
    const enveloped = yoga.getEnveloped(Object.assign(ctx, { request: { method: request.method }, params }));
    let document: DocumentNode;
    try {
      document = enveloped.parse(params.query);
    } catch {
      return null;
    }
    const operation = getOperationAST(document, params.operationName);
    if (!operation || operation.operation === 'subscription' || enveloped.validate(enveloped.schema, document).length > 0) return null;
    const execute = async () => {
      const contextValue = await enveloped.contextFactory();
      return enveloped.execute({ schema: enveloped.schema, document, contextValue, variableValues: params.variables, operationName: params.operationName });
    };
    return { document, operation, execute };
  }

  async function answer(result: ExecutionResult, mediaType: string): Promise<HttpResponse> {
    if (!result.errors?.length && !result.extensions) {
      return reply(200, JSON.stringify(result), { 'content-type': `${mediaType}; charset=utf-8` });
    }
    return fromFetchResponse(await processRegularResult(result, yoga.fetchAPI, mediaType));
  }

  /** A request refused before execution, as a GraphQL error (no data). */
  const refuse = ({ message, code, status }: Refusal, mediaType: string) => answer({ errors: [new GraphQLError(message, { extensions: { code, http: { status } } })] }, mediaType);

  async function serveMultipart(request: HttpRequest, ctx: Context): Promise<HttpResponse> {
    const mediaType = acceptedMediaType(request.header('accept'));
    if (!mediaType) return refuse({ message: 'Accept a JSON media type (application/graphql-response+json or application/json)', code: 'NOT_ACCEPTABLE', status: 406 }, 'application/json');
    const read = await readOperations(request, multipartLimits);
    if ('refusal' in read) return refuse(read.refusal, mediaType);
    const { operations, uploads, body } = read;
    try {
      const params = paramsOf(operations);
      const prepared = params && prepare(request, ctx, params);
      if (!prepared) {
        const json = asJsonRequest(request, operations);
        return await viaYoga(json.request, ctx, json.body);
      }
      // Files mapped anywhere but into the operation's Upload variables are never read by a resolver.
      const claimed = claimedUploads(schema, prepared.operation, params.variables);
      for (const upload of uploads) if (!claimed.has(upload)) drain(upload);
      if (claimed.size === 0) {
        // No resolver reads a file: the body is read to its end before anything runs.
        await body.ended;
        if (body.tooLarge) throw body.tooLarge;
      } else if (rootFieldCount(prepared.document, prepared.operation.selectionSet) > 1) {
        // A second field's files would wait behind the first field's in the one stream.
        return await refuse({ message: 'A request with files runs one field: the one the files are for', code: 'BAD_REQUEST', status: 400 }, mediaType);
      }
      const result = await prepared.execute();
      for (const upload of uploads) drain(upload);
      // The resolver read its files: what is left is the closing boundary, or files it left (dropped).
      // After errors the rest is not waited for (the connection then closes); a body cut off at the
      // limit explains them.
      if (!result.errors?.length) await body.ended;
      else if (body.tooLarge) throw body.tooLarge;
      return await answer(result, mediaType);
    } finally {
      for (const upload of uploads) drain(upload);
    }
  }

  async function overSocket(params: GraphQLParams, ctx: Context): Promise<SocketOutcome> {
    const enveloped = yoga.getEnveloped(Object.assign(ctx, { request: { method: 'POST' }, params }));
    let document: DocumentNode;
    try {
      document = enveloped.parse(params.query);
    } catch (error) {
      return { refused: [toClientError(error, ctx.log)] };
    }
    const invalid = enveloped.validate(enveloped.schema, document);
    if (invalid.length) return { refused: invalid.map((error: GraphQLError) => toClientError(error, ctx.log)) };
    const operation = getOperationAST(document, params.operationName);
    if (!operation) return { refused: [new GraphQLError('Unable to identify the operation to run (operationName)', { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } })] };
    const args = { schema: enveloped.schema, document, contextValue: await enveloped.contextFactory(), variableValues: params.variables, operationName: params.operationName };
    const result = operation.operation === 'subscription' ? await enveloped.subscribe(args) : await enveloped.execute(args);
    return { document, result: result as ExecutionResult | AsyncIterable<ExecutionResult> };
  }

  return Object.assign(async function serve(request: HttpRequest, ctx: Context) {
    if (isFormPostWithoutPreflight(request)) throw new AppError('CSRF_REJECTED', 'A multipart or form POST to /graphql must carry a GraphQL-Preflight header (any value)');
    if (isMultipartRequest(request)) return serveMultipart(request, ctx);
    if (request.method !== 'POST' || !isJsonContentType(request.header('content-type'))) return viaYoga(request, ctx);
    const text = await readLimitedText(request, limits.bodyLimitBytes);
    const mediaType = plainMediaType(request.header('accept'));
    const params = mediaType ? plainParams(text) : null;
    const prepared = params && prepare(request, ctx, params);
    if (!mediaType || !prepared) return viaYoga(request, ctx, text);
    return answer(await prepared.execute(), mediaType);
  }, { overSocket });
}
