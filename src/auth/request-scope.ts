// What a service receives about the request it serves: who calls, the database as that caller,
// named all-rows access, configuration, the app's mailer and its modules' services, and the clock. Built once
// per request by the context.
import type { Actor } from './actor.js';
import type { Config } from '../config/config.js';
import type { RequestDb, SystemDb, Tx } from '../db/request-db.js';
import type { Mailer } from '../mail/outbox.js';
import type { Services } from '../shared/services.js';

export interface ClientInfo {
  ip: string | null;
  /** At most 500 characters. */
  userAgent: string | null;
  /** Whether the request reached us (or the trusted proxy) over HTTPS. */
  secure: boolean;
}

/** Credential bookkeeping services may need (revocation, membership changes, usage reads). */
export interface Credentials {
  /** Evicts a key from every instance's cache: it is refused on the next request anywhere. */
  forgetKey(keyHash: string): Promise<void>;
  /** Evicts every cached key of a user (their role or memberships changed). */
  forgetUser(userId: string): Promise<void>;
  /** Usage this instance counted for a key and has not written yet. */
  pendingUsage(keyId: string): { count: number; last24h: number; lastUsedAt: Date | null };
}

/** Through which face a change came: the REST layer, GraphQL, an operator's CLI command, a scheduled action (record history names it). */
export type Face = 'rest' | 'graphql' | 'cli' | 'action';

export interface RequestScope {
  actor: Actor;
  face: Face;
  /** The database through row-level security, as the actor. */
  db: RequestDb;
  /** All-rows access for a named purpose (authentication lookups and the like). */
  system(purpose: string): SystemDb;
  /** A short unit of work through row-level security as another user (signup, login). */
  runAs<T>(userId: string, work: (tx: Tx) => Promise<T>): Promise<T>;
  config: Config;
  credentials: Credentials;
  mail: Mailer;
  /** The services of the app's modules (media storage: a media deletion removes the record's renditions). */
  services: Services;
  /**
   * Runs `work` after the answer without delaying it, outside the request's transaction (use runAs or
   * system); a failure is logged, and the app waits for it when it closes.
   */
  afterAnswer(work: () => Promise<void>): void;
  client: ClientInfo;
  now(): Date;
}
