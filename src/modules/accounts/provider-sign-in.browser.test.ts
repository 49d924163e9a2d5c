// Signing in with a provider in a real browser (Debian's chromium, driven by playwright-core): from
// the app's sign-in link to the provider's login page (oidc-provider on loopback), its form filled in
// and sent, and back to the app, signed in: the browser's next request carries the new session.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../testkit/browser.js';
import { startOidcProvider, type TestOidcProvider } from '../../testkit/oidc-provider.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

const pageTimeout = 60_000;

let idp: TestOidcProvider;
let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  idp = await startOidcProvider();
  t = await createTestApp({ OIDC_PROVIDERS: JSON.stringify([idp.setting('corp', { name: 'Corp SSO' })]) });
  idp.register({ origin: t.origin, providerIds: ['corp'] });
  idp.accounts.set('grace', { email: 'grace@corp.test', givenName: 'Grace', familyName: 'Hopper' });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await idp?.close();
}, 60_000);

test('a user signs in through the provider’s login page and lands on the app signed in', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(pageTimeout);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));

  // What a sign-in button does: the provider's signInUrl, with where to come back to.
  const { data: providers } = await (await t.fetch('/api/auth/providers')).json();
  expect(providers).toEqual([{ id: 'corp', name: 'Corp SSO', signInUrl: '/api/auth/oidc/corp' }]);
  await page.goto(`${t.origin}${providers[0].signInUrl}?redirectTo=/`);

  // The provider's own login page.
  expect(new URL(page.url()).origin).toBe(idp.issuer);
  await page.locator('input[name="login"]').fill('grace');
  await page.locator('input[name="password"]').fill('her password at the provider');
  await Promise.all([page.waitForURL(`${t.origin}/`), page.locator('button[type="submit"]').click()]);

  // Back on the app's landing page, with the session cookie the callback set.
  const cookies = await context.cookies(t.origin);
  expect(cookies.find((c) => c.name === 'sid')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  expect(cookies.find((c) => c.name === 'sign_in_flow')).toBeUndefined();
  // The browser's next request is signed in (the landing page's CSP allows it no fetch: a navigation).
  const answer = await page.goto(`${t.origin}/api/auth/session`);
  expect(answer!.status()).toBe(200);
  const session = await answer!.json();
  expect(session.data.user).toMatchObject({ email: 'grace@corp.test', firstName: 'Grace', lastName: 'Hopper' });
  expect(errors).toEqual([]);
  await context.close();
}, 180_000);
