// The REST router: matches a declared route, validates path, query and body with its zod schemas,
// runs its operation in process and answers with the contract's envelope. At start-up it gives each
// route the scopes its operation's root fields require (operation-scopes.ts): key rate limits and the
// documentation read them there, and no declaration repeats them.
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import type { GraphQLSchema } from 'graphql';
import type { z } from 'zod';
import type { Context } from '../graphql/context.js';
import { operationRefusal, operationRules } from '../graphql/operation-authority.js';
import { operationScopes } from '../graphql/operation-scopes.js';
import type { HttpRequest, HttpResponse } from '../http/exchange.js';
import { AppError } from '../shared/errors.js';
import { parseInput, parseInputExactly } from '../shared/validation.js';
import { readJsonBody } from '../http/body.js';
import { failure, fromGraphQLErrors, success } from './envelope.js';
import { compileOperation, type CompiledOperation } from './execute.js';
import type { RestRoute } from './route.js';

export interface RestMatch {
  route: RestRoute;
  params: Record<string, string | undefined>;
  /** The operation's root-field authScopes rules (operation-authority.ts). */
  rules: readonly Record<string, unknown>[];
  /** The route's operation, compiled at start-up. */
  run: CompiledOperation;
}

/** The path exists, not for this method: the 405 answer lists what it does take (`Allow`). */
export interface MethodNotAllowed {
  allow: string[];
}

export interface RestRouter {
  /** The route for a request, the methods the path takes when only the method differs, or null. */
  match(method: string, pathname: string): RestMatch | MethodNotAllowed | null;
  handle(match: RestMatch, request: HttpRequest, ctx: Context): Promise<HttpResponse>;
  /** The declared routes, each with its derived `scopes`. */
  routes: readonly RestRoute[];
}

/** `{param}` → `:param` for find-my-way. */
const toRouterPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** The declared routes with the scopes their operations derive (the router's routes, and the OpenAPI document's). */
export function withScopes(schema: GraphQLSchema, declared: readonly RestRoute[]): RestRoute[] {
  return declared.map((route): RestRoute => ({ ...route, scopes: operationScopes(schema, route.operation) }));
}

export function createRestRouter(schema: GraphQLSchema, declared: readonly RestRoute[], bodyLimit: number): RestRouter {
  const router = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: true, caseSensitive: true });
  const routes = withScopes(schema, declared);
  for (const route of routes) {
    const run = compileOperation(schema, route.operation, `${route.method} ${route.path}`, route.storedValues);
    // The fields' authScopes rules, asked before any input is read (operation-authority.ts).
    router.on(route.method, toRouterPath(route.path), () => {}, { route, run, rules: operationRules(schema, route.operation) });
  }
  const methods = [...new Set(routes.map((r) => r.method))];

  /** The methods `pathname` takes, leaving out routes their declaration disables for its parameters. */
  function allowed(pathname: string): string[] {
    return methods.filter((m) => {
      const found = router.find(m, pathname);
      return found && ((found.store as { route: RestRoute }).route.enabled?.(found.params) ?? true);
    });
  }

  return {
    routes,
    match(method, pathname) {
      const found = router.find(method as 'GET', pathname);
      if (found) {
        const { route, rules, run } = found.store as Required<Omit<RestMatch, 'params'>>;
        return { route, params: found.params, rules, run };
      }
      // A path no enabled route takes (an entity path naming no entity) is no resource: 404.
      const allow = allowed(pathname);
      return allow.length > 0 ? { allow } : null;
    },
    async handle({ route, params, rules, run }, request, ctx) {
      const withCode = route.errorCodes !== false;
      try {
        // A caller the operation refuses hears 401/403, not what is wrong with input they may not send.
        const refusal = operationRefusal(rules, ctx.actor);
        if (refusal) throw refusal;
        const format = route.issueFormat ?? 'flat';
        const input = {
          params: parsePart(route.params, params, 'path parameters', format),
          query: parsePart(route.query, Object.fromEntries(request.url.searchParams), 'query parameters', format),
          body: route.body ? parsePart(route.body, await readJsonBody(request, bodyLimit), 'request body', format) : undefined,
        };
        const result = await run(route.variables(input), ctx);
        if (result.errors) return withAllow(fromGraphQLErrors(result.errors, withCode, route.parameterNames), request.url.pathname);
        const data = result.data!;
        return success(route.status ?? 200, route.data(data), route.extras?.(data));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        ctx.fail();
        return withAllow(failure(error.status, error.code, error.message, error.details, withCode), request.url.pathname);
      }
    },
  };

  /** A 405 from the operation (an entity's disabled operation) names the methods the path does take. */
  function withAllow(response: HttpResponse, pathname: string): HttpResponse {
    if (response.status === 405) response.headers.allow = allowed(pathname).join(', ');
    return response;
  }
}

/** The 405 answer: the envelope, and `Allow` with the methods the path takes (RFC 9110 requires it). */
export function methodNotAllowed(method: string, pathname: string, allow: readonly string[], withCode = true): HttpResponse {
  const response = failure(405, 'METHOD_NOT_ALLOWED', `Method ${method} is not allowed on ${pathname}`, undefined, withCode);
  response.headers.allow = allow.join(', ');
  return response;
}

function parsePart<T>(schema: z.ZodType<T> | undefined, value: unknown, what: string, format: 'flat' | 'zod'): T {
  if (!schema) return undefined as T;
  return format === 'zod' ? parseInputExactly(schema, value, `Invalid ${what}`) : parseInput(schema, value, `Invalid ${what}`);
}
