// Accounts and browser sessions: signup, login, logout, the current session, and operator-created users.
import { randomUUID } from 'node:crypto';
import { hashPassword, verifyPassword } from '../../auth/password.js';
import type { Tx } from '../../db/request-db.js';
import { AppError, unauthenticated } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { createGlobalTeam, createPersonalTeam, joinByInvitation, openInvitationForSignup } from '../teams/service.js';
import type { CreateUserInput, LoginInput, SignupInput, SignupWithInviteInput } from './inputs.js';
import { recordAudit, recordFailedSignIn } from '../audit/service.js';
import * as repo from './repository.js';
import { accountDisabled, startSession, userOf, type SessionInfo, type StartedSession, type ThrottledScope } from './session-start.js';
import { challengeFor, type TwoFactorChallenge } from './two-factor.js';
import { mailVerificationLink } from './verification.js';
export type { UserView } from './repository.js';
import type { UserView } from './repository.js';

export type { SessionInfo, StartedSession, ThrottledScope } from './session-start.js';

const emailNotVerified = () => new AppError('EMAIL_NOT_VERIFIED', 'Verify your e-mail address first: follow the link we sent, or ask for a new one');
const emailTaken = () => new AppError('EMAIL_EXISTS', 'An account with this e-mail already exists');

/**
 * Inserts a user and their personal team in one unit of work as that user, then runs `then` in it.
 * The password is hashed before the transaction opens; a taken e-mail becomes EMAIL_EXISTS.
 */
async function createAccount<T>(
  scope: Pick<RequestScope, 'runAs'>,
  input: { email: string; password: string; firstName: string; lastName: string; role: string; emailVerifiedAt?: Date },
  then: (tx: Tx, user: UserView, teamId: string) => Promise<T> | T,
): Promise<T> {
  const passwordHash = await hashPassword(input.password);
  const id = randomUUID();
  try {
    return await scope.runAs(id, async (tx) => {
      const user = await repo.insertUser(tx, { id, email: input.email, firstName: input.firstName, lastName: input.lastName, passwordHash, role: input.role, emailVerifiedAt: input.emailVerifiedAt });
      const team = await createPersonalTeam(tx, user);
      return then(tx, user, team.id);
    });
  } catch (error) {
    throw repo.isUniqueViolation(error) ? emailTaken() : error;
  }
}

export interface StartedSignup extends SessionInfo {
  /** The session started, unless the e-mail must be verified first (REQUIRE_EMAIL_VERIFICATION). */
  session: Pick<StartedSession, 'token' | 'expiresAt'> | null;
  team: { id: string; name: string };
  /** The platform had no account before this one. */
  isFirstUser: boolean;
  teamCreated: boolean;
  /** No session yet: a verification link was mailed, and sign-in waits for it. */
  emailVerificationRequired: boolean;
}

/** A new account's row; its id is chosen first, as the unit of work that inserts it runs as that user. */
export interface NewAccount {
  id: string;
  email: string;
  passwordHash: string;
  firstName: string;
  lastName: string;
  emailVerifiedAt?: Date;
}

/** What a public signup made: the user, their team, and whether they are the platform's first. */
export interface PublicAccount {
  user: UserView;
  team: { id: string; name: string };
  isFirstUser: boolean;
}

/**
 * Creates an account as public signups do, per TEAMS_MODE, and runs `then` in its unit of work:
 * `multi-tenant` and `single-user` give the new user a personal team; `single-tenant` lets only the
 * first account sign up publicly, as owner of the one global team (an advisory lock makes two
 * simultaneous first signups create one team), and refuses later ones. A taken e-mail is EMAIL_EXISTS.
 */
export async function openPublicAccount<T>(scope: RequestScope, account: NewAccount, then: (tx: Tx, made: PublicAccount) => Promise<T>): Promise<T> {
  const singleTenant = scope.config.teams.mode === 'single-tenant';
  try {
    return await scope.runAs(account.id, async (tx) => {
      if (singleTenant) await tx.$executeRaw`SELECT pg_advisory_xact_lock(7242001)`;
      const [{ has }] = await tx.$queryRaw<[{ has: boolean }]>`SELECT app_platform_has_users() AS has`;
      if (singleTenant && has) throw new AppError('PUBLIC_SIGNUP_RESTRICTED', 'Public signup is closed: ask a team admin for an invitation');
      const user = await repo.insertUser(tx, { ...account, role: 'member' });
      const team = singleTenant ? await createGlobalTeam(tx, user.id, scope.config.teams.globalTeamName) : await createPersonalTeam(tx, user);
      return then(tx, { user, team: { id: team.id, name: team.name }, isFirstUser: !has });
    });
  } catch (error) {
    throw repo.isUniqueViolation(error) ? emailTaken() : error;
  }
}

/**
 * Creates the account an invitation was sent for (it counts as verified: the invitation reached that
 * address), joins the invitation's team with its role, and runs `then` in the same unit of work.
 */
