// The one scope matcher: `entity:action`, `entity:*` and `*` (see the contract's scope table).
import { serviceKey } from '../shared/services.js';
import { hasGlobalRole, type GlobalRole } from './actor.js';

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

// ---- What a scope may name, and who may grant it ------------------------------------------------

export interface ScopeResource {
  name: string;
  description: string;
  /** The weakest global role that may put this resource's scopes on an API key (default member). */
  minimumRole?: GlobalRole;
}

/** The resources of an app's modules (`media`, `teams`, an entity slug), by name. */
export type ScopeResources = ReadonlyMap<string, ScopeResource>;

/** The resources an app's modules declare (its composition makes this once: modules/composition.ts). */
export const scopeResourcesKey = serviceKey<ScopeResources>('scope resources');

/** The declared resources by name; two declarations of one name are a bug of the module list (start-up fails). */
export function scopeResourcesOf(declared: readonly ScopeResource[]): ScopeResources {
  const resources = new Map(declared.map((resource) => [resource.name, resource]));
  if (resources.size < declared.length) throw new Error(`Scope resources declared twice: ${declared.filter((r, i) => declared.findIndex((o) => o.name === r.name) !== i).map((r) => r.name).join(', ')}`);
  return resources;
}

const scopePattern = /^([a-z][a-z0-9_-]*):(read|write|delete|\*)$/;

/**
 * Why `role` may not put `scope` on a key, or null when it may. The policy: `*` is for superadmins
 * only; `resource:action` needs a declared resource and a role at least the resource's minimum
 * (developer resources such as scheduled actions need developer or superadmin).
 */
export function scopeRefusal(resources: ScopeResources, scope: string, role: GlobalRole): string | null {
  if (scope === '*') return role === 'superadmin' ? null : 'scope "*" is reserved for superadmins';
  const match = scopePattern.exec(scope);
  if (!match) return `scope "${scope}" is not of the form entity:action (action read, write, delete or *)`;
  const resource = resources.get(match[1]!);
  if (!resource) return `scope "${scope}" names an unknown entity "${match[1]}"`;
  const minimumRole = resource.minimumRole ?? 'member';
  if (!hasGlobalRole(role, minimumRole)) return `scope "${scope}" requires the ${minimumRole} role`;
  return null;
}

/** The scopes of a key its owner may still exercise with their current role (a demoted owner's key shrinks). */
export function effectiveKeyScopes(resources: ScopeResources, keyScopes: readonly string[], ownerRole: GlobalRole): string[] {
  return keyScopes.filter((scope) => scopeRefusal(resources, scope, ownerRole) === null);
}
