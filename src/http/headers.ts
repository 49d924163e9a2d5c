// Response headers every answer carries: security headers, CORS and the request id.
import type { Config } from '../config/env.js';
import { appendHeader, reply, type HttpRequest, type HttpResponse } from './exchange.js';

const securityHeaders: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-site',
  'x-dns-prefetch-control': 'off',
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
};

// GraphiQL and the API docs page run inline scripts and styles from our own origin only.
const apiCsp = "default-src 'none'; frame-ancestors 'none'";
const pageCsp = "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

export const corsAllowedHeaders = 'authorization, content-type, x-api-key, x-team-id, x-request-id, x-cron-secret, graphql-preflight, apollo-require-preflight, if-none-match';
const corsMethods = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

/** Whether a browser origin may call with credentials (cookies). */
export function isTrustedOrigin(config: Config, origin: string, selfOrigin: string): boolean {
  return origin === selfOrigin || config.corsOrigins.includes(origin);
}

/** Adds security, CORS and request-id headers to a response. */
export function decorate(response: HttpResponse, request: HttpRequest, config: Config, requestId: string, selfOrigin: string): HttpResponse {
  const h = response.headers;
  Object.assign(h, securityHeaders);
  if (!h['content-security-policy']) {
    h['content-security-policy'] = String(h['content-type'] ?? '').startsWith('text/html') ? pageCsp : apiCsp;
  }
  h['x-request-id'] = requestId;
  const origin = request.header('origin');
  if (origin) {
    if (config.corsOrigins.length === 0) {
      // No list configured: any origin may call with an API key, never with the session cookie.
      h['access-control-allow-origin'] = '*';
    } else if (isTrustedOrigin(config, origin, selfOrigin)) {
      h['access-control-allow-origin'] = origin;
      h['access-control-allow-credentials'] = 'true';
      appendHeader(response, 'vary', 'Origin');
    }
    h['access-control-expose-headers'] = 'x-request-id, retry-after';
  }
  return response;
}

/** The answer to a CORS preflight. */
export function preflight(): HttpResponse {
  return reply(204, null, { 'access-control-allow-methods': corsMethods, 'access-control-allow-headers': corsAllowedHeaders, 'access-control-max-age': '600' });
}
