// Signing in with a provider in a real browser (Debian's chromium, driven by playwright-core): from
// the app's sign-in link to the provider's login page (oidc-provider on loopback), its form filled in
// and sent, and back to the app, signed in: the browser's next request carries the new session. The
// console's button does the same and comes back to the console, signed in.
import { execFileSync } from 'node:child_process';
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
  // The console is served from the build (a no-op when dist/ is current, as after `npm run build`).
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'ignore' });
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

test("the console's button signs in through the provider and comes back to the console, signed in", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(pageTimeout);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  // Our pages' console errors (the provider's own login page loads things of its own).
  page.on('console', (message) => void (message.type() === 'error' && new URL(page.url()).origin === t.origin && errors.push(message.text())));
  await page.goto(`${t.origin}/console`);
  await page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await page.waitForURL((url) => url.origin === idp.issuer);
  await page.locator('input[name="login"]').fill('grace');
  await page.locator('input[name="password"]').fill('her password at the provider');
  await page.locator('button[type="submit"]').click();
  await page.getByText('Signed in as grace@corp.test').waitFor();
  expect(new URL(page.url()).pathname).toBe('/console');
  expect(new URL(page.url()).search).toBe('');
  // Signed in for good: a reload keeps it.
  await page.reload();
  await page.getByText('Signed in as grace@corp.test').waitFor();
  // The account lists the provider it is linked to; unlinking the only way to sign in is refused, and said.
  const linked = page.getByRole('region', { name: 'Linked sign-in providers' });
  await linked.getByText('corp · grace@corp.test').waitFor();
  await linked.getByRole('button', { name: 'Unlink corp' }).click();
  await linked.getByText('corp is your only way to sign in').waitFor();
  await expect(linked.getByText('corp · grace@corp.test').isVisible()).resolves.toBe(true);
  expect(errors.filter((e) => !/status of 409/.test(e))).toEqual([]);
  await context.close();
}, 180_000);
