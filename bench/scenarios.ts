// What is measured: each scenario is one HTTP request, sent to each target that answers it. Every
// response is checked: a cheap prefix test on every response under load, a full comparison with the
// reference answer once before each warm-up.
import { isDeepStrictEqual } from 'node:util';
import type { SessionData } from './session.js';

export type ScenarioId = 'healthz' | 'session-rest' | 'session-graphql';
export type TargetId = 'raw' | 'rest' | 'graphql' | 'rest-pglite';

export interface HttpRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Measurement {
  scenario: ScenarioId;
  target: TargetId;
  request: HttpRequest;
  /** Also measured with one connection, for latency without queueing. */
  latencyRun: boolean;
  /** Cheap enough for every response under load (autocannon buffers bodies anyway). */
  verify: (body: string) => boolean;
  /** The full parsed answer expected from the target. */
  expected: unknown;
}

export const currentSessionQuery = 'query CurrentSession { me { user { id email role firstName lastName image } activeTeamId } }';

function healthz(target: TargetId): Measurement {
  return {
    scenario: 'healthz',
    target,
    request: { method: 'GET', path: '/healthz', headers: {} },
    latencyRun: false,
    verify: (body) => body === '{"status":"ok"}',
    expected: { status: 'ok' },
  };
}

function sessionRest(target: TargetId, cookie: string, session: SessionData): Measurement {
  return {
    scenario: 'session-rest',
    target,
    request: { method: 'GET', path: '/api/auth/session', headers: { cookie } },
    latencyRun: true,
    verify: (body) => body.startsWith('{"success":true,"data":{"user":{'),
    expected: { success: true, data: session },
  };
}

function sessionGraphql(cookie: string, session: SessionData): Measurement {
  return {
    scenario: 'session-graphql',
    target: 'graphql',
    // No Origin header: a cookie-carrying POST from a foreign origin is refused as CSRF.
    request: { method: 'POST', path: '/graphql', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ query: currentSessionQuery }) },
    latencyRun: true,
    // A GraphQL error still answers 200, so the body must start with a non-null `me`.
    verify: (body) => body.startsWith('{"data":{"me":{"user":{'),
    expected: { data: { me: session } },
  };
}

/** A server process and what is measured against it. */
export type ServerKind = 'raw' | 'product-pg' | 'product-pglite';

export interface Credentials {
  cookie: string;
  session: SessionData;
}

export function measurementsFor(server: ServerKind, pg: Credentials, pglite: Credentials): Measurement[] {
  switch (server) {
    case 'raw':
      return [healthz('raw'), sessionRest('raw', pg.cookie, pg.session)];
    case 'product-pg':
      // One process serves both faces: REST and GraphQL are measured against the same server.
      return [healthz('rest'), sessionRest('rest', pg.cookie, pg.session), sessionGraphql(pg.cookie, pg.session)];
    case 'product-pglite':
      return [healthz('rest-pglite'), sessionRest('rest-pglite', pglite.cookie, pglite.session)];
  }
}

/** Sends the request once and compares the whole answer with the reference; throws on any difference. */
export async function checkOnce(baseUrl: string, m: Measurement): Promise<void> {
  const { method, path, headers, body } = m.request;
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (response.status < 200 || response.status > 299 || !m.verify(text) || !isDeepStrictEqual(parsed, m.expected)) {
    throw new Error(`${m.scenario} on ${m.target}: unexpected answer ${response.status} ${text.slice(0, 500)}\nexpected ${JSON.stringify(m.expected)}`);
  }
}
