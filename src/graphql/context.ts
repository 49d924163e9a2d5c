// The GraphQL context: the request scope services receive, plus what only the edges use
// (request id, logger, cookies to set on the response, the outcome that decides commit or rollback).
import type { Logger } from 'pino';
import type { SignInThrottle } from '../auth/sign-in-throttle.js';
import type { RealtimeAccess } from '../realtime/hub.js';
import type { RequestScope } from '../auth/request-scope.js';

export interface Context extends RequestScope {
  requestId: string;
  log: Logger;
  /** Set-Cookie values the response must carry. */
  setCookies: string[];
  /** Throttling of failed sign-ins and signups (the app's one, shared through Redis when configured). */
  signIns: SignInThrottle;
  /**
   * Keyed /graphql requests: counts the operation's cost against the key's rate limits of the scopes its
   * root fields require, once it is known (graphql/limits.ts, pipeline/rate-rule.ts); a refusal says when
   * to retry. Absent: the request paid before it ran (a session, a REST route) or is not limited.
   */
  chargeCost?(cost: number, scopes: readonly string[]): Promise<{ retryAfter: number } | null>;
  /**
   * Marks the request failed (the operation produced errors): its transaction then rolls back. A
   * method, not a flag, so that it reaches the request however a library copies the context.
   */
  fail(): void;
  /** Subscriptions to changes: the app's hub, and what an open subscription of this caller needs. */
  realtime: RealtimeAccess<Context>;
}
