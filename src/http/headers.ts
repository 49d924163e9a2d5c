// Response headers every answer carries: security headers, CORS and the request id.
import { createHash } from 'node:crypto';
import type { Config } from '../config/config.js';
import { appendHeader, lowerCaseHeaders, reply, type HttpRequest, type HttpResponse } from './exchange.js';

const securityHeaders: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-site',
  'x-dns-prefetch-control': 'off',
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
};

// Every answer that does not bring its own policy (JSON, files, errors) may load and run nothing.
// HTML pages (GraphiQL, the API docs, the landing page) set the policy they need where they are built.
const apiCsp = "default-src 'none'; frame-ancestors 'none'";

/** CSP hash sources ('sha256-…') of a page's inline `<script>` (without src) or `<style>` elements. */
export function inlineHashes(html: string, tag: 'script' | 'style'): string[] {
  const hashes: string[] = [];
  const element = new RegExp(`<${tag}(\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'gi');
  for (const [, attributes = '', content = ''] of html.matchAll(element)) {
    if (/\bsrc\s*=/i.test(attributes)) continue;
    hashes.push(`'sha256-${createHash('sha256').update(content).digest('base64')}'`);
  }
  return hashes;
}

export const corsAllowedHeaders = 'authorization, content-type, x-api-key, x-team-id, x-request-id, x-cron-secret, graphql-preflight, apollo-require-preflight, if-none-match';
const corsMethods = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
/** What a browser script on another origin may read: the request id and the rate-limit answers. */
const exposedHeaders = 'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset';

/** Whether a browser origin may call with credentials (cookies). */
export function isTrustedOrigin(config: Config, origin: string, selfOrigin: string): boolean {
  return origin === selfOrigin || config.corsOrigins.includes(origin);
}

/** Adds security, CORS and request-id headers to a response. */
export function decorate(response: HttpResponse, request: HttpRequest, config: Config, requestId: string, selfOrigin: string): HttpResponse {
  // Names in any case (a library's response, a hand-made one) become lower-case before any look-up.
  const h = (response.headers = lowerCaseHeaders(response.headers));
  Object.assign(h, securityHeaders);
  h['content-security-policy'] ??= apiCsp;
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
    h['access-control-expose-headers'] = exposedHeaders;
  }
  return response;
}

/** The answer to a CORS preflight. */
export function preflight(): HttpResponse {
  return reply(204, null, { 'access-control-allow-methods': corsMethods, 'access-control-allow-headers': corsAllowedHeaders, 'access-control-max-age': '600' });
}
