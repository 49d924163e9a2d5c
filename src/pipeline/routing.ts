// The router of /api and /uploads: both declaration kinds in one place. An HTTP declaration (bytes,
// streams, cron) is matched first, then a JSON route (defineRoute); a path either kind takes for other
// methods answers 405 with Allow (in the error format of the HTTP route when it is one); anything else
// under them is left to the app's 404.
import type { Config } from '../config/config.js';
import { ruleScopes } from '../graphql/operation-scopes.js';
import type { HttpMatch, HttpRouter, StartedHttpRoute } from '../rest/http-route.js';
import { methodNotAllowed, type RestMatch, type RestRouter } from '../rest/router.js';
import type { HttpResponse } from '../http/exchange.js';
import type { RouteTraits } from './pipeline.js';

export type Routed =
  | { kind: 'rest'; match: RestMatch; route: string }
  | { kind: 'http'; match: HttpMatch; route: string }
  | { kind: 'refused'; response: HttpResponse; route: 'unmatched' };

export interface ApiRouter {
  /** The route of a request under /api or /uploads, a 405, or null (no such path, or not ours). */
  match(method: string, pathname: string): Routed | null;
}

const owns = (pathname: string) => pathname.startsWith('/api/') || pathname.startsWith('/uploads/');

export function createApiRouter(rest: RestRouter, http: HttpRouter): ApiRouter {
  return {
    match(method, pathname) {
      if (!owns(pathname)) return null;
      const byHttp = http.match(method, pathname);
      if (byHttp && 'started' in byHttp) return { kind: 'http', match: byHttp, route: byHttp.started.route.path };
      const byRest = pathname.startsWith('/api/') ? rest.match(method, pathname) : null;
      if (byRest && 'route' in byRest) return { kind: 'rest', match: byRest, route: byRest.route.path };
      const allow = [...new Set([...(byHttp?.allow ?? []), ...(byRest?.allow ?? [])])];
      if (allow.length === 0) return null;
      return { kind: 'refused', response: methodNotAllowed(method, pathname, allow, byHttp?.errorCodes ?? true), route: 'unmatched' };
    },
  };
}

/** What the pipeline takes from an HTTP declaration: its field's rule (required, and its scopes paid for), error format, body limit and where its network I/O runs. */
export function httpRouteTraits(started: Extract<StartedHttpRoute, { pipeline: true }>, config: Config): RouteTraits {
  const { route, rule } = started;
  return { scopes: rule ? ruleScopes(rule) : undefined, requires: rule ?? undefined, errorCodes: route.errorCodes, bodyLimitBytes: route.bodyLimitBytes?.(config), networkIo: route.networkIo };
}
