// The browser's two stops of a provider sign-in (provider-sign-in.ts), as HTTP routes since they
// answer redirects, not envelopes: GET /api/auth/oidc/{provider} sends the browser to the provider
// with a flow cookie; GET /api/auth/oidc/{provider}/callback is where the provider sends it back, and
// redirects it to the app signed in (the session cookie set), with `#two_factor_challenge=…` when
// two-factor is on, or with `?sign_in_error=<code>`.
import { parse, serialize } from 'cookie';
import { secureCookies, sessionCookie } from '../../auth/session-cookie.js';
import type { Config } from '../../config/config.js';
import type { Context } from '../../graphql/context.js';
import { reply, type HttpRequest, type HttpResponse } from '../../http/exchange.js';
import { defineHttpRoute } from '../../rest/http-route.js';
import { AppError } from '../../shared/errors.js';
import { providersWithClients, type Provider } from './provider-client.js';
import { beginProviderSignIn, finishProviderSignIn, flowTtlMs, signInPath } from './provider-sign-in.js';

const flowCookieName = 'sign_in_flow';
const flowCookiePath = signInPath('');

/** The providers of an app's configuration with their clients: made once per configuration (discovery is cached in them). */
const providersByConfig = new WeakMap<Config, Map<string, Provider>>();
function providersOf(config: Config): Map<string, Provider> {
  let providers = providersByConfig.get(config);
  if (!providers) {
    providers = providersWithClients(config.signIn.providers);
    providersByConfig.set(config, providers);
  }
  return providers;
}

function providerNamed(config: Config, id: string | undefined): Provider {
  const provider = id === undefined ? undefined : providersOf(config).get(id);
  if (!provider) throw new AppError('NOT_FOUND', 'No sign-in provider has this id');
  return provider;
}

const redirect = (location: string, cookies: string[]) => reply(303, null, { location, 'cache-control': 'no-store', ...(cookies.length && { 'set-cookie': cookies }) });
const flowCookie = (ctx: Context, value: string, maxAge: number) =>
  serialize(flowCookieName, value, { httpOnly: true, sameSite: 'lax', secure: secureCookies(ctx), path: flowCookiePath, maxAge });

const providerParameter = { name: 'provider', in: 'path', required: true, schema: { type: 'string' }, description: 'The provider’s id in OIDC_PROVIDERS.' };
const seeOther = (description: string) => ({ description, headers: { Location: { schema: { type: 'string' } } } });
const errorAnswer = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

async function begin(request: HttpRequest, ctx: Context, providerId: string | undefined): Promise<HttpResponse> {
  const provider = providerNamed(ctx.config, providerId);
  const query = request.url.searchParams;
  const { location, flowToken } = await beginProviderSignIn(ctx, provider, {
    redirectTo: query.get('redirectTo'),
    inviteToken: query.get('inviteToken'),
    selfOrigin: request.url.origin,
  });
  return redirect(location, [flowCookie(ctx, flowToken, flowTtlMs / 1000)]);
}

async function callback(request: HttpRequest, ctx: Context, providerId: string | undefined): Promise<HttpResponse> {
  const provider = providerNamed(ctx.config, providerId);
  const flowToken = parse(request.header('cookie') ?? '')[flowCookieName] ?? null;
  const { location, session, failure } = await finishProviderSignIn(ctx, provider, flowToken, request.url.searchParams);
  if (failure) ctx.log.info({ provider: provider.setting.id, code: failure.code, details: failure.details }, 'provider sign-in refused');
  const cookies = [flowCookie(ctx, '', 0)];
  if (session) cookies.push(sessionCookie(session.token, session.expiresAt, secureCookies(ctx)));
  return redirect(location, cookies);
}

export const providerSignInRoutes = [
  defineHttpRoute({
    methods: ['GET'],
    path: signInPath('{provider}'),
    pipeline: true,
    openApi: {
      get: {
        operationId: 'beginProviderSignIn',
        summary: 'Sign in with a provider: sends the browser to the provider (authorization code with PKCE), with a flow cookie for its return',
        tags: ['Accounts'],
        security: [],
        parameters: [
          providerParameter,
          { name: 'redirectTo', in: 'query', schema: { type: 'string' }, description: 'Where the browser goes once signed in: a path of the app (APP_URL) or a URL of a CORS_ORIGINS origin; `/` by default.' },
          { name: 'inviteToken', in: 'query', schema: { type: 'string' }, description: 'An invitation the first sign-in accepts (the provider’s e-mail must be the invited one).' },
        ],
        responses: { '303': seeOther('To the provider’s authorization page'), '400': errorAnswer('redirectTo is not a trusted destination'), '404': errorAnswer('No provider has this id'), '503': errorAnswer('The provider cannot be reached') },
      },
    },
    start: () => (request, ctx, params) => begin(request, ctx, params.provider),
  }),
  defineHttpRoute({
    methods: ['GET'],
    path: `${signInPath('{provider}')}/callback`,
    pipeline: true,
    openApi: {
      get: {
        operationId: 'finishProviderSignIn',
        summary: 'Where the provider sends the browser back: signs in (sets the session cookie) and redirects to the app; `#two_factor_challenge=` with two-factor on, `?sign_in_error=<code>` when refused',
        tags: ['Accounts'],
        security: [],
        parameters: [providerParameter, { name: 'code', in: 'query', schema: { type: 'string' } }, { name: 'state', in: 'query', schema: { type: 'string' } }],
        responses: { '303': seeOther('To the app'), '400': errorAnswer('No valid flow: the flow cookie is missing, expired or used, or the state differs') },
      },
    },
    start: () => (request, ctx, params) => callback(request, ctx, params.provider),
  }),
];
