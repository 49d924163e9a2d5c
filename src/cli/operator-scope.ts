// The request scope of work an operator does on behalf of a user from the CLI (a key minted or revoked
// for them, demo data they own): the user as a signed-in actor with their current teams, the database
// through RLS as them, committed when the work succeeds. Nothing is left running after the work.
import pino from 'pino';
import { isGlobalRole, type AuthenticatedActor } from '../auth/actor.js';
import { sessionScopes } from '../auth/scopes.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { committing, RequestDb, runAsUser, systemDb } from '../db/request-db.js';
import { createMailer } from '../mail/outbox.js';
import { createModuleRuntime } from '../modules/composition.js';
import { modules } from '../modules/index.js';
import { AppError } from '../shared/errors.js';
import type { Credentials, RequestScope } from '../auth/request-scope.js';

/** Credentials with evictions only (the CLI counts no key usage). */
export type CliCredentials = Pick<Credentials, 'forgetKey' | 'forgetUser'>;

/** The user with this id (or e-mail) as an actor holding what their session would, in their first team. */
async function actorOf(database: Database, where: { id: string } | { email: string }): Promise<AuthenticatedActor> {
  const prisma = systemDb(database, 'cli: operator scope').prisma;
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
export async function asUser<T>(database: Database, config: Config, who: { id: string } | { email: string }, credentials: CliCredentials, work: (scope: RequestScope) => Promise<T>): Promise<T> {
  const actor = await actorOf(database, 'email' in who ? { email: who.email.trim().toLowerCase() } : who);
  const db = new RequestDb(database, actor.userId);
  const silent = pino({ level: 'silent' });
  // The modules' services (media storage), without their workers: the server runs those.
  const runtime = createModuleRuntime(modules, { config, database, logger: silent, now: () => new Date() });
  const scope: RequestScope = {
    actor,
    db,
    system: (purpose) => systemDb(database, purpose),
    runAs: (id, unit) => runAsUser(database, id, unit),
    config,
    credentials: {
      forgetKey: async (keyHash) => db.afterCommit(() => credentials.forgetKey(keyHash)),
      forgetUser: async (userId) => db.afterCommit(() => credentials.forgetUser(userId)),
      pendingUsage: () => ({ count: 0, last24h: 0, lastUsedAt: null }),
    },
    mail: createMailer(config.mail, silent),
    services: runtime.services,
    client: { ip: null, userAgent: 'platform-cli', secure: false },
    afterAnswer: () => {
      throw new Error('afterAnswer is not available in the CLI');
    },
    now: () => new Date(),
  };
  try {
    return await committing(db, () => work(scope));
  } finally {
    await runtime.close();
  }
}
