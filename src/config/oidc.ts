// Sign-in providers, from the OIDC_PROVIDERS environment variable: a JSON array, one object per
// provider. A provider is any OpenID Connect issuer (discovered from `issuer`), or a preset: `google`,
// `microsoft` (one Entra ID tenant) and `github` (GitHub's OAuth2, which is not OpenID Connect: the
// user and their verified e-mails come from its API). Unknown keys and bad values stop the server.
import { z } from 'zod';

const id = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'must be lower-case letters, digits and dashes (it is part of the callback URL)');
const httpsOrLoopback = z
  .string()
  .url()
  .refine((v) => {
    return new URL(v).protocol === 'https:' || isLoopbackHttp(v);
  }, 'must be an https:// URL (http:// only on a loopback address, for development)');

const common = {
  id,
  /** Shown on sign-in buttons; the preset's name or the id by default. */
  name: z.string().trim().min(1).max(60).optional(),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  /**
   * The provider's e-mail counts as verified even without `email_verified: true`: only for an
   * identity provider whose directory an administrator controls (a company's tenant).
   */
  trustEmail: z.boolean().default(false),
};

const providerSchema = z.discriminatedUnion('preset', [
  z.strictObject({ preset: z.literal('oidc'), ...common, issuer: httpsOrLoopback, scopes: z.string().default('openid email profile') }),
  z.strictObject({ preset: z.literal('google'), ...common }),
  z.strictObject({ preset: z.literal('microsoft'), ...common, tenant: z.string().regex(/^[\w.-]+$/, 'must be a tenant id or domain') }),
  z.strictObject({ preset: z.literal('github'), ...common, webUrl: httpsOrLoopback.default('https://github.com'), apiUrl: httpsOrLoopback.default('https://api.github.com') }),
]);

export type ProviderSetting = z.infer<typeof providerSchema>;

/** What the server signs in with: OpenID Connect (discovered) or GitHub's OAuth2 API. */
export type SignInProvider =
  | { kind: 'oidc'; id: string; name: string; issuer: string; scopes: string; clientId: string; clientSecret: string; trustEmail: boolean }
  | { kind: 'github'; id: string; name: string; webUrl: string; apiUrl: string; clientId: string; clientSecret: string; trustEmail: boolean };

/** An http:// URL on a loopback address: allowed for providers in development and tests only. */
export function isLoopbackHttp(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && (hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname));
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** A setting as the provider it configures (presets filled in). */
function providerOf(p: ProviderSetting): SignInProvider {
  const base = { id: p.id, clientId: p.clientId, clientSecret: p.clientSecret, trustEmail: p.trustEmail };
  switch (p.preset) {
    case 'oidc':
      return { kind: 'oidc', ...base, name: p.name ?? p.id, issuer: p.issuer, scopes: p.scopes };
    case 'google':
      return { kind: 'oidc', ...base, name: p.name ?? 'Google', issuer: 'https://accounts.google.com', scopes: 'openid email profile' };
    case 'microsoft':
      return { kind: 'oidc', ...base, name: p.name ?? 'Microsoft', issuer: `https://login.microsoftonline.com/${p.tenant}/v2.0`, scopes: 'openid email profile' };
    case 'github':
      return { kind: 'github', ...base, name: p.name ?? 'GitHub', webUrl: trimSlash(p.webUrl), apiUrl: trimSlash(p.apiUrl) };
  }
}

/** OIDC_PROVIDERS as providers; throws with every problem listed. */
export function parseSignInProviders(json: string | undefined): SignInProvider[] {
  if (!json) return [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error('OIDC_PROVIDERS: not valid JSON (expected an array of provider objects)');
  }
  // A provider without `preset` is a plain OpenID Connect issuer.
  const withPreset = Array.isArray(value) ? value.map((p) => (p && typeof p === 'object' && !('preset' in p) ? { ...p, preset: 'oidc' } : p)) : value;
  const parsed = z.array(providerSchema).safeParse(withPreset);
  if (!parsed.success) throw new Error(`OIDC_PROVIDERS: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const ids = parsed.data.map((p) => p.id);
  const twice = ids.find((x, i) => ids.indexOf(x) !== i);
  if (twice) throw new Error(`OIDC_PROVIDERS: the id "${twice}" is used twice`);
  return parsed.data.map(providerOf);
}
