// Talking to sign-in providers, through openid-client: the authorization URL a browser is sent to
// (authorization-code flow with PKCE, state and nonce), and the identity its callback proves (the code
// exchanged for tokens; the ID token's signature, issuer, audience, nonce and expiry checked by the
// library). OpenID Connect providers are discovered once from their issuer; GitHub is plain OAuth2, so
// its user and verified e-mails come from its API.
import * as oidc from 'openid-client';
import { isLoopbackHttp, type SignInProvider } from '../../config/oidc.js';

/** Who signed in at the provider. */
export interface ProviderIdentity {
  /** The provider's stable id of the account. */
  subject: string;
  email: string | null;
  /** Whether the provider vouches that the e-mail reaches this account. */
  emailVerified: boolean;
  firstName: string;
  lastName: string;
}

/** What ties a callback to the flow its browser started. */
export interface FlowChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface ProviderClient {
  authorizationUrl(callbackUrl: string, checks: FlowChecks): Promise<URL>;
  /** The identity of a callback (`currentUrl`: the callback URL with the provider's query). */
  identity(currentUrl: URL, checks: FlowChecks): Promise<ProviderIdentity>;
}

const timeoutSeconds = 10;

/** http:// is allowed for loopback issuers only (a provider in development and tests). */
function requestOptions(url: string): oidc.DiscoveryRequestOptions {
  return { timeout: timeoutSeconds, ...(isLoopbackHttp(url) && { execute: [oidc.allowInsecureRequests] }) };
}

function splitName(name: string | undefined): [string, string] {
  const parts = (name ?? '').trim().split(/\s+/).filter(Boolean);
  return [parts[0] ?? '', parts.slice(1).join(' ')];
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** The provider's claims (ID token, then userinfo) as an identity. */
function identityOf(claims: Record<string, unknown>): ProviderIdentity {
  const [first, last] = splitName(text(claims.name));
  const email = text(claims.email);
  return {
    subject: String(claims.sub),
    email: email ? email.toLowerCase() : null,
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    firstName: (text(claims.given_name) ?? first).slice(0, 100),
    lastName: (text(claims.family_name) ?? last).slice(0, 100),
  };
}

async function authorizationParameters(callbackUrl: string, checks: FlowChecks, scope: string): Promise<Record<string, string>> {
  return {
    redirect_uri: callbackUrl,
    scope,
    state: checks.state,
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
    code_challenge_method: 'S256',
  };
}

/** An OpenID Connect provider, discovered on first use (again after a failed discovery). */
function openIdClient(provider: Extract<SignInProvider, { kind: 'oidc' }>): ProviderClient {
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = () => {
    discovered ??= oidc.discovery(new URL(provider.issuer), provider.clientId, provider.clientSecret, undefined, requestOptions(provider.issuer));
    discovered.catch(() => (discovered = undefined));
    return discovered;
  };
  return {
    async authorizationUrl(callbackUrl, checks) {
      const config = await configuration();
      return oidc.buildAuthorizationUrl(config, { ...(await authorizationParameters(callbackUrl, checks, provider.scopes)), nonce: checks.nonce });
    },
    async identity(currentUrl, checks) {
      const config = await configuration();
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      // Providers that keep profile claims out of the ID token give them at the userinfo endpoint.
      const userinfo = claims.email === undefined && config.serverMetadata().userinfo_endpoint ? await oidc.fetchUserInfo(config, tokens.access_token, claims.sub) : {};
      return identityOf({ ...userinfo, ...claims });
    },
  };
}

interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

/** GitHub (or GitHub Enterprise): OAuth2 with PKCE, then the user and their primary verified e-mail from the API. */
function gitHubClient(provider: Extract<SignInProvider, { kind: 'github' }>): ProviderClient {
  const config = new oidc.Configuration(
    { issuer: provider.webUrl, authorization_endpoint: `${provider.webUrl}/login/oauth/authorize`, token_endpoint: `${provider.webUrl}/login/oauth/access_token` },
    provider.clientId,
    provider.clientSecret,
  );
  config.timeout = timeoutSeconds;
  if (isLoopbackHttp(provider.webUrl) || isLoopbackHttp(provider.apiUrl)) oidc.allowInsecureRequests(config);
  const api = async <T>(accessToken: string, path: string): Promise<T> => {
    const response = await oidc.fetchProtectedResource(config, accessToken, new URL(`${provider.apiUrl}${path}`), 'GET', undefined, new Headers({ accept: 'application/vnd.github+json' }));
    if (!response.ok) throw new Error(`GitHub API ${path} answered ${response.status}`);
    return (await response.json()) as T;
  };
  return {
    async authorizationUrl(callbackUrl, checks) {
      return oidc.buildAuthorizationUrl(config, await authorizationParameters(callbackUrl, checks, 'read:user user:email'));
    },
    async identity(currentUrl, checks) {
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, { pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state, idTokenExpected: false });
      const [user, emails] = await Promise.all([
        api<{ id: number; login: string; name: string | null }>(tokens.access_token, '/user'),
        api<GitHubEmail[]>(tokens.access_token, '/user/emails'),
      ]);
      // The primary address if verified, else any verified one, else the unverified primary (refused as such).
      const chosen = emails.find((e) => e.primary && e.verified) ?? emails.find((e) => e.verified) ?? emails.find((e) => e.primary);
      const [first, last] = splitName(user.name ?? user.login);
      return { subject: String(user.id), email: chosen?.email.toLowerCase() ?? null, emailVerified: Boolean(chosen?.verified), firstName: first.slice(0, 100), lastName: last.slice(0, 100) };
    },
  };
}

/** A configured provider and its client. */
export interface Provider {
  setting: SignInProvider;
  client: ProviderClient;
}

/** The configured providers with their clients, by id (made once per app; discovery happens on first use). */
export function providersWithClients(settings: readonly SignInProvider[]): Map<string, Provider> {
  return new Map(settings.map((setting) => [setting.id, { setting, client: setting.kind === 'github' ? gitHubClient(setting) : openIdClient(setting) }]));
}

export const newFlowChecks = (): FlowChecks => ({ state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() });
