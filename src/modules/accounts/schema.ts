// GraphQL face of accounts: `signup`, `login`, `logout` and `me`. The session cookie is set here, at
// the edge; the rules live in the service.
import { clearedSessionCookie, sessionCookie } from '../../auth/session-cookie.js';
import type { Context } from '../../graphql/context.js';
import { builder } from '../../graphql/builder.js';
import { parseInput } from '../../shared/validation.js';
import { loginInput, signupInput, signupWithInviteInput } from './inputs.js';
import * as accounts from './service.js';
import type { SessionInfo, StartedSession, UserView } from './service.js';

const User = builder.objectRef<UserView>('User').implement({
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

const SessionInfoRef = builder.objectRef<SessionInfo>('SessionInfo').implement({
  description: 'The signed-in user and their active team.',
  fields: (t) => ({
    user: t.field({ type: User, resolve: (s) => s.user }),
    activeTeamId: t.exposeID('activeTeamId', { nullable: true }),
  }),
});

const SignupInput = builder.inputType('SignupInput', {
  fields: (t) => ({
    email: t.string({ required: true }),
    password: t.string({ required: true }),
    firstName: t.string({ required: true }),
    lastName: t.string({ required: true }),
  }),
});

const SignupWithInviteInput = builder.inputType('SignupWithInviteInput', {
  fields: (t) => ({
    email: t.string({ required: true }),
    password: t.string({ required: true }),
    firstName: t.string({ required: true }),
    lastName: t.string({ required: true }),
    inviteToken: t.string({ required: true }),
  }),
});

const SignupTeamRef = builder.objectRef<{ id: string; name: string }>('SignupTeam').implement({
  fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name') }),
});

const SignupResultRef = builder.objectRef<SessionInfo & { team: { id: string; name: string }; isFirstUser: boolean; teamCreated: boolean }>('SignupResult').implement({
  description: 'The new account, signed in, and the team it got.',
  fields: (t) => ({
    user: t.field({ type: User, resolve: (s) => s.user }),
    activeTeamId: t.exposeID('activeTeamId', { nullable: true }),
    team: t.field({ type: SignupTeamRef, resolve: (s) => s.team }),
    isFirstUser: t.exposeBoolean('isFirstUser'),
    teamCreated: t.exposeBoolean('teamCreated'),
  }),
});

const InvitedSignupRef = builder.objectRef<SessionInfo & { teamId: string }>('InvitedSignupResult').implement({
  fields: (t) => ({
    user: t.field({ type: User, resolve: (s) => s.user }),
    teamId: t.exposeID('teamId'),
    emailVerified: t.boolean({ resolve: () => true }),
  }),
});

const LoginInput = builder.inputType('LoginInput', {
  fields: (t) => ({ email: t.string({ required: true }), password: t.string({ required: true }) }),
});

function secureCookies(ctx: Context): boolean {
  return ctx.config.cookieSecure === 'auto' ? ctx.client.secure : ctx.config.cookieSecure;
}

/** Sets the session cookie of a just-started session and returns the rest of the answer. */
function withCookie<T extends StartedSession>(ctx: Context, started: T): Omit<T, 'token' | 'expiresAt'> {
  ctx.setCookies.push(sessionCookie(started.token, started.expiresAt, secureCookies(ctx)));
  const { token: _token, expiresAt: _expiresAt, ...answer } = started;
  return answer;
}

builder.queryField('me', (t) =>
  t.field({
    type: SessionInfoRef,
    description: 'The signed-in caller.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => accounts.currentSession(ctx),
  }),
);

builder.mutationFields((t) => ({
  signup: t.field({
    type: SignupResultRef,
    description: 'Public signup (per TEAMS_MODE: a personal team, or the global team for the first single-tenant user); signs in (sets the session cookie).',
    args: { input: t.arg({ type: SignupInput, required: true }) },
    resolve: async (_root, { input }, ctx) => withCookie(ctx, await accounts.signup(ctx, parseInput(signupInput, input))),
  }),
  signupWithInvite: t.field({
    type: InvitedSignupRef,
    description: 'Creates the invited account, joins the invitation’s team and signs in (sets the session cookie).',
    args: { input: t.arg({ type: SignupWithInviteInput, required: true }) },
    resolve: async (_root, { input }, ctx) => withCookie(ctx, await accounts.signupWithInvite(ctx, parseInput(signupWithInviteInput, input))),
  }),
  login: t.field({
    type: SessionInfoRef,
    description: 'Signs in with e-mail and password (sets the session cookie).',
    args: { input: t.arg({ type: LoginInput, required: true }) },
    resolve: async (_root, { input }, ctx) => withCookie(ctx, await accounts.login(ctx, parseInput(loginInput, input))),
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
}));
