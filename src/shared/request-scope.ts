// What a service receives about the request it serves: who calls, the database as that caller,
// named all-rows access, configuration and the clock. Built once per request by the context.
import type { Actor } from '../auth/actor.js';
import type { Config } from '../config/env.js';
import type { RequestDb, SystemDb, Tx } from '../db/request-db.js';

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
  /** Whether the request reached us (or the trusted proxy) over HTTPS. */
  secure: boolean;
}

export interface RequestScope {
  actor: Actor;
  /** The database through row-level security, as the actor. */
  db: RequestDb;
  /** All-rows access for a named purpose (authentication lookups and the like). */
  system(purpose: string): SystemDb;
  /** A short unit of work through row-level security as another user (signup, login). */
  runAs<T>(userId: string, work: (tx: Tx) => Promise<T>): Promise<T>;
  config: Config;
  client: ClientInfo;
  now(): Date;
}
