// The console at /console in a real browser (Debian's chromium, driven by playwright-core), as a person
// uses it: typing into its fields and clicking its buttons. No console error, no failed request, no
// request leaving the origin; and the page as the browser receives it: a policy without
// 'unsafe-inline', assets cached as immutable and sent compressed, within the first-load budget.
import { execFileSync } from 'node:child_process';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { systemDb } from '../db/request-db.js';
import { cookieFrom, signUp, type SignedUpUser } from '../testkit/accounts.js';
import { launchChromium, noGraveViolations, watch, type Watched } from '../testkit/browser.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

const pageTimeout = 60_000;
/** The most compressed JavaScript and CSS the sign-in page may load (issue: first load ≤ 300 KB). */
const firstLoadBudget = 300 * 1024;

let t: TestApp;
let browser: Browser;
let user: SignedUpUser;

/** A page of a fresh (signed-out) context, watched (testkit/browser.ts watch). */
async function watchedPage(): Promise<Watched> {
  return watch(await (await browser.newContext()).newPage(), t.origin, pageTimeout);
}

async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${t.origin}/console`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The link of the newest e-mail to `to` (with `subject`, when given), as the outbox of `app` holds it (no SMTP here), once written. */
async function mailedLink(to: string, subject?: string, app: TestApp = t): Promise<string> {
  const outbox = systemDb(app.database, 'test: the outbox').prisma.emailOutbox;
  let body = '';
  await expect
    .poll(async () => (body = (await outbox.findFirst({ where: { recipient: to, ...(subject ? { subject } : {}) }, orderBy: { createdAt: 'desc' } }))?.body ?? ''), { timeout: pageTimeout })
    .toContain('/console/');
  return /(\/console\/\S+)/.exec(body)![1]!;
}

beforeAll(async () => {
  // The console is served from the build (a no-op when dist/ is current, as after `npm run build`).
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'ignore' });
  browser = await launchChromium();
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
  user = await signUp(t, { firstName: 'Grace', lastName: 'Hopper' });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
}, 60_000);

describe('the console in a browser', () => {
  test('a person signs in with e-mail and password, sees who they are after a reload, and signs out', async () => {
    const { page, errors, failed, foreign } = await watchedPage();
    await signInWithPassword(page, user.email, user.password);
    await expect.poll(() => page.locator('main').innerText(), { timeout: pageTimeout }).toContain(`Signed in as ${user.email} (Grace Hopper)`);
    await page.reload();
    await page.getByText(`Signed in as ${user.email}`).waitFor();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // Signed out for the server too: the session cookie no longer works.
    const cookies = await page.context().cookies(t.origin);
    const sid = cookies.find((c) => c.name === 'sid');
    if (sid) expect((await t.fetch('/api/auth/session', { headers: { cookie: `sid=${sid.value}` } })).status).toBe(401);
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
    expect(foreign).toEqual([]);
  }, 180_000);

  test('a wrong password is said at the form, and no session starts', async () => {
    const { page, failed, foreign } = await watchedPage();
    await signInWithPassword(page, user.email, 'not the password at all');
    await expect.poll(() => page.getByRole('alert').innerText(), { timeout: pageTimeout }).toBe('The e-mail or the password is wrong.');
    await expect(page.getByRole('heading', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    expect(failed).toEqual([`401 ${t.origin}/graphql`]);
    expect(foreign).toEqual([]);
  }, 180_000);

  test('with two-factor on, the second step asks for the authenticator code, and a wrong one is refused', async () => {
    const other = await signUp(t, { firstName: 'Alan', lastName: 'Turing' });
    const enrolled = await t.json('POST', '/api/auth/two-factor/enroll', { password: other.password }, { cookie: other.cookie });
    const secret = OTPAuth.Secret.fromBase32(enrolled.body.data.secret as string);
    const confirmed = await t.json('POST', '/api/auth/two-factor/confirm', { code: OTPAuth.TOTP.generate({ secret }) }, { cookie: other.cookie });
    expect(confirmed.status).toBe(200);
    expect(cookieFrom(confirmed.headers)).toBeTruthy();

    const { page, errors, foreign } = await watchedPage();
    await signInWithPassword(page, other.email, other.password);
    const code = page.getByLabel('Code');
    await code.fill('000000' === OTPAuth.TOTP.generate({ secret }) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.getByRole('alert').innerText(), { timeout: pageTimeout }).toBe('The code is not correct');
    // The authenticator's current code went to the confirmation (a code works once): a recovery code, as the form offers.
    await code.fill(confirmed.body.data.recoveryCodes[0] as string);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText(`Signed in as ${other.email}`).waitFor();
    // The only errors are the browser's notes of the refused code (a 4xx answer).
    expect(errors.every((e) => /status of 4\d\d/.test(e))).toBe(true);
    expect(foreign).toEqual([]);
  }, 180_000);

  test('a forgotten password: the link mailed (read from the outbox) opens the console, which sets the new password', async () => {
    const forgetful = await signUp(t);
    const { page, errors, failed, foreign } = await watchedPage();
    await page.goto(`${t.origin}/console`);
    await page.getByRole('link', { name: 'Forgotten password?' }).click();
    await page.getByLabel('E-mail').fill(forgetful.email);
    await page.getByRole('button', { name: 'Mail me a reset link' }).click();
    await page.getByRole('status').waitFor();
    const link = await mailedLink(forgetful.email, 'Reset your password');
    expect(link).toMatch(/^\/console\/reset-password\?token=/);
    await page.goto(`${t.origin}${link}`);
    await page.getByLabel('New password').fill('a new password from the console');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await signInWithPassword(page, forgetful.email, 'a new password from the console');
    await page.getByText(`Signed in as ${forgetful.email}`).waitFor();
    // The link works once.
    await page.goto(`${t.origin}${link}`);
    await page.getByLabel('New password').fill('yet another new password');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await expect.poll(() => page.getByRole('alert').innerText(), { timeout: pageTimeout }).not.toBe('');
    expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
    expect(failed).toEqual([`400 ${t.origin}/graphql`]);
    expect(foreign).toEqual([]);
  }, 180_000);

  test('an e-mail verification link opens the console, verifies the address and starts a session', async () => {
    const unverified = await signUp(t);
    expect((await t.json('POST', '/api/auth/verify-email/resend', { email: unverified.email })).status).toBeLessThan(300);
    const link = await mailedLink(unverified.email, 'Verify your e-mail address');
    expect(link).toMatch(/^\/console\/verify-email\?token=/);
    const { page, errors, failed, foreign } = await watchedPage();
    await page.goto(`${t.origin}${link}`);
    await page.getByText(`Signed in as ${unverified.email}`).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console');
    const verified = await systemDb(t.database, 'test: verified').prisma.user.findUniqueOrThrow({ where: { email: unverified.email }, select: { emailVerifiedAt: true } });
    expect(verified.emailVerifiedAt).not.toBeNull();
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
    expect(foreign).toEqual([]);
  }, 180_000);

  test('a person signs up and is signed in; what the server refuses is said at each field', async () => {
    const { page, errors, foreign } = await watchedPage();
    await page.goto(`${t.origin}/console`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('First name').fill('Katherine');
    await page.getByLabel('Last name').fill('Johnson');
    await page.getByLabel('E-mail').fill('not an e-mail');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await expect.poll(() => page.getByLabel('Password').getAttribute('aria-invalid'), { timeout: pageTimeout }).toBe('true');
    await expect(page.getByLabel('E-mail').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel('First name').getAttribute('aria-invalid')).resolves.toBeNull();
    await expect(page.locator('#password-problem').innerText()).resolves.toMatch(/at least 8 characters/);
    const email = `katherine-${Date.now()}@example.com`;
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.getByText(`Signed in as ${email} (Katherine Johnson)`).waitFor();
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    expect(foreign).toEqual([]);
  }, 180_000);

  test('where e-mails must be verified, sign-up says where the link went and how an operator finds it; the link signs in', async () => {
    const strict = await createTestApp({ RATE_LIMIT_ENABLED: 'false', REQUIRE_EMAIL_VERIFICATION: 'true' });
    try {
      const { page, errors, failed, foreign } = await watchedPage();
      const email = `mary-${Date.now()}@example.com`;
      await page.goto(`${strict.origin}/console/sign-up`);
      await page.getByLabel('First name').fill('Mary');
      await page.getByLabel('Last name').fill('Jackson');
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill('a long enough password');
      await page.getByRole('button', { name: 'Create the account' }).click();
      await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
      await expect(page.locator('main').innerText()).resolves.toContain(`npm run -s cli -- mail outbox --to ${email}`);
      const link = await mailedLink(email, 'Verify your e-mail address', strict);
      await page.goto(`${strict.origin}${link}`);
      await page.getByText(`Signed in as ${email}`).waitFor();
      expect(errors).toEqual([]);
      expect(failed).toEqual([]);
      // (The page is another app's origin than `t`'s: only requests leaving that one count.)
      expect(foreign.filter((url) => !url.startsWith(`${strict.origin}/`))).toEqual([]);
    } finally {
      await strict.close();
    }
  }, 180_000);

  test('an invitation link: a newcomer creates the invited account and joins; a member of elsewhere signs in first and accepts', async () => {
    const teamId = user.activeTeamId!;
    const members = async () => ((await t.json('GET', `/api/v1/teams/${teamId}/members`, undefined, { cookie: user.cookie })).body.data as { user: { email: string } }[]).map((m) => m.user.email);
    const invite = async (email: string) => {
      expect((await t.json('POST', `/api/v1/teams/${teamId}/members`, { email, role: 'member' }, { cookie: user.cookie })).status).toBe(201);
      const link = await mailedLink(email);
      expect(link).toMatch(/^\/console\/invitations\/\S+$/);
      return link;
    };

    const newcomer = `newcomer-${Date.now()}@example.com`;
    const first = await watchedPage();
    await first.page.goto(`${t.origin}${await invite(newcomer)}`);
    await first.page.getByLabel('First name').fill('Dorothy');
    await first.page.getByLabel('Last name').fill('Vaughan');
    await first.page.getByLabel('E-mail').fill(newcomer);
    await first.page.getByLabel('Password').fill('a long enough password');
    await first.page.getByRole('button', { name: 'Create the account and join' }).click();
    await first.page.getByText(`Signed in as ${newcomer}`).waitFor();
    expect(await members()).toContain(newcomer);
    expect(first.errors).toEqual([]);
    expect(first.failed).toEqual([]);

    const elsewhere = await signUp(t, { firstName: 'Annie', lastName: 'Easley' });
    const second = await watchedPage();
    await second.page.goto(`${t.origin}${await invite(elsewhere.email)}`);
    await second.page.getByRole('button', { name: 'Sign in first' }).click();
    await second.page.getByLabel('E-mail').fill(elsewhere.email);
    await second.page.getByLabel('Password').fill(elsewhere.password);
    await second.page.getByRole('button', { name: 'Sign in' }).click();
    await second.page.getByRole('button', { name: 'Accept' }).click();
    await second.page.getByRole('status').filter({ hasText: 'You joined the team.' }).waitFor();
    expect(await members()).toContain(elsewhere.email);
    expect(second.errors).toEqual([]);
    expect(second.failed).toEqual([]);
    expect([...first.foreign, ...second.foreign]).toEqual([]);
  }, 180_000);

  test('account: sessions listed, the others ended from here; the password changed with the current one', async () => {
    const person = await signUp(t, { firstName: 'Hedy', lastName: 'Lamarr' });
    const here = await watchedPage();
    const there = await watchedPage();
    await signInWithPassword(there.page, person.email, person.password);
    await there.page.getByText(`Signed in as ${person.email}`).waitFor();
    await signInWithPassword(here.page, person.email, person.password);
    const sessions = here.page.getByRole('region', { name: 'Where you are signed in' }).getByRole('listitem');
    // Two from the browser, and the one signUp() started.
    await expect.poll(() => sessions.count(), { timeout: pageTimeout }).toBe(3);
    await expect(sessions.filter({ hasText: '(this browser)' }).count()).resolves.toBe(1);
    await here.page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await expect.poll(() => sessions.count(), { timeout: pageTimeout }).toBe(1);
    await expect(here.page.getByRole('button', { name: 'Sign out everywhere else' }).isDisabled()).resolves.toBe(true);
    // The other browser is signed out: on its next visit it shows the sign-in.
    await there.page.reload();
    await there.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await t.fetch('/api/auth/session', { headers: { cookie: person.cookie } })).status).toBe(401);

    const password = here.page.getByRole('region', { name: 'Password' });
    await password.getByLabel('Current password').fill('not the current one');
    await password.getByLabel('New password').fill('a brand new password');
    await password.getByRole('button', { name: 'Change the password' }).click();
    await expect.poll(() => password.getByRole('alert').innerText(), { timeout: pageTimeout }).not.toBe('');
    await password.getByLabel('Current password').fill(person.password);
    await password.getByLabel('New password').fill('a brand new password');
    await password.getByRole('button', { name: 'Change the password' }).click();
    await password.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
    expect((await t.json('POST', '/api/auth/login', { email: person.email, password: 'a brand new password' })).status).toBe(200);
    expect(here.errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
    expect([...here.foreign, ...there.foreign]).toEqual([]);
  }, 180_000);

  test('two-factor from the account: the key shown as a QR code and as text, a first code, recovery codes once; then sign-in asks for a code; turned off', async () => {
    const person = await signUp(t, { firstName: 'Radia', lastName: 'Perlman' });
    const { page, errors, foreign } = await watchedPage();
    await signInWithPassword(page, person.email, person.password);
    const section = page.getByRole('region', { name: 'Two-factor sign-in' });
    await section.getByLabel('Password').fill(person.password);
    await section.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const qr = section.getByRole('img', { name: 'QR code of the authenticator key' });
    await qr.waitFor();
    expect(await qr.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)).toBe(true);
    const secret = OTPAuth.Secret.fromBase32(await section.locator('.secret').innerText());
    await section.getByLabel('Code from the app').fill(OTPAuth.TOTP.generate({ secret }));
    await section.getByRole('button', { name: 'Turn on', exact: true }).click();
    const codes = section.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expect.poll(() => codes.count(), { timeout: pageTimeout }).toBe(10);
    const recovery = await codes.first().innerText();
    await section.getByRole('button', { name: 'I have kept them' }).click();
    await section.getByRole('button', { name: 'Turn off two-factor sign-in' }).waitFor();
    // A reload still knows it is on (the session says so).
    await page.reload();
    await page.getByRole('region', { name: 'Two-factor sign-in' }).getByRole('button', { name: 'Turn off two-factor sign-in' }).waitFor();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await signInWithPassword(page, person.email, person.password);
    await page.getByLabel('Code').fill(recovery);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText(`Signed in as ${person.email}`).waitFor();
    const again = page.getByRole('region', { name: 'Two-factor sign-in' });
    // A code of the next period (the server allows one step of drift): the current one may have turned two-factor on.
    await again.getByLabel('Code or recovery code').fill(OTPAuth.TOTP.generate({ secret, timestamp: Date.now() + 30_000 }));
    await again.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    await again.getByRole('button', { name: 'Turn on two-factor sign-in' }).waitFor();
    expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
    expect(foreign).toEqual([]);
  }, 180_000);

  test('every screen has no serious or critical accessibility violation (axe-core), at 1280 and 390 px wide, without sideways scrolling', async () => {
    const resetLink = await (async () => {
      const someone = await signUp(t);
      await t.json('POST', '/api/auth/password-reset', { email: someone.email });
      return mailedLink(someone.email, 'Reset your password');
    })();
    const invited = `invited-${Date.now()}@example.com`;
    await t.json('POST', `/api/v1/teams/${user.activeTeamId}/members`, { email: invited, role: 'member' }, { cookie: user.cookie });
    const invitationLink = await mailedLink(invited);
    for (const width of [1280, 390]) {
      const { page } = await watchedPage();
      await page.setViewportSize({ width, height: 900 });
      const screens: [string, () => Promise<void>][] = [
        ['sign-in', async () => void (await page.goto(`${t.origin}/console`), await page.getByRole('heading', { name: 'Sign in' }).waitFor())],
        ['sign-in refused', async () => void (await signInWithPassword(page, user.email, 'wrong password here'), await page.getByRole('alert').waitFor())],
        ['sign-up', async () => void (await page.goto(`${t.origin}/console/sign-up`), await page.getByRole('heading', { name: 'Create an account' }).waitFor())],
        ['forgotten password', async () => void (await page.goto(`${t.origin}/console/forgot-password`), await page.getByRole('heading', { name: 'Forgotten password' }).waitFor())],
        ['reset', async () => void (await page.goto(`${t.origin}${resetLink}`), await page.getByRole('heading', { name: 'Choose a new password' }).waitFor())],
        ['invitation', async () => void (await page.goto(`${t.origin}${invitationLink}`), await page.getByRole('heading', { name: 'Invitation to a team' }).waitFor())],
        ['account', async () => void (await signInWithPassword(page, user.email, user.password), await page.getByText('Signed in as').waitFor())],
      ];
      for (const [name, open] of screens) {
        await open();
        await noGraveViolations(page, `${name} at ${width} px`);
      }
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.context().close();
    }
  }, 240_000);

  test('is served as built: a policy without inline script or style, immutable compressed assets, within the first-load budget', async () => {
    const { page, responses, errors } = await watchedPage();
    await page.goto(`${t.origin}/console`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const document = responses.find((r) => new URL(r.url()).pathname === '/console')!;
    const policy = (await document.allHeaders())['content-security-policy']!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("style-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
    const assets = responses.filter((r) => new URL(r.url()).pathname.startsWith('/console/assets/'));
    expect(assets.map((r) => new URL(r.url()).pathname.split('.').pop()).sort()).toEqual(['css', 'js']);
    let compressed = 0;
    for (const asset of assets) {
      const headers = await asset.allHeaders();
      expect(headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(headers['content-encoding']).toBe('br');
      compressed += (await asset.request().sizes()).responseBodySize;
    }
    expect(compressed).toBeGreaterThan(0);
    expect(compressed).toBeLessThanOrEqual(firstLoadBudget);
    // A client that takes only gzip gets gzip; one that takes neither gets the file as it is.
    const [asset] = assets;
    const gz = await t.fetch(new URL(asset!.url()).pathname, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    const plain = await t.fetch(new URL(asset!.url()).pathname, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect((await plain.arrayBuffer()).byteLength).toBeGreaterThan((await asset!.request().sizes()).responseBodySize);
    expect((await t.fetch('/console/assets/missing-AAAA.js')).status).toBe(404);
    expect(errors).toEqual([]);
  }, 180_000);
});
