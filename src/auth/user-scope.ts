// A request scope for work done on behalf of a user outside a request: an operator's CLI command (a
// key minted for them, demo data they own) and an action run with its creator's authority (a
// scheduled publish). The user as a signed-in actor with their current teams and their session's
// rights, the database through RLS as them, committed when the work succeeds. Nothing is left running
// after the work: there is no answer to run work after.
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { committing, RequestDb, runAsUser, systemDb } from '../db/request-db.js';
import { createMailer } from '../mail/outbox.js';
import { AppError } from '../shared/errors.js';
import type { Services } from '../shared/services.js';
import { isGlobalRole, type AuthenticatedActor } from './actor.js';
import type { Credentials, RequestScope } from './request-scope.js';
import { sessionScopes } from './scopes.js';

/** What a user's scope is made of: the app's (or the command's) own. */
export interface UserScopeDeps {
  database: Database;
  config: Config;
  services: Services;
  logger: Logger;
  /** Who does the work, as the scope's client user agent. */
  agent: 'platform-cli' | 'scheduled-actions';
  /** The clock (default the system's): the queue's, so that a run's writes share its time. */
  now?: () => Date;
}

/** Evictions of cached keys (none outside a server: its instances evict through the broadcast). */
export type UserCredentials = Pick<Credentials, 'forgetKey' | 'forgetUser'>;

/** Credentials that evict nothing: for work with no key cache of its own (the seed, a CLI command, the queue). */
export const noEvictions: UserCredentials = { forgetKey: async () => {}, forgetUser: async () => {} };

/** The user with this id (or e-mail) as an actor holding what their session would, in their first team. */
async function actorOf(database: Database, where: { id: string } | { email: string }): Promise<AuthenticatedActor> {
  const prisma = systemDb(database, 'user scope: the actor').prisma;
  const user = await prisma.user.findUnique({ where, select: { id: true, email: true, role: true, firstName: true, lastName: true, image: true } });
  if (!user || !isGlobalRole(user.role)) throw new AppError('NOT_FOUND', 'email' in where ? `No user with e-mail ${where.email}` : `No user with id ${where.id}`);
  const memberships = await prisma.teamMember.findMany({ where: { userId: user.id }, orderBy: { joinedAt: 'asc' }, select: { teamId: true, role: true } });
  const teams = memberships.map((m) => ({ teamId: m.teamId, role: m.role as AuthenticatedActor['teams'][number]['role'] }));
  return {
    kind: 'user',
    via: 'session',
    userId: user.id,
    email: user.email,
    role: user.role,
    profile: { firstName: user.firstName, lastName: user.lastName, image: user.image },
    scopes: sessionScopes(user.role),
    teams,
    activeTeamId: teams[0]?.teamId ?? null,
    sessionId: null,
  };
}

/** Runs `work` as the user (by e-mail or id) in one unit of work, committed when it succeeds; evictions run after the commit. */
export async function asUser<T>(deps: UserScopeDeps, who: { id: string } | { email: string }, credentials: UserCredentials, work: (scope: RequestScope) => Promise<T>): Promise<T> {
  const { database, config } = deps;
  const actor = await actorOf(database, 'email' in who ? { email: who.email.trim().toLowerCase() } : who);
  const db = new RequestDb(database, actor.userId);
  const scope: RequestScope = {
    actor,
    face: deps.agent === 'scheduled-actions' ? 'action' : 'cli',
    db,
    system: (purpose) => systemDb(database, purpose),
    runAs: (id, unit) => runAsUser(database, id, unit),
    config,
    credentials: {
      forgetKey: async (keyHash) => db.afterCommit(() => credentials.forgetKey(keyHash)),
      forgetUser: async (userId) => db.afterCommit(() => credentials.forgetUser(userId)),
      pendingUsage: () => ({ count: 0, last24h: 0, lastUsedAt: null }),
    },
    mail: createMailer(config.mail, deps.logger),
    services: deps.services,
    client: { ip: null, userAgent: deps.agent, secure: false },
    afterAnswer: () => {
      throw new Error('afterAnswer is not available outside a request');
    },
    now: deps.now ?? (() => new Date()),
  };
  return committing(db, () => work(scope));
}
