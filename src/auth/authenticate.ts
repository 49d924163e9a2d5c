// Authentication: the session cookie first (the contract), then an API key, else anonymous. A
// presented key that does not verify is a 401, even where anonymous callers are welcome.
import type { SystemDb } from '../db/request-db.js';
import type { HttpRequest } from '../http/exchange.js';
import { anonymous, type Actor } from './actor.js';
import { presentedApiKey, type ApiKeyAuth, type KeyGrant } from './api-key-strategy.js';
import type { KeyEventClient } from './key-audit.js';
import { authenticateSession } from './session-strategy.js';

export interface Authenticated {
  actor: Actor;
  /** The verified key, for key-authenticated callers (rate limits, usage). */
  grant: KeyGrant | null;
}

/** Who is calling. */
export async function authenticate(system: SystemDb, keys: ApiKeyAuth, request: HttpRequest, client: KeyEventClient): Promise<Authenticated> {
  const session = await authenticateSession(system, request.header('cookie'));
  if (session) return { actor: session, grant: null };
  const presented = presentedApiKey(request);
  if (presented === null) return { actor: anonymous, grant: null };
  return keys.authenticate(presented, request, client);
}
