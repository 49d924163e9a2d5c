// The REST router: matches a declared route, validates path, query and body with its zod schemas,
// runs its operation in process and answers with the contract's envelope.
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import type { GraphQLSchema } from 'graphql';
import type { z } from 'zod';
import type { Context } from '../graphql/context.js';
import type { HttpRequest, HttpResponse } from '../http/exchange.js';
import { AppError } from '../shared/errors.js';
import { parseInput, parseInputExactly } from '../shared/validation.js';
import { readJsonBody } from './body.js';
import { failure, fromGraphQLErrors, success } from './envelope.js';
import { assertValidDocument, executeOperation } from './execute.js';
import type { RestRoute } from './route.js';

export interface RestMatch {
  route: RestRoute;
  params: Record<string, string | undefined>;
}

export interface RestRouter {
  /** The route for a request, 'method-not-allowed' when only the method differs, or null. */
  match(method: string, pathname: string): RestMatch | 'method-not-allowed' | null;
  handle(match: RestMatch, request: HttpRequest, ctx: Context): Promise<HttpResponse>;
  routes: readonly RestRoute[];
}

/** `{param}` → `:param` for find-my-way. */
const toRouterPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

export function createRestRouter(schema: GraphQLSchema, routes: readonly RestRoute[], bodyLimit: number): RestRouter {
  const router = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: true, caseSensitive: true });
  for (const route of routes) {
    assertValidDocument(schema, route.operation, `${route.method} ${route.path}`);
    router.on(route.method, toRouterPath(route.path), () => {}, { route });
  }
  const methods = [...new Set(routes.map((r) => r.method))];

  return {
    routes,
    match(method, pathname) {
      const found = router.find(method as 'GET', pathname);
      if (found) return { route: (found.store as { route: RestRoute }).route, params: found.params };
      return methods.some((m) => m !== method && router.find(m, pathname)) ? 'method-not-allowed' : null;
    },
    async handle({ route, params }, request, ctx) {
      const withCode = route.errorCodes !== false;
      try {
        const format = route.issueFormat ?? 'flat';
        const input = {
          params: parsePart(route.params, params, 'path parameters', format),
          query: parsePart(route.query, Object.fromEntries(request.url.searchParams), 'query parameters', format),
          body: route.body ? parsePart(route.body, await readJsonBody(request, bodyLimit), 'request body', format) : undefined,
        };
        const result = await executeOperation(schema, route.operation, route.variables(input), ctx);
        if (result.errors) return fromGraphQLErrors(result.errors, withCode);
        const data = result.data!;
        return success(route.status ?? 200, route.data(data), route.extras?.(data));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        ctx.fail();
        return failure(error.status, error.code, error.message, error.details, withCode);
      }
    },
  };
}

function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, what: string, format: 'flat' | 'zod'): T {
  if (!schema) return undefined as T;
  return format === 'zod' ? parseInputExactly(schema, value, `Invalid ${what}`) : parseInput(schema, value, `Invalid ${what}`);
}
