// Cross-site request forgery: a state-changing request that rides on the session cookie (or signs in)
// must come from our own origin or a configured one. SameSite=Lax cookies are the first guard.
import type { Config } from '../config/config.js';
import { sessionCookieName } from '../auth/session-cookie.js';
import type { HttpRequest } from '../http/exchange.js';
import { isTrustedOrigin } from '../http/headers.js';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether the request must be refused as a possible cross-site forgery. */
export function isCrossSiteForgery(request: HttpRequest, config: Config): boolean {
  const { url } = request;
  if (safeMethods.has(request.method)) return false;
  const cookie = request.header('cookie') ?? '';
  const ridesOnCookie = cookie.includes(`${sessionCookieName}=`) || url.pathname.startsWith('/api/auth/');
  if (!ridesOnCookie) return false;
  const origin = request.header('origin');
  if (origin) return !isTrustedOrigin(config, origin, url.origin);
  // No Origin (older browsers, non-browser clients): browsers still say where a request came from.
  return request.header('sec-fetch-site') === 'cross-site';
}