export async function openInvitedAccount<T>(scope: RequestScope, account: NewAccount, invitation: Awaited<ReturnType<typeof openInvitationForSignup>>, then: (tx: Tx, user: UserView) => Promise<T>): Promise<T> {
  try {
    return await scope.runAs(account.id, async (tx) => {
      const user = await repo.insertUser(tx, { ...account, role: 'member', emailVerifiedAt: scope.now() });
      await joinByInvitation(scope, tx, invitation, user.id);
      return then(tx, user);
    });
  } catch (error) {
    throw repo.isUniqueViolation(error) ? emailTaken() : error;
  }
}

/**
 * Public signup (openPublicAccount's rules). With REQUIRE_EMAIL_VERIFICATION, no session starts: a
 * verification link is mailed after the answer.
 */
export async function signup(scope: ThrottledScope, input: SignupInput): Promise<StartedSignup> {
  await scope.signIns.assertSignupAllowed(scope.client.ip);
  const verify = scope.config.requireEmailVerification;
  const { password, ...profile } = input;
  const account = { id: randomUUID(), ...profile, passwordHash: await hashPassword(password) };
  const started = await openPublicAccount(scope, account, async (tx, { user, team, isFirstUser }) => ({
    user,
    activeTeamId: team.id,
    session: verify ? null : await startSession(scope, tx, user, team.id, 'signup'),
    team,
    isFirstUser,
    teamCreated: true,
    emailVerificationRequired: verify,
  }));
  if (verify) scope.afterAnswer(() => mailVerificationLink(scope, started.user));
  return started;
}

/**
 * Signup by invitation: an account for the invited e-mail only, which joins the invitation's team
 * with its role, counts as verified (the invitation reached that address) and is signed in.
 */
export async function signupWithInvite(scope: ThrottledScope, input: SignupWithInviteInput): Promise<StartedSession & { teamId: string }> {
  await scope.signIns.assertSignupAllowed(scope.client.ip);
  const invitation = await openInvitationForSignup(scope, input.inviteToken, input.email);
  const { password, inviteToken: _token, ...profile } = input;
  const account = { id: randomUUID(), ...profile, passwordHash: await hashPassword(password) };
  return openInvitedAccount(scope, account, invitation, async (tx, user) => ({ ...(await startSession(scope, tx, user, invitation.teamId, 'invitation signup')), teamId: invitation.teamId }));
}

/**
 * Checks credentials and starts a session. Unknown e-mail and wrong password look and take the same,
 * and count the same towards throttling (sign-in-throttle.ts): the attempt is taken before the
 * password is checked (a burst gets no more checks than the limit), so once blocked even the right
 * password is refused (429, unchecked) until the block ends; a success clears the e-mail's failures
 * from this address and gives the address its attempt back.
 * With REQUIRE_EMAIL_VERIFICATION, the right password of an unverified account is answered 403
 * EMAIL_NOT_VERIFIED, and of a disabled account 403 ACCOUNT_DISABLED (only the password's holder
 * learns either). With two-factor on, the right password
 * gives a challenge for the second step instead of a session (two-factor.ts).
 */
export async function login(scope: ThrottledScope, input: LoginInput): Promise<StartedSession | TwoFactorChallenge> {
  const attempt = await scope.signIns.beginSignIn(input.email, scope.client.ip);
  const found = await repo.findCredentials(scope.system('login: credentials by e-mail'), input.email);
  const valid = await verifyPassword(found?.passwordHash ?? null, input.password);
  // The request fails and rolls back: a member's failed sign-in is recorded apart (an unknown e-mail is no one's).
  if (found && !valid) await recordFailedSignIn(scope, found.id, { reason: 'wrong password' });
  if (!found || !valid) throw unauthenticated(); // the attempt stays counted: a failure
  await attempt.succeeded();
  const { passwordHash: _hash, emailVerifiedAt, disabledAt, totp, ...user } = found;
  if (disabledAt) throw accountDisabled();
  if (!emailVerifiedAt && scope.config.requireEmailVerification) throw emailNotVerified();
  if (totp?.enabledAt) return challengeFor(scope, user.id);
  return scope.runAs(user.id, async (tx) => {
    return startSession(scope, tx, user, await repo.firstTeamId(tx, user.id), 'password');
  });
}

/** Revokes the caller's session server-side: its token stops working on the next request. */
export async function logout(scope: RequestScope): Promise<boolean> {
  const { actor } = scope;
  if (actor.kind !== 'user' || !actor.sessionId) throw unauthenticated();
  const tx = await scope.db.tx();
  const ended = await repo.deleteSession(tx, actor.sessionId);
  if (ended) await recordAudit(scope, tx, { userId: actor.userId, action: 'session.revoked', target: { type: 'session', id: actor.sessionId }, details: { reason: 'sign out' } });
  return ended;
}

/** The signed-in caller and their active team, as authentication just loaded them. */
export function currentSession(scope: RequestScope): SessionInfo {
  const { actor } = scope;
  if (actor.kind !== 'user') throw unauthenticated();
  return { user: userOf(actor), activeTeamId: actor.activeTeamId };
}

/** Creates an account for an operator (CLI), with a role and a personal team; its e-mail counts as verified (the operator vouches for it). */
export function createUser(scope: Pick<RequestScope, 'runAs'>, input: CreateUserInput): Promise<UserView & { teamId: string }> {
  return createAccount(scope, { ...input, emailVerifiedAt: new Date() }, (_tx, user, teamId) => ({ ...user, teamId }));
}
