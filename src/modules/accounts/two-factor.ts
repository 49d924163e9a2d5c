// Two-factor sign-in with TOTP (RFC 6238, the otpauth library: SHA-1, 6 digits, 30 s, what every
// authenticator app reads). A signed-in user enrols (password again; a secret and its otpauth:// URI),
// confirms with a first code (two-factor is then on: ten recovery codes are shown once, stored as
// hashes; every other session ends and this one gets a new token), and may turn it off with a code.
// Sign-in with two-factor on takes two steps: the password gives a short-lived challenge, the challenge
// and a code (or a recovery code) give the session. A code is accepted once (its time step is kept),
// a recovery code once; wrong codes count as failed sign-ins (the same throttle, 429 once blocked) and
// against the account's own budget of wrong codes, which no change of address renews; a sign-in
// challenge takes a few codes only, then ends (sign in with the password again). Every count is taken
// before the code is checked. API keys are not affected.
import * as OTPAuth from 'otpauth';
import { hashToken } from '../../auth/secret-token.js';
import type { Tx } from '../../db/request-db.js';
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { seal, unseal } from '../../shared/sealing.js';
import type { ConfirmTwoFactorInput, EnrollTwoFactorInput, TwoFactorCodeInput, TwoFactorSignInInput } from './inputs.js';
import { recordAudit, recordFailedSignIn } from '../audit/service.js';
import { issueAccountToken, openLink, type OpenLink } from './mailed-links.js';
import { assertCurrentPassword } from './passwords.js';
import * as repo from './repository.js';
import { renewSession, signedInBySession, startSession, type StartedSession, type ThrottledScope } from './session-start.js';

const period = 30;
const recoveryCodeCount = 10;
/** How long the second step of a sign-in may wait for its code. */
const challengeTtlMs = 5 * 60_000;
/** Recovery codes do not expire; the column wants a date. */
const never = new Date('9999-12-31T00:00:00Z');

const wrongCode = () => new AppError('INVALID_CODE', 'The code is not correct');
const invalidChallenge = () => new AppError('INVALID_TOKEN', 'This sign-in has expired, is complete or took too many wrong codes: sign in again');

function totpOf(scope: RequestScope, secret: string, label: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer: scope.config.twoFactor.issuer, label, algorithm: 'SHA1', digits: 6, period, secret: OTPAuth.Secret.fromBase32(secret) });
}

const openTotpSecret = (scope: RequestScope, sealed: string) => unseal(sealed, scope.config.twoFactor.secretKey, { what: 'The two-factor secret', setting: 'TWO_FACTOR_SECRET_KEY' });

/** A recovery code as typed (any case, dashes or spaces) in its stored form's input. */
const normalizedRecoveryCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');

/** Ten new recovery codes (80 bits each, `XXXX-XXXX-XXXX-XXXX`), replacing the user's unused ones. */
async function newRecoveryCodes(tx: Tx, userId: string, now: Date): Promise<string[]> {
  await repo.useAccountTokensOf(tx, userId, 'recovery_code', now);
  const codes = Array.from({ length: recoveryCodeCount }, () => new OTPAuth.Secret({ size: 10 }).base32.match(/.{4}/g)!.join('-'));
  for (const code of codes) await repo.insertAccountToken(tx, { userId, purpose: 'recovery_code', tokenHash: hashToken(normalizedRecoveryCode(code)), expiresAt: never });
  return codes;
}

/**
 * Whether `code` is a second factor of the user now: a TOTP code of this or a neighbouring time step
 * not used before (its step is then kept), or an unused recovery code (then used up).
 */
async function acceptSecondFactor(scope: RequestScope, tx: Tx, userId: string, sealedSecret: string, code: string): Promise<boolean> {
  const now = scope.now();
  const digits = code.replace(/\s/g, '');
  if (/^\d{6}$/.test(digits)) {
    const delta = totpOf(scope, openTotpSecret(scope, sealedSecret), userId).validate({ token: digits, timestamp: now.getTime(), window: 1 });
    if (delta === null) return false;
    const step = Math.floor(now.getTime() / 1000 / period) + delta;
    const { count } = await tx.userTotp.updateMany({ where: { userId, OR: [{ lastStep: null }, { lastStep: { lt: step } }] }, data: { lastStep: step } });
    return count === 1;
  }
  return repo.useAccountToken(tx, 'recovery_code', hashToken(normalizedRecoveryCode(code)), now);
}

