// The platform's typed client: REST through openapi-fetch, typed by the OpenAPI document the server
// serves (src/generated/openapi.ts, from GET /api/v1/openapi.json), and GraphQL with documents typed
// by the schema (GraphQL Code Generator's client preset: src/generated/graphql, or a preset of your
// own over schema/schema.graphql and your documents). Both carry the same credentials: an API key, or a
// session cookie (a browser sends it by itself), and the team to act in.
import createFetchClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/openapi.js';

export type { paths, components } from './generated/openapi.js';

/** A GraphQL document with its result and variables types (the client preset's `graphql()` makes them). */
export interface TypedDocument<TResult, TVariables> {
  toString(): string;
  /** Carried for inference only. */
  __apiType?: (variables: TVariables) => TResult;
}

export interface GraphQLError {
  message: string;
  path?: readonly (string | number)[];
  extensions?: { code?: string; [key: string]: unknown };
}

/** A GraphQL answer: `data` when the operation ran, `errors` (extensions.code) when any part failed. */
export interface GraphQLResult<TResult> {
  data?: TResult | null;
  errors?: GraphQLError[];
}

export interface PlatformClientOptions {
  /** The server's origin, e.g. `https://api.example.com` (no trailing path). */
  baseUrl: string;
  /** An API key (`sk_live_…`), sent as `Authorization: Bearer`. Without one, a browser's session cookie is used. */
  apiKey?: string;
  /** The team to act in, for a key or a user of several teams (`X-Team-Id`). */
  teamId?: string;
  /** More headers on every request. */
  headers?: Record<string, string>;
  /** A fetch of your own (tests, proxies, retries); the global fetch otherwise. */
  fetch?: typeof fetch;
}

/** What a path's GET answers with 200. */
type GetAnswer<P extends keyof paths> = paths[P] extends { get: { responses: { 200: { content: { 'application/json': infer A } } } } } ? A : never;

/** The paths (without path parameters) whose GET answers a page: `data` a list, with `pagination` (`/api/v1/tasks`, `/api/v1/tasks/trash`…). */
export type ListPath = { [P in keyof paths]: P extends `${string}{${string}` ? never : GetAnswer<P> extends { data: unknown[]; pagination: unknown } ? P : never }[keyof paths];

/** A LIST's record: `ListItem<'/api/v1/tasks'>` is `Task` (distinct mode's DistinctValue items left out). */
export type ListItem<P extends ListPath> = Exclude<GetAnswer<P> extends { data: (infer Item)[] } ? Item : never, components['schemas']['DistinctValue']>;

/** A LIST's query parameters, but `distinct` (which answers DistinctValue items: `rest.GET` takes it). */
export type ListQuery<P extends ListPath> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? Omit<NonNullable<Q>, 'distinct'> : never;

type GetResponses<P extends keyof paths> = paths[P] extends { get: { responses: infer R } } ? R : never;
/** The error envelopes a path's GET may answer (every status but 200). */
type GetError<P extends keyof paths> = { [S in Exclude<keyof GetResponses<P>, 200>]: GetResponses<P>[S] extends { content: { 'application/json': infer E } } ? E : never }[Exclude<keyof GetResponses<P>, 200>];

/** A LIST's answer: its records and pagination, or the error envelope; `response` either way. */
export type ListResult<P extends ListPath> =
  | { data: { items: ListItem<P>[]; pagination: components['schemas']['Pagination'] }; error?: never; response: Response }
  | { data?: never; error: GetError<P> | components['schemas']['Error']; response: Response };

export interface PlatformClient {
  /** `/api/v1`: `rest.GET('/api/v1/tasks', { params: { query: { limit: 20 } } })`, typed by path, method and body. */
  rest: Client<paths>;
  /** A page of records: `list('/api/v1/tasks', { limit: 20 })` gives `data.items` as `Task[]`, no union to narrow. */
  list<P extends ListPath>(path: P, query?: ListQuery<P>): Promise<ListResult<P>>;
  /** `/graphql`: runs a typed document with its variables. */
  graphql<TResult, TVariables>(document: TypedDocument<TResult, TVariables>, ...variables: TVariables extends Record<string, never> ? [] : [TVariables]): Promise<GraphQLResult<TResult>>;
}

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  if (options.teamId) headers['x-team-id'] = options.teamId;
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  const rest = createFetchClient<paths>({ baseUrl, headers, fetch: (request: Request) => send(request), credentials: 'include' });
  return {
    rest,
    async list(path, query) {
      // The path's GET through the typed client; without `distinct`, every item of `data` is a record.
      const { data, error, response } = (await rest.GET(path as never, { params: { query } } as never)) as { data?: { data: unknown[]; pagination: components['schemas']['Pagination'] }; error?: unknown; response: Response };
      if (error !== undefined || !data) return { error: error ?? { success: false, error: `${response.status} ${response.statusText}`, code: 'BAD_RESPONSE' }, response } as never;
      return { data: { items: data.data, pagination: data.pagination }, response } as never;
    },
    async graphql(document, ...[variables]) {
      const response = await send(`${baseUrl}/graphql`, {
        method: 'POST',
        credentials: 'include',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
        body: JSON.stringify({ query: document.toString(), variables: variables ?? {} }),
      });
      const text = await response.text();
      try {
        return JSON.parse(text) as GraphQLResult<never>;
      } catch {
        return { errors: [{ message: `${response.status} ${response.statusText}: ${text.slice(0, 200)}`, extensions: { code: 'BAD_RESPONSE' } }] };
      }
    },
  };
}
