// Sign-in with a provider (OIDC_PROVIDERS): the browser leaves for the provider with a new flow (its
// random id in an httpOnly cookie, only its hash stored, with the PKCE verifier, state and nonce, for
// ten minutes) and comes back to the callback, which takes the flow (deleted: single use), has the
// provider's answer checked (provider-client.ts) and signs in the account the identity belongs to:
//   1. an account already linked to this provider's account;
//   2. else the account with the same e-mail, linked now, only if the provider vouches for the e-mail
//      (`email_verified`, or `trustEmail`). If that account had never verified its e-mail, whoever made
//      it never proved the address: it is stripped bare as it is linked (account-takeover.ts);
//   3. else a new account, by the rules of public signup (TEAMS_MODE; single-tenant: only the first,
//      or with an invitation to that e-mail), its e-mail verified by the provider.
// With two-factor on, no session starts: the second step's challenge goes back to the app instead.
import { randomUUID } from 'node:crypto';
import { noPassword } from '../../auth/password.js';
import { hashToken, newToken, sameSecret } from '../../auth/secret-token.js';
import type { Config } from '../../config/config.js';
import type { SignInProvider } from '../../config/oidc.js';
import type { Tx } from '../../db/request-db.js';
import { AppError } from '../../shared/errors.js';
import { openInvitationForSignup } from '../teams/service.js';
import { claimAccount } from './account-takeover.js';
import { newFlowChecks, type Provider, type ProviderIdentity } from './provider-client.js';
import * as repo from './repository.js';
import { openInvitedAccount, openPublicAccount, type NewAccount } from './service.js';
import { accountDisabled, startSession, type StartedSession, type ThrottledScope } from './session-start.js';
import { challengeFor, type TwoFactorChallenge } from './two-factor.js';

export const flowTtlMs = 10 * 60_000;

/**
 * Where a browser goes after signing in: `requested` as a path of the app (APP_URL, else this server)
 * or an absolute URL of the app's origin or of a CORS_ORIGINS origin; anything else is refused, so the
 * sign-in cannot be used to send users to another site.
 */
