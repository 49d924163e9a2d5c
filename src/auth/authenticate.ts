// Authentication: ordered strategies, the first that recognises the caller wins; else anonymous.
// Session first (the contract), API keys are added by their module.
import type { SystemDb } from '../db/request-db.js';
import type { HttpRequest } from '../http/exchange.js';
import { anonymous, type Actor } from './actor.js';
import { authenticateSession } from './session-strategy.js';

/** Who is calling: the session cookie's user, or anonymous. */
export async function authenticate(system: SystemDb, request: HttpRequest): Promise<Actor> {
  return (await authenticateSession(system, request.header('cookie'))) ?? anonymous;
}