/**
 * Runs `check` as an attempt of a second factor of `userId` (throttle key `key`), taken before it runs
 * (429 once blocked, the code unchecked). A wrong code (INVALID_CODE) stays counted; a success, or a
 * refusal that checked no code (a conflict, a challenge gone), gives the attempt back.
 */
async function throttledCode<T>(scope: ThrottledScope, key: string, userId: string, check: () => Promise<T>): Promise<T> {
  const attempt = await scope.signIns.beginSecondFactor(key, userId, scope.client.ip);
  try {
    const result = await check();
    await attempt.succeeded();
    return result;
  } catch (error) {
    // Unexpected errors keep the attempt: whether a code was checked is unknown, so it counts.
    if (error instanceof AppError && error.code !== 'INVALID_CODE') await attempt.abandoned();
    throw error;
  }
}

/**
 * Whether `userId` has two-factor sign-in on. Asked for a SessionInfo's own user only: the caller, or the
 * user a request is signing in (whose row RLS does not show the request yet), hence a system read.
 */
export async function twoFactorEnabled(scope: RequestScope, userId: string): Promise<boolean> {
  const totp = await scope.system('two-factor status of a session').prisma.userTotp.findUnique({ where: { userId }, select: { enabledAt: true } });
  return Boolean(totp?.enabledAt);
}

/** Starts (or restarts) two-factor set-up: a new secret, pending until confirmed. */
export async function enrollTwoFactor(scope: ThrottledScope, input: EnrollTwoFactorInput): Promise<{ secret: string; otpauthUri: string }> {
  const actor = signedInBySession(scope);
  await assertCurrentPassword(scope, actor, input.password);
  const tx = await scope.db.tx();
  const existing = await tx.userTotp.findUnique({ where: { userId: actor.userId }, select: { enabledAt: true } });
  if (existing?.enabledAt) throw new AppError('CONFLICT', 'Two-factor sign-in is already on: turn it off first');
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  const secretSealed = seal(secret, scope.config.twoFactor.secretKey);
  await tx.userTotp.upsert({ where: { userId: actor.userId }, create: { userId: actor.userId, secretSealed }, update: { secretSealed, enabledAt: null, lastStep: null } });
  return { secret, otpauthUri: totpOf(scope, secret, actor.email).toString() };
}

/**
 * Turns two-factor on with a first code: recovery codes are made (shown once), every session of the
 * user ends and this one starts anew (a new token for the cookie).
 */
export async function confirmTwoFactor(scope: ThrottledScope, input: ConfirmTwoFactorInput): Promise<{ recoveryCodes: string[]; endedSessions: number; session: StartedSession }> {
  const actor = signedInBySession(scope);
  return throttledCode(scope, actor.email, actor.userId, async () => {
    const tx = await scope.db.tx();
    const pending = await tx.userTotp.findUnique({ where: { userId: actor.userId }, select: { secretSealed: true, enabledAt: true } });
    if (!pending || pending.enabledAt) throw new AppError('CONFLICT', 'No two-factor set-up is waiting for a code: enrol first');
    // The input allows 6 digits only: a recovery code cannot turn two-factor on.
    if (!(await acceptSecondFactor(scope, tx, actor.userId, pending.secretSealed, input.code))) throw wrongCode();
    const now = scope.now();
    await tx.userTotp.update({ where: { userId: actor.userId }, data: { enabledAt: now } });
    const recoveryCodes = await newRecoveryCodes(tx, actor.userId, now);
    const endedSessions = await repo.deleteSessionsExcept(tx, actor.userId, actor.sessionId);
    await recordAudit(scope, tx, { userId: actor.userId, action: 'two_factor.enabled', target: { type: 'user', id: actor.userId }, details: { endedSessions } });
    return { recoveryCodes, endedSessions, session: await renewSession(scope, tx, actor) };
  });
}