export function redirectTarget(config: Config, requested: string | null, selfOrigin: string): string {
  const base = config.mail.appUrl ?? selfOrigin;
  const refused = () => new AppError('VALIDATION_ERROR', 'redirectTo must be a path of the app or a URL of one of its origins', { redirectTo: 'not a trusted destination' });
  if (requested !== null && requested.length > 2000) throw refused();
  let url: URL;
  try {
    url = new URL(requested ?? '/', base);
  } catch {
    throw refused();
  }
  const trusted = url.origin === new URL(base).origin || config.corsOrigins.includes(url.origin);
  if (!trusted || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw refused();
  return url.href;
}

/** Where the browser starts a sign-in at a provider (a sign-in button's link); `${path}/callback` is where it comes back. */
export const signInPath = (providerId: string) => `/api/auth/oidc/${providerId}`;

/** The provider's callback URL: on PUBLIC_URL, else this request's origin. */
const callbackUrlOf = (config: Config, selfOrigin: string, providerId: string) => `${config.signIn.publicUrl ?? selfOrigin}${signInPath(providerId)}/callback`;

export interface BegunSignIn {
  /** The provider's authorization URL, where the browser goes now. */
  location: string;
  /** The flow's id, for the browser's flow cookie. */
  flowToken: string;
}

/** Starts a sign-in at `provider`: a new flow, and the provider's URL to send the browser to. */
export async function beginProviderSignIn(
  scope: ThrottledScope,
  provider: Provider,
  request: { redirectTo: string | null; inviteToken: string | null; selfOrigin: string },
): Promise<BegunSignIn> {
  const redirectTo = redirectTarget(scope.config, request.redirectTo, request.selfOrigin);
  await scope.signIns.assertProviderSignInAllowed(scope.client.ip);
  if (request.inviteToken !== null && request.inviteToken.length > 100) throw new AppError('VALIDATION_ERROR', 'inviteToken is too long', { inviteToken: 'at most 100 characters' });
  const checks = newFlowChecks();
  const callbackUrl = callbackUrlOf(scope.config, request.selfOrigin, provider.setting.id);
  const location = await provider.client.authorizationUrl(callbackUrl, checks).catch((error: unknown) => {
    throw new AppError('SERVICE_UNAVAILABLE', `The sign-in provider cannot be reached now: try again later`, { provider: provider.setting.id, reason: (error as Error).message });
  });
  const flowToken = newToken();
  const now = scope.now();
  const flow = { provider: provider.setting.id, ...checks, callbackUrl, redirectTo, inviteToken: request.inviteToken, expiresAt: new Date(now.getTime() + flowTtlMs) };
  await repo.insertSignInFlow(scope.system('provider sign-in: new flow'), hashToken(flowToken), flow, now);
  return { location: location.href, flowToken };
}

/** How a callback ends: where the browser goes, and the session to set when one started. */
export interface FinishedSignIn {
  location: string;
  session: StartedSession | null;
  /** Why the sign-in did not complete (also in the location's `sign_in_error`), for the log. */
  failure: AppError | null;
}

const invalidFlow = () => new AppError('SIGN_IN_FLOW_INVALID', 'This sign-in is not valid (expired, already used, or started in another browser): start again');

/**
 * The provider's callback: takes the flow of this browser's cookie (deleted, so a replayed callback
 * finds nothing), checks the provider's answer and signs in. Without a valid flow the answer is 400;
 * once the flow is valid every refusal sends the browser back to the app with `sign_in_error=<code>`.
 */
export async function finishProviderSignIn(scope: ThrottledScope, provider: Provider, flowToken: string | null, callbackQuery: URLSearchParams): Promise<FinishedSignIn> {
  if (!flowToken) throw invalidFlow();
  const flow = await repo.takeSignInFlow(scope.system('provider sign-in: take the flow'), hashToken(flowToken));
  const state = callbackQuery.get('state') ?? '';
  if (!flow || flow.expiresAt <= scope.now() || flow.provider !== provider.setting.id || !sameSecret(flow.state, state)) throw invalidFlow();
  const back = new URL(flow.redirectTo);
  try {
    if (callbackQuery.has('error')) throw new AppError('SIGN_IN_FAILED', `The provider did not sign you in (${callbackQuery.get('error')?.slice(0, 100)})`);
    const currentUrl = new URL(flow.callbackUrl);
    currentUrl.search = callbackQuery.toString();
    const identity = await provider.client.identity(currentUrl, flow).catch((error: unknown) => {
      throw new AppError('SIGN_IN_FAILED', 'The provider’s answer could not be verified', { provider: provider.setting.id, reason: (error as Error).message });
    });
    const user = await accountOf(scope, provider.setting, identity, flow.inviteToken);
    // Checked again where the session would start (startSession); here so that no challenge is issued either.
    if (user.disabled) throw accountDisabled();
    if (user.twoFactor) {
      const { challenge } = await challengeFor(scope, user.id);
      back.hash = new URLSearchParams({ two_factor_challenge: challenge }).toString();
      return { location: back.href, session: null, failure: null };
    }
    const session = await scope.runAs(user.id, async (tx) => startSession(scope, tx, user, await repo.firstTeamId(tx, user.id), 'provider'));
    return { location: back.href, session, failure: null };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    back.searchParams.set('sign_in_error', error.code);
    return { location: back.href, session: null, failure: error };
  }
}

type SignedInUser = repo.UserView & { twoFactor: boolean; disabled: boolean };

/** The account `identity` signs in to (linked, linked now by verified e-mail, or new); see the top of the file. */
async function accountOf(scope: ThrottledScope, provider: SignInProvider, identity: ProviderIdentity, inviteToken: string | null, retried = false): Promise<SignedInUser> {
  const system = scope.system('provider sign-in: account of an identity');
  const linked = await repo.linkedIdentity(system, provider.id, identity.subject);
  if (linked) {
    await scope.runAs(linked.user.id, (tx) => repo.touchIdentity(tx, linked.id, identity.email, scope.now()));
    return withTwoFactor(linked.user);
  }
  const { email } = identity;
  if (!email) throw new AppError('SIGN_IN_FAILED', 'The provider gave no e-mail address for this account');
  if (!identity.emailVerified && !provider.trustEmail) {
    throw new AppError('EMAIL_NOT_VERIFIED', 'The provider does not confirm this e-mail address: verify it there, or sign in with your password');
  }
  const link = (tx: Tx, userId: string) => repo.insertIdentity(tx, { userId, provider: provider.id, subject: identity.subject, email });
  try {
    const existing = await repo.findCredentials(system, email);
    if (existing) {
      const { passwordHash: _hash, emailVerifiedAt, disabledAt, totp, ...user } = existing;
      if (emailVerifiedAt) await scope.runAs(existing.id, (tx) => link(tx, existing.id));
      const linkIt = (tx: Tx) => link(tx, existing.id);
      const claimed = !emailVerifiedAt && (await claimAccount(scope, existing, { purpose: 'provider sign-in: claim an account whose e-mail was never verified', after: linkIt, verified: linkIt }));
      // A claimed account's two-factor was its maker's: removed with the rest.
      return { ...user, twoFactor: !claimed && Boolean(totp?.enabledAt), disabled: Boolean(disabledAt) };
    }
    return { ...(await newAccount(scope, identity, email, inviteToken, link)), twoFactor: false, disabled: false };
  } catch (error) {
    // The same provider account signing in twice at once: the other sign-in linked it (or made its account) first.
    const raced = repo.isUniqueViolation(error) || (error instanceof AppError && error.code === 'EMAIL_EXISTS');
    if (!retried && raced) return accountOf(scope, provider, identity, inviteToken, true);
    throw error;
  }
}

const withTwoFactor = ({ totp, disabledAt, ...user }: repo.UserView & { disabledAt: Date | null; totp: { enabledAt: Date | null } | null }): SignedInUser => ({
  ...user,
  twoFactor: Boolean(totp?.enabledAt),
  disabled: Boolean(disabledAt),
});

/** A first sign-in without an account: by invitation to that e-mail, or as a public signup. */
async function newAccount(scope: ThrottledScope, identity: ProviderIdentity, email: string, inviteToken: string | null, link: (tx: Tx, userId: string) => Promise<unknown>): Promise<repo.UserView> {
  await scope.signIns.assertSignupAllowed(scope.client.ip);
  const account: NewAccount = { id: randomUUID(), email, passwordHash: noPassword, firstName: identity.firstName, lastName: identity.lastName, emailVerifiedAt: scope.now() };
  const linkThen = async (tx: Tx, user: repo.UserView) => {
    await link(tx, user.id);
    return user;
  };
  if (inviteToken) return openInvitedAccount(scope, account, await openInvitationForSignup(scope, inviteToken, email), linkThen);
  return openPublicAccount(scope, account, (tx, { user }) => linkThen(tx, user));
}

export type { TwoFactorChallenge };
