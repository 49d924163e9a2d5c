// The audit trail's words. An *entry* records one change of who may do what: its *action* (a stable
// dotted name below: clients filter on it, so a name is never reused for something else), its *actor*
// (the user, and the API key when one was used; none for the system), its *target* (what changed) and
// small *details* that never hold a secret. A *team event* belongs to one team's log; a *user-level
// event* (sign-ins, two-factor, sessions, API keys: a user's, not a team's) is stored with its user and
// shows in the log of every team that user is a member of when the log is read.

/** Every action the platform records, grouped by what it is about. */
export const auditActions = [
  'api_key.created',
  'api_key.revoked',
  'member.added',
  'member.removed',
  'member.role_changed',
  'invitation.sent',
  'invitation.accepted',
  'invitation.declined',
  'invitation.cancelled',
  'team.updated',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'two_factor.enabled',
  'two_factor.disabled',
  'session.revoked',
  'sessions.revoked',
  'sign_in.succeeded',
  'sign_in.failed',
] as const;

export type AuditAction = (typeof auditActions)[number];

/** A value a detail may hold: small and plain (names, roles, e-mail addresses, counts, lists of them). */
export type DetailValue = string | number | boolean | null | readonly string[];

/** What changed: its kind (`api_key`, `member`, `user` …) and id. */
export interface AuditTarget {
  type: string;
  id: string;
}
