// A whole provider sign-in as a browser makes it, for tests: the app's sign-in link (with its flow
// cookie), the provider's pages (testkit/oidc-provider.ts) as `login`, and the app's callback, not
// followed further: where it sends the browser and the session cookie it sets, if any.
import type { TestOidcProvider } from './oidc-provider.js';
import type { TestApp } from './test-app.js';

export interface ProviderSignIn {
  response: Response;
  /** Where the callback sends the browser (`sign_in_error`, `#two_factor_challenge`…). */
  location: URL;
  /** The session cookie (`sid=…`) the callback set, or null. */
  session: string | null;
}

/** Signs in at `provider` (an id of the app's OIDC_PROVIDERS) as the provider's account `login`. */
export async function signInWithProvider(app: TestApp, idp: TestOidcProvider, login: string, { provider = 'idp', query = '' } = {}): Promise<ProviderSignIn> {
  const begun = await app.fetch(`/api/auth/oidc/${provider}${query}`, { redirect: 'manual' });
  if (begun.status !== 303) throw new Error(`sign-in did not start: ${begun.status} ${await begun.text()}`);
  const flowCookie = (begun.headers.get('set-cookie') ?? '').split(';')[0]!;
  const back = await idp.signIn(begun.headers.get('location')!, login);
  const response = await app.fetch(String(back), { redirect: 'manual', headers: { cookie: flowCookie } });
  const location = new URL(response.headers.get('location') ?? 'http://none/');
  const session = response.headers.getSetCookie().find((c) => c.startsWith('sid='))?.split(';')[0] ?? null;
  return { response, location, session };
}
