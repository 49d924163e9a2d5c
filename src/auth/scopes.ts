// The one scope matcher: `entity:action`, `entity:*` and `*` (see the contract's scope table).
import type { GlobalRole } from './actor.js';

/** Whether the granted scopes allow `required` (`entity:action`). */
export function hasScope(granted: readonly string[], required: string): boolean {
  const colon = required.indexOf(':');
  const entity = colon === -1 ? required : required.slice(0, colon);
  for (const scope of granted) {
    if (scope === '*' || scope === required || scope === `${entity}:*`) return true;
  }
  return false;
}

/**
 * Scopes of a caller signed in with a browser session. A session acts with its user's full rights on
 * entities; what it may do within a team is then decided by the team role, in the services.
 */
export function sessionScopes(_role: GlobalRole): readonly string[] {
  return ['*'];
}