/** Turns two-factor off with a code or a recovery code; the recovery codes end with it. */
export async function disableTwoFactor(scope: ThrottledScope, input: TwoFactorCodeInput): Promise<void> {
  const actor = signedInBySession(scope);
  await throttledCode(scope, actor.email, actor.userId, async () => {
    const tx = await scope.db.tx();
    const totp = await tx.userTotp.findUnique({ where: { userId: actor.userId }, select: { secretSealed: true, enabledAt: true } });
    if (!totp?.enabledAt) throw new AppError('CONFLICT', 'Two-factor sign-in is not on');
    if (!(await acceptSecondFactor(scope, tx, actor.userId, totp.secretSealed, input.code))) throw wrongCode();
    await repo.removeTwoFactor(tx, actor.userId, scope.now());
    await recordAudit(scope, tx, { userId: actor.userId, action: 'two_factor.disabled', target: { type: 'user', id: actor.userId } });
  });
}

/** The first step's answer when the password was right and two-factor is on: no session yet. */
export interface TwoFactorChallenge {
  challenge: string;
  expiresAt: Date;
}

/** After the right password: a challenge for the second step, valid a few minutes, single use. */
export async function challengeFor(scope: RequestScope, userId: string): Promise<TwoFactorChallenge> {
  const { token: challenge, expiresAt } = await issueAccountToken(scope, userId, 'sign_in_challenge', challengeTtlMs);
  return { challenge, expiresAt };
}

/**
 * The second step of a sign-in: the challenge and a code (or a recovery code) start the session. A
 * challenge takes SIGNIN_MAX_CODES_PER_CHALLENGE codes: the next attempt ends it, the right code too
 * (and tries still in flight then: only a burst sends several codes at once).
 */
export async function completeTwoFactorSignIn(scope: ThrottledScope, input: TwoFactorSignInInput): Promise<StartedSession> {
  const link = await openLink(scope, 'sign_in_challenge', input.challenge, invalidChallenge);
  // Counted atomically before anything else, so a concurrent burst gets no more tries than the limit, and
  // the tries past it touch no other counter (a refused try is not an attempt at the account). A try
  // refused by the throttle (429) stays spent: the challenge is short-lived, the block is not.
  if (!(await scope.signIns.takeChallengeTry(hashToken(input.challenge), challengeTtlMs / 1000))) await endChallenge(link);
  const signIn = throttledCode(scope, `2fa:${link.userId}`, link.userId, () =>
    // A wrong code rolls back the transaction: the challenge stays usable until its tries are spent or it expires.
    link.use(async (tx) => {
      const totp = await tx.userTotp.findUnique({ where: { userId: link.userId }, select: { secretSealed: true, enabledAt: true } });
      if (!totp?.enabledAt || !(await acceptSecondFactor(scope, tx, link.userId, totp.secretSealed, input.code))) throw wrongCode();
      const user = await tx.user.findUniqueOrThrow({ where: { id: link.userId }, select: repo.userView });
      return startSession(scope, tx, user, await repo.firstTeamId(tx, user.id), 'password and second factor');
    }),
  );
  // The wrong code's transaction rolled back: its entry is written apart (named system access).
  return signIn.catch(async (error: unknown) => {
    if (error instanceof AppError && error.code === 'INVALID_CODE') await recordFailedSignIn(scope, link.userId, { reason: 'wrong second factor' });
    throw error;
  });
}

/** Uses the challenge up (its tries are spent: ended for good, whatever the throttle's store remembers) and refuses. */
async function endChallenge(link: OpenLink): Promise<never> {
  await link.use(async () => undefined).catch((error: unknown) => {
    if (!(error instanceof AppError)) throw error; // already used or expired: ended anyway
  });
  throw invalidChallenge();
}
