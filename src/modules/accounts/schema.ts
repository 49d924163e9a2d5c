// GraphQL face of accounts: `signup`, `login`, `logout`, `me`, passwords (reset by e-mailed link,
// change) and the caller's sessions. The session cookie is set here, at the edge; the rules live in the
// services.
import { clearedSessionCookie, secureCookies, sessionCookie } from '../../auth/session-cookie.js';
import type { Context } from '../../graphql/context.js';
import type { Builder } from '../../graphql/builder.js';
import { parseInput } from '../../shared/validation.js';
import {
  changePasswordInput,
  confirmTwoFactorInput,
  enrollTwoFactorInput,
  loginInput,
  passwordResetInput,
  requestPasswordResetInput,
  resendVerificationInput,
  signupInput,
  signupWithInviteInput,
  twoFactorCodeInput,
  twoFactorSignInInput,
  verifyEmailInput,
} from './inputs.js';
import * as passwords from './passwords.js';
import * as accounts from './service.js';
import * as identities from './identities.js';
import type { IdentityView, SignInProviderView } from './identities.js';
import * as sessions from './sessions.js';
import * as twoFactor from './two-factor.js';
import * as verification from './verification.js';
import type { SessionView } from './sessions.js';
import type { SessionInfo, StartedSession, UserView } from './service.js';

