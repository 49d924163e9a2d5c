// A real OpenID Connect provider for tests: panva's `oidc-provider` on loopback, with its development
// login page (any login name, any password) and consent granted up front. Its accounts are the test's
// to describe (e-mail, whether the provider vouches for it, names). `signIn` walks its pages as a
// browser would (cookies, redirects, the login form) and stops at the app's callback URL.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface ProviderAccount {
  email?: string;
  emailVerified?: boolean;
  givenName?: string;
  familyName?: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by login name; a login not described here is `<login>@idp.test`, verified. */
  accounts: Map<string, ProviderAccount>;
  /** The OIDC_PROVIDERS entry of this provider under `id`. */
  setting(id: string, extra?: Record<string, unknown>): Record<string, unknown>;
  /** Opens the provider to the apps that use it (their callback URLs, per provider id): once, when they listen. */
  register(...apps: { origin: string; providerIds: string[] }[]): void;
  /**
   * Follows `authorizationUrl` through the provider's pages, signing in as `login` (or cancelling),
   * and answers the URL the provider sends the browser back to (the app's callback, not followed).
   */
  signIn(authorizationUrl: string, login: string | { abort: true }): Promise<URL>;
  close(): Promise<void>;
}

/** Reserves a loopback port and its issuer URL; the provider itself is made by `register`. */
export async function startOidcProvider(): Promise<TestOidcProvider> {
  const server: Server = createServer((_req, res) => res.writeHead(503).end('not ready'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'platform-test';
  const clientSecret = 'a client secret of the test provider';
  const accounts = new Map<string, ProviderAccount>();

  const claimsOf = (login: string) => {
    const account = accounts.get(login) ?? {};
    return {
      sub: login,
      email: account.email ?? `${login}@idp.test`,
      email_verified: account.emailVerified ?? true,
      given_name: account.givenName ?? 'Ada',
      family_name: account.familyName ?? 'Provider',
    };
  };

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    setting: (id, extra = {}) => ({ id, name: `IdP ${id}`, issuer, clientId, clientSecret, ...extra }),
    register(...apps) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: apps.flatMap(({ origin, providerIds }) => providerIds.map((id) => `${origin}/api/auth/oidc/${id}/callback`)),
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        cookies: { keys: ['test cookie signing key'] },
        jwks: { keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'test', alg: 'RS256', use: 'sig' }] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
        pkce: { required: () => true },
        findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => claimsOf(sub) }),
        // First-party client: consent is given once signed in.
        loadExistingGrant: async (ctx) => {
          const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
          grant.addOIDCScope('openid email profile');
          await grant.save();
          return grant;
        },
      });
      server.removeAllListeners('request');
      server.on('request', provider.callback());
    },
    async signIn(authorizationUrl, login) {
      const jar = new Map<string, string>();
      let url = new URL(authorizationUrl);
      let init: RequestInit = {};
      for (let hop = 0; hop < 20; hop++) {
        if (url.origin !== issuer) return url;
        const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
        for (const cookie of response.headers.getSetCookie()) {
          const [pair] = cookie.split(';');
          const eq = pair!.indexOf('=');
          jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
        }
        const location = response.headers.get('location');
        if (location) {
          url = new URL(location, url);
          init = {};
          continue;
        }
        const page = await response.text();
        if (response.status !== 200 || !page.includes('name="prompt" value="login"')) throw new Error(`unexpected provider page ${url}: ${response.status} ${page.slice(0, 300)}`);
        if (typeof login !== 'string') {
          url = new URL(`${url.pathname}/abort`, url);
          init = {};
          continue;
        }
        init = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString() };
      }
      throw new Error('the provider kept redirecting');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
