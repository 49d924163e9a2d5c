// The caller of a request, as every resolver and service sees it. Authentication strategies
// produce it; authorization asks it questions (scopes, roles, teams).

/** Global roles, weakest first. */
export const globalRoles = ['member', 'developer', 'superadmin'] as const;
export type GlobalRole = (typeof globalRoles)[number];

export type TeamRole = 'owner' | 'admin' | 'member' | 'viewer';

export interface TeamMembership {
  teamId: string;
  role: TeamRole;
}

export interface AuthenticatedActor {
  kind: 'user';
  /** How the caller proved who they are. */
  via: 'session' | 'api-key';
  userId: string;
  email: string;
  role: GlobalRole;
  /** Display fields of the user, loaded with the credentials so `me` needs no second query. */
  profile: { firstName: string; lastName: string; image: string | null };
  /** `entity:action` scopes the caller holds (see scopes.ts). */
  scopes: readonly string[];
  teams: readonly TeamMembership[];
  activeTeamId: string | null;
  /** The session row behind a cookie-authenticated caller. */
  sessionId: string | null;
  /** The key behind a key-authenticated caller. */
  apiKeyId?: string;
}

export interface AnonymousActor {
  kind: 'anonymous';
}

export type Actor = AuthenticatedActor | AnonymousActor;

export const anonymous: AnonymousActor = Object.freeze({ kind: 'anonymous' });

/** Whether `role` is at least `required` in the global role order. */
export function hasGlobalRole(role: GlobalRole, required: GlobalRole): boolean {
  return globalRoles.indexOf(role) >= globalRoles.indexOf(required);
}

export function isGlobalRole(value: string): value is GlobalRole {
  return (globalRoles as readonly string[]).includes(value);
}
