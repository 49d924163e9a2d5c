// Authentication by browser session: the cookie's token is hashed and looked up with its user and
// the user's team memberships in one statement. Sessions are never cached: logout is immediate, and so
// is an operator's disable (a disabled user's sessions are deleted, and never verify anyway). When
// a session was last seen over a minute ago, its last_seen_at is renewed beside the request (what the
// session list shows), so a busy session costs one write a minute, not one per request.
import type { SystemDb } from '../db/request-db.js';
import { isGlobalRole, type AuthenticatedActor, type TeamMembership } from './actor.js';
import { sessionScopes } from './scopes.js';
import { hashToken, sameHash } from './secret-token.js';
import { readSessionToken } from './session-cookie.js';

interface SessionRow {
  session_id: string;
  token_hash: string;
  user_id: string;
  email: string;
  role: string;
  first_name: string;
  last_name: string;
  image: string | null;
  active_team_id: string | null;
  seen_recently: boolean;
  teams: TeamMembership[];
}

// One statement, prepared once per connection: this runs on every cookie-authenticated request.
const liveSessionSql = `
    SELECT s.id::text AS session_id, s.token_hash, u.id::text AS user_id, u.email, u.role,
           u.first_name, u.last_name, u.image,
           s.active_team_id::text AS active_team_id, s.last_seen_at > now() - interval '1 minute' AS seen_recently,
           coalesce(json_agg(json_build_object('teamId', m.team_id, 'role', m.role))
                    FILTER (WHERE m.team_id IS NOT NULL), '[]') AS teams
      FROM sessions s
      JOIN users u ON u.id = s.user_id
      LEFT JOIN team_members m ON m.user_id = u.id
     WHERE s.token_hash = $1 AND s.expires_at > now() AND u.disabled_at IS NULL
     GROUP BY s.id, u.id`;

const seenSql = `UPDATE sessions SET last_seen_at = now() WHERE id = $1::uuid`;

async function findLiveSession(system: SystemDb, tokenHash: string): Promise<SessionRow | undefined> {
  const rows = await system.hotQuery<SessionRow>('auth_live_session', liveSessionSql, [tokenHash]);
  return rows[0];
}

/** The actor behind the request's session cookie, or null when there is no live session. */
export async function authenticateSession(system: SystemDb, cookieHeader: string | null): Promise<AuthenticatedActor | null> {
  const token = readSessionToken(cookieHeader);
  if (!token) return null;
  const tokenHash = hashToken(token);
  const row = await findLiveSession(system, tokenHash);
  if (!row || !sameHash(row.token_hash, tokenHash) || !isGlobalRole(row.role)) return null;
  // Bookkeeping only: the request does not wait for it, nor fail with it.
  if (!row.seen_recently) system.hotQuery('auth_session_seen', seenSql, [row.session_id]).catch(() => {});
  // The session's team while the user still belongs to it; else their first team.
  const activeTeamId = row.teams.some((t) => t.teamId === row.active_team_id) ? row.active_team_id : (row.teams[0]?.teamId ?? null);
  return {
    kind: 'user',
    via: 'session',
    userId: row.user_id,
    email: row.email,
    role: row.role,
    profile: { firstName: row.first_name, lastName: row.last_name, image: row.image },
    scopes: sessionScopes(row.role),
    teams: row.teams,
    activeTeamId,
    sessionId: row.session_id,
  };
}
