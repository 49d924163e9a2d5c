// GraphQL face of accounts: `signup`, `login`, `logout` and `me`. The session cookie is set here, at
// the edge; the rules live in the service.
import { clearedSessionCookie, sessionCookie } from '../../auth/session-cookie.js';
import type { Context } from '../../graphql/context.js';
import { builder } from '../../graphql/builder.js';
import { parseInput } from '../../shared/validation.js';
import { loginInput, signupInput } from './inputs.js';
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

const LoginInput = builder.inputType('LoginInput', {
  fields: (t) => ({ email: t.string({ required: true }), password: t.string({ required: true }) }),
});

function secureCookies(ctx: Context): boolean {
  return ctx.config.cookieSecure === 'auto' ? ctx.client.secure : ctx.config.cookieSecure;
}

function withCookie(ctx: Context, started: StartedSession): SessionInfo {
  ctx.setCookies.push(sessionCookie(started.token, started.expiresAt, secureCookies(ctx)));
  return { user: started.user, activeTeamId: started.activeTeamId };
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
    type: SessionInfoRef,
    description: 'Creates an account with a personal team and signs it in (sets the session cookie).',
    args: { input: t.arg({ type: SignupInput, required: true }) },
    resolve: async (_root, { input }, ctx) => withCookie(ctx, await accounts.signup(ctx, parseInput(signupInput, input))),
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