/** Registers the module's GraphQL types and fields on `b` (its module description's registerSchema). */
export function registerAccountsSchema(b: Builder): void {
  const User = b.objectRef<UserView>('User').implement({
    description: 'A person who can sign in.',
    fields: (t) => ({
      id: t.exposeID('id'),
      email: t.exposeString('email'),
      role: t.exposeString('role', { description: 'Global role: member, developer or superadmin.' }),
      firstName: t.exposeString('firstName'),
      lastName: t.exposeString('lastName'),
      image: t.exposeString('image', { nullable: true }),
    }),
  });

  const SessionInfoRef = b.objectRef<SessionInfo>('SessionInfo').implement({
    description: 'The signed-in user and their active team.',
    fields: (t) => ({
      user: t.field({ type: User, resolve: (s) => s.user }),
      activeTeamId: t.exposeID('activeTeamId', { nullable: true }),
      twoFactorEnabled: t.boolean({
        description: 'Whether the signed-in user signs in with a second factor (read when asked for).',
        resolve: (s, _args, ctx) => twoFactor.twoFactorEnabled(ctx, s.user.id),
      }),
    }),
  });

  const SignupInput = b.inputType('SignupInput', {
    fields: (t) => ({
      email: t.string({ required: true }),
      password: t.string({ required: true }),
      firstName: t.string({ required: true }),
      lastName: t.string({ required: true }),
    }),
  });

  const SignupWithInviteInput = b.inputType('SignupWithInviteInput', {
    fields: (t) => ({
      email: t.string({ required: true }),
      password: t.string({ required: true }),
      firstName: t.string({ required: true }),
      lastName: t.string({ required: true }),
      inviteToken: t.string({ required: true }),
    }),
  });

  const SignupTeamRef = b.objectRef<{ id: string; name: string }>('SignupTeam').implement({
    fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name') }),
  });

  const SignupResultRef = b.objectRef<Omit<accounts.StartedSignup, 'session'>>('SignupResult').implement({
    description: 'The new account, signed in (unless its e-mail must be verified first), and the team it got.',
    fields: (t) => ({
      user: t.field({ type: User, resolve: (s) => s.user }),
      activeTeamId: t.exposeID('activeTeamId', { nullable: true }),
      team: t.field({ type: SignupTeamRef, resolve: (s) => s.team }),
      isFirstUser: t.exposeBoolean('isFirstUser'),
      teamCreated: t.exposeBoolean('teamCreated'),
      emailVerificationRequired: t.exposeBoolean('emailVerificationRequired', {
        description: 'True when no session started: a verification link was mailed (REQUIRE_EMAIL_VERIFICATION) and sign-in waits for it.',
      }),
    }),
  });

  const InvitedSignupRef = b.objectRef<SessionInfo & { teamId: string }>('InvitedSignupResult').implement({
    fields: (t) => ({
      user: t.field({ type: User, resolve: (s) => s.user }),
      teamId: t.exposeID('teamId'),
      emailVerified: t.boolean({ resolve: () => true }),
    }),
  });

  const LoginInput = b.inputType('LoginInput', {
    fields: (t) => ({ email: t.string({ required: true }), password: t.string({ required: true }) }),
  });

  const VerifyEmailInput = b.inputType('VerifyEmailInput', {
    fields: (t) => ({ token: t.string({ required: true, description: 'The token of the e-mailed link.' }) }),
  });

  const ResendVerificationInput = b.inputType('ResendVerificationInput', {
    fields: (t) => ({ email: t.string({ required: true }) }),
  });

  const RequestPasswordResetInput = b.inputType('RequestPasswordResetInput', {
    fields: (t) => ({ email: t.string({ required: true }) }),
  });

  const ResetPasswordInput = b.inputType('ResetPasswordInput', {
    fields: (t) => ({
      token: t.string({ required: true, description: 'The token of the e-mailed link.' }),
      password: t.string({ required: true, description: 'The new password (at least 8 characters).' }),
    }),
  });

  const ChangePasswordInput = b.inputType('ChangePasswordInput', {
    fields: (t) => ({ currentPassword: t.string({ required: true }), newPassword: t.string({ required: true }) }),
  });

  const PasswordChangeRef = b.objectRef<{ endedSessions: number }>('PasswordChange').implement({
    fields: (t) => ({ endedSessions: t.exposeInt('endedSessions', { description: 'Other sessions of the user that ended.' }) }),
  });

  const SessionRef = b.objectRef<SessionView>('Session').implement({
    description: 'A place the caller is signed in.',
    fields: (t) => ({
      id: t.exposeID('id'),
      current: t.exposeBoolean('current', { description: 'The session of this request.' }),
      ipAddress: t.exposeString('ipAddress', { nullable: true }),
      userAgent: t.exposeString('userAgent', { nullable: true, description: 'The browser or client that signed in.' }),
      device: t.exposeString('device', { nullable: true, description: 'The user agent in words (`Chrome 120 on macOS`); null for a client that is not a known browser.' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', description: 'Last request (to the minute).' }),
      expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    }),
  });

  const SignInProviderRef = b.objectRef<SignInProviderView>('SignInProvider').implement({
    description: 'A provider users can sign in with (OIDC_PROVIDERS).',
    fields: (t) => ({
      id: t.exposeID('id'),
      name: t.exposeString('name', { description: 'What a sign-in button shows.' }),
      signInUrl: t.exposeString('signInUrl', { description: 'Where the button sends the browser (a GET; add `?redirectTo=` for where it comes back).' }),
    }),
  });

  const IdentityRef = b.objectRef<IdentityView>('Identity').implement({
    description: 'An account at a sign-in provider, linked to the caller’s.',
    fields: (t) => ({
      id: t.exposeID('id'),
      provider: t.exposeString('provider', { description: 'The provider’s id.' }),
      email: t.exposeString('email', { description: 'The e-mail the provider gave at the last sign-in.' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      lastSignInAt: t.expose('lastSignInAt', { type: 'DateTime' }),
    }),
  });

  const LoginResultRef = b
    .objectRef<{ user: UserView | null; activeTeamId: string | null; twoFactorRequired: boolean; challenge: string | null; challengeExpiresAt: Date | null }>('LoginResult')
    .implement({
      description: 'A session (user, activeTeamId), or with two-factor on the challenge of the second step.',
      fields: (t) => ({
        user: t.field({ type: User, nullable: true, resolve: (r) => r.user }),
        activeTeamId: t.exposeID('activeTeamId', { nullable: true }),
        twoFactorRequired: t.exposeBoolean('twoFactorRequired'),
        challenge: t.exposeString('challenge', { nullable: true, description: 'For completeTwoFactorSignIn; single use.' }),
        challengeExpiresAt: t.expose('challengeExpiresAt', { type: 'DateTime', nullable: true }),
      }),
    });

  const TwoFactorSignInInput = b.inputType('TwoFactorSignInInput', {
    fields: (t) => ({
      challenge: t.string({ required: true }),
      code: t.string({ required: true, description: 'The 6 digits of the authenticator app, or a recovery code.' }),
    }),
  });

  const EnrollTwoFactorInput = b.inputType('EnrollTwoFactorInput', {
    fields: (t) => ({ password: t.string({ required: true }) }),
  });

  const ConfirmTwoFactorInput = b.inputType('ConfirmTwoFactorInput', {
    fields: (t) => ({ code: t.string({ required: true, description: 'The 6 digits of the authenticator app.' }) }),
  });

  const TwoFactorCodeInput = b.inputType('TwoFactorCodeInput', {
    fields: (t) => ({ code: t.string({ required: true, description: 'The 6 digits of the authenticator app, or a recovery code.' }) }),
  });

  const TwoFactorEnrollmentRef = b.objectRef<{ secret: string; otpauthUri: string }>('TwoFactorEnrollment').implement({
    fields: (t) => ({
      secret: t.exposeString('secret', { description: 'Base32, for typing into an authenticator app.' }),
      otpauthUri: t.exposeString('otpauthUri', { description: 'otpauth://totp/… (show as a QR code).' }),
    }),
  });

  const TwoFactorConfirmationRef = b.objectRef<{ recoveryCodes: string[]; endedSessions: number }>('TwoFactorConfirmation').implement({
    fields: (t) => ({
      recoveryCodes: t.exposeStringList('recoveryCodes', { description: 'Ten single-use codes for when the authenticator is lost: shown this once.' }),
      endedSessions: t.exposeInt('endedSessions', { description: 'Other sessions of the user that ended.' }),
    }),
  });

  /** Sets the session cookie of a just-started session and returns the rest of the answer. */
  function withCookie<T extends StartedSession>(ctx: Context, started: T): Omit<T, 'token' | 'expiresAt'> {
    ctx.setCookies.push(sessionCookie(started.token, started.expiresAt, secureCookies(ctx)));
    const { token: _token, expiresAt: _expiresAt, ...answer } = started;
    return answer;
  }

  b.queryFields((t) => ({
    me: t.field({
      type: SessionInfoRef,
      description: 'The signed-in caller.',
      authScopes: { authenticated: true },
      resolve: (_root, _args, ctx) => accounts.currentSession(ctx),
    }),
    mySessions: t.field({
      type: [SessionRef],
      description: 'Where the caller is signed in: live sessions, most recently seen first.',
      authScopes: { session: true },
      resolve: (_root, _args, ctx) => sessions.mySessions(ctx),
    }),
    signInProviders: t.field({
      type: [SignInProviderRef],
      description: 'The providers users can sign in with, besides e-mail and password.',
      resolve: (_root, _args, ctx) => identities.signInProviders(ctx.config),
    }),
    myIdentities: t.field({
      type: [IdentityRef],
      description: 'The provider accounts linked to the caller’s (signing in there signs in here).',
      authScopes: { session: true },
      resolve: (_root, _args, ctx) => identities.myIdentities(ctx),
    }),
  }));

  b.mutationFields((t) => ({
    signup: t.field({
      type: SignupResultRef,
      description: 'Public signup (per TEAMS_MODE: a personal team, or the global team for the first single-tenant user); signs in (sets the session cookie).',
      args: { input: t.arg({ type: SignupInput, required: true }) },
      resolve: async (_root, { input }, ctx) => {
        const { session, ...answer } = await accounts.signup(ctx, parseInput(signupInput, input));
        if (session) withCookie(ctx, { ...answer, ...session });
        return answer;
      },
    }),
    signupWithInvite: t.field({
      type: InvitedSignupRef,
      description: 'Creates the invited account, joins the invitation’s team and signs in (sets the session cookie).',
      args: { input: t.arg({ type: SignupWithInviteInput, required: true }) },
      resolve: async (_root, { input }, ctx) => withCookie(ctx, await accounts.signupWithInvite(ctx, parseInput(signupWithInviteInput, input))),
    }),
    login: t.field({
      type: LoginResultRef,
      description: 'Signs in with e-mail and password (sets the session cookie), or, with two-factor on, gives the challenge of the second step (completeTwoFactorSignIn).',
      args: { input: t.arg({ type: LoginInput, required: true }) },
      resolve: async (_root, { input }, ctx) => {
        const outcome = await accounts.login(ctx, parseInput(loginInput, input));
        if ('challenge' in outcome) return { user: null, activeTeamId: null, twoFactorRequired: true, challenge: outcome.challenge, challengeExpiresAt: outcome.expiresAt };
        return { ...withCookie(ctx, outcome), twoFactorRequired: false, challenge: null, challengeExpiresAt: null };
      },
    }),
    completeTwoFactorSignIn: t.field({
      type: SessionInfoRef,
      description: 'The second step of a two-factor sign-in: the challenge and an authenticator code (or a recovery code) start the session (sets the cookie).',
      args: { input: t.arg({ type: TwoFactorSignInInput, required: true }) },
      resolve: async (_root, { input }, ctx) => withCookie(ctx, await twoFactor.completeTwoFactorSignIn(ctx, parseInput(twoFactorSignInInput, input))),
    }),
    enrollTwoFactor: t.field({
      type: TwoFactorEnrollmentRef,
      description: 'Starts two-factor set-up (the password again): a TOTP secret and its otpauth:// URI for an authenticator app; on once confirmTwoFactor gets a first code.',
      authScopes: { session: true },
      args: { input: t.arg({ type: EnrollTwoFactorInput, required: true }) },
      resolve: (_root, { input }, ctx) => twoFactor.enrollTwoFactor(ctx, parseInput(enrollTwoFactorInput, input)),
    }),
    confirmTwoFactor: t.field({
      type: TwoFactorConfirmationRef,
      description: 'Turns two-factor on with a first code: answers the recovery codes (shown once), ends the other sessions and renews this one (sets the cookie).',
      authScopes: { session: true },
      args: { input: t.arg({ type: ConfirmTwoFactorInput, required: true }) },
      resolve: async (_root, { input }, ctx) => {
        const { session, ...answer } = await twoFactor.confirmTwoFactor(ctx, parseInput(confirmTwoFactorInput, input));
        withCookie(ctx, session);
        return answer;
      },
    }),
    disableTwoFactor: t.boolean({
      description: 'Turns two-factor off with an authenticator code or a recovery code.',
      authScopes: { session: true },
      args: { input: t.arg({ type: TwoFactorCodeInput, required: true }) },
      resolve: async (_root, { input }, ctx) => (await twoFactor.disableTwoFactor(ctx, parseInput(twoFactorCodeInput, input)), true),
    }),
    logout: t.boolean({
      description: 'Revokes the current session server-side and clears the cookie.',
      authScopes: { session: true },
      resolve: async (_root, _args, ctx) => {
        const revoked = await accounts.logout(ctx);
        ctx.setCookies.push(clearedSessionCookie(secureCookies(ctx)));
        return revoked;
      },
    }),
    verifyEmail: t.field({
      type: SessionInfoRef,
      description: 'Follows an e-mail verification link (single use): the address is verified and a session starts (sets the session cookie).',
      args: { input: t.arg({ type: VerifyEmailInput, required: true }) },
      resolve: async (_root, { input }, ctx) => withCookie(ctx, await verification.verifyEmail(ctx, parseInput(verifyEmailInput, input))),
    }),
    resendVerificationEmail: t.boolean({
      description: 'Mails a new verification link if the e-mail has an unverified account; answers true either way (throttled).',
      args: { input: t.arg({ type: ResendVerificationInput, required: true }) },
      resolve: async (_root, { input }, ctx) => (await verification.resendVerification(ctx, parseInput(resendVerificationInput, input)), true),
    }),
    requestPasswordReset: t.boolean({
      description: 'Mails a single-use reset link if the e-mail has an account; answers true either way (throttled per e-mail and address).',
      args: { input: t.arg({ type: RequestPasswordResetInput, required: true }) },
      resolve: async (_root, { input }, ctx) => {
        await passwords.requestPasswordReset(ctx, parseInput(requestPasswordResetInput, input));
        return true;
      },
    }),
    resetPassword: t.boolean({
      description: 'Sets a new password with a reset link’s token (single use) and ends the user’s other sessions; does not sign in.',
      args: { input: t.arg({ type: ResetPasswordInput, required: true }) },
      resolve: async (_root, { input }, ctx) => (await passwords.resetPassword(ctx, parseInput(passwordResetInput, input)), true),
    }),
    changePassword: t.field({
      type: PasswordChangeRef,
      description: 'Changes the signed-in user’s password (the current one required): every other session ends and this one is renewed (sets the cookie).',
      authScopes: { session: true },
      args: { input: t.arg({ type: ChangePasswordInput, required: true }) },
      resolve: async (_root, { input }, ctx) => {
        const { session, endedSessions } = await passwords.changePassword(ctx, parseInput(changePasswordInput, input));
        withCookie(ctx, session);
        return { endedSessions };
      },
    }),
    revokeSession: t.boolean({
      description: 'Ends one of the caller’s sessions (this one too: its cookie is then cleared).',
      authScopes: { session: true },
      args: { id: t.arg.id({ required: true }) },
      resolve: async (_root, { id }, ctx) => {
        const { current } = await sessions.revokeSession(ctx, String(id));
        if (current) ctx.setCookies.push(clearedSessionCookie(secureCookies(ctx)));
        return true;
      },
    }),
    unlinkIdentity: t.boolean({
      description: 'Unlinks a provider account from the caller’s; refused (409) when it is their last way to sign in.',
      authScopes: { session: true },
      args: { id: t.arg.id({ required: true }) },
      resolve: async (_root, { id }, ctx) => (await identities.unlinkIdentity(ctx, String(id)), true),
    }),
    revokeOtherSessions: t.int({
      description: 'Ends every session of the caller but this one; how many ended.',
      authScopes: { session: true },
      resolve: (_root, _args, ctx) => sessions.revokeOtherSessions(ctx),
    }),
  }));
}
