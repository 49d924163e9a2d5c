// REST face of accounts (outside /api/v1, as the contract leaves login to us).
import { z } from 'zod';
import { CurrentSessionDocument, LoginDocument, LogoutDocument, SignupDocument, SignupWithInviteDocument } from '../../generated/operations.js';
import { defineRoute } from '../../rest/route.js';
import { loginInput, signupInput, signupWithInviteInput } from './inputs.js';

const user = z.object({ id: z.string(), email: z.string(), role: z.string(), firstName: z.string().optional(), lastName: z.string().optional(), image: z.string().nullable().optional() });
const sessionInfo = z.object({ user, activeTeamId: z.string().nullable() });

export const accountRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/auth/signup',
    summary: 'Create an account with a personal team and start a session (sets the session cookie)',
    tags: ['Accounts'],
    access: 'public',
    body: signupInput,
    operation: SignupDocument,
    variables: ({ body }) => ({ input: body }),
    data: ({ signup: { user, activeTeamId, team } }) => ({ user, activeTeamId, team }),
    extras: ({ signup }) => ({ meta: { isFirstUser: signup.isFirstUser, teamCreated: signup.teamCreated } }),
    status: 201,
    response: sessionInfo.extend({ team: z.object({ id: z.string(), name: z.string() }) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/auth/signup-with-invite',
    summary: 'Create the invited account, join the invitation’s team and start a session (sets the session cookie)',
    tags: ['Accounts', 'Teams'],
    access: 'public',
    body: signupWithInviteInput,
    operation: SignupWithInviteDocument,
    variables: ({ body }) => ({ input: body }),
    data: ({ signupWithInvite: { user, teamId } }) => ({ user, teamId }),
    extras: ({ signupWithInvite }) => ({ meta: { redirectTo: `/teams/${signupWithInvite.teamId}`, emailVerified: signupWithInvite.emailVerified } }),
    response: z.object({ user, teamId: z.string() }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/auth/login',
    summary: 'Sign in with e-mail and password (sets the session cookie)',
    tags: ['Accounts'],
    access: 'public',
    body: loginInput,
    operation: LoginDocument,
    variables: ({ body }) => ({ input: body }),
    data: (r) => r.login,
    response: sessionInfo,
  }),
  defineRoute({
    method: 'POST',
    path: '/api/auth/logout',
    summary: 'Revoke the current session and clear its cookie',
    tags: ['Accounts'],
    access: 'session',
    operation: LogoutDocument,
    variables: () => ({}),
    data: (r) => ({ revoked: r.logout }),
    extras: () => ({ message: 'Signed out' }),
    response: z.object({ revoked: z.boolean() }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/auth/session',
    summary: 'The signed-in user and their active team',
    tags: ['Accounts'],
    access: 'session',
    operation: CurrentSessionDocument,
    variables: () => ({}),
    data: (r) => r.me,
    response: sessionInfo,
  }),
];
