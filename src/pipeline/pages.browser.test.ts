// The pages a first user opens, in a real browser (Debian's chromium, driven by playwright-core): the
// landing page, GraphiQL with a session (a query typed into the editor and run with its button), and
// the API docs. No console error (a blocked script or style is one), and every request the pages make
// goes to the app's own origin.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { signUp } from '../testkit/accounts.js';
import { launchChromium, signedInContext, typeIntoGraphiQL } from '../testkit/browser.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

const pageTimeout = 60_000;

let t: TestApp;
let browser: Browser;
let context: BrowserContext;
let email: string;

interface Watched {
  page: Page;
  errors: string[];
  requests: string[];
}

/** A new page that records console errors, uncaught exceptions and every request URL it makes. */
async function watchedPage(): Promise<Watched> {
  const page = await context.newPage();
  page.setDefaultTimeout(pageTimeout);
  const watched: Watched = { page, errors: [], requests: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') watched.errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => watched.errors.push(String(error)));
  page.on('request', (request) => watched.requests.push(request.url()));
  return watched;
}

/**
 * Swagger UI (5.x) renders the operations near the viewport only, as a virtual list: `visit` runs on what
 * is rendered at each height of the page, scrolling a viewport at a time from the top to the bottom
 * (or until it returns true). A 60,000 px viewport rendered them all at once, at ~19 s of Chromium's CPU.
 */
async function scrollThrough(page: Page, visit: () => Promise<boolean | void>): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  for (;;) {
    // Two frames: the list hears the scroll, then paints what came into view.
    await page.evaluate(() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted))));
    if (await visit()) return;
    const atBottom = await page.evaluate(() => {
      const before = window.scrollY;
      window.scrollBy(0, window.innerHeight * 0.8);
      return window.scrollY === before;
    });
    if (atBottom) return;
  }
}

/** Requests that left the app's origin (blob: and data: URLs are made by the page itself). */
function foreign(requests: string[]): string[] {
  return requests.filter((url) => !url.startsWith(`${t.origin}/`) && !url.startsWith('blob:') && !url.startsWith('data:'));
}

beforeAll(async () => {
  browser = await launchChromium();
  t = await createTestApp();
  const user = await signUp(t);
  email = user.email;
  context = await signedInContext(browser, t.origin, user.cookie);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
}, 60_000);

describe('pages in a browser', () => {
  test('GraphiQL runs a query typed into its editor, with the session', async () => {
    const { page, errors, requests } = await watchedPage();
    await page.goto(`${t.origin}/graphql`);
    await typeIntoGraphiQL(page, 'query Me { me { user { email } } }', pageTimeout);
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    await expect.poll(() => result.innerText(), { timeout: pageTimeout }).toContain(email);
    expect(errors).toEqual([]);
    expect(requests.length).toBeGreaterThan(1);
    expect(foreign(requests)).toEqual([]);
    await page.close();
  }, 180_000);

  test('the API docs list the routes, and an operation opens', async () => {
    const { page, errors, requests } = await watchedPage();
    await page.goto(`${t.origin}/api/v1/docs`);
    await page.locator('.opblock').first().waitFor();
    // Every path the page shows on its way down (polled: a frame may paint late on a loaded machine).
    const paths = async () => {
      const seen = new Set<string>();
      await scrollThrough(page, async () => void (await page.locator('.opblock-summary-path').allInnerTexts()).forEach((p) => seen.add(p.replace(/\u200b/g, ''))));
      return [...seen];
    };
    await expect.poll(paths, { timeout: pageTimeout }).toEqual(expect.arrayContaining(['/api/v1/teams', '/api/v1/api-keys', '/api/v1/media/upload', '/api/v1/tasks/{id}/versions', '/api/v1/teams/{teamId}/audit-log']));
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor();
    expect(errors).toEqual([]);
    expect(foreign(requests)).toEqual([]);
    await page.close();
  }, 180_000);

  test("the docs' Try it out on an entity's LIST sends what Swagger UI fills in, and the answer is 200", async () => {
    const { page, errors, requests } = await watchedPage();
    await page.goto(`${t.origin}/api/v1/docs`);
    await page.locator('.opblock').first().waitFor();
    const list = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path', { hasText: /^\/api\/v1\/tasks$/ }) });
    await expect.poll(async () => (await scrollThrough(page, async () => (await list.count()) > 0), list.count()), { timeout: pageTimeout }).toBe(1);
    await list.locator('.opblock-summary').click();
    await list.locator('.try-out__btn').click();
    const [response] = await Promise.all([page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/tasks'), list.locator('.execute').click()]);
    expect(response.status(), `${response.url().length} characters: ${response.url().slice(0, 300)}`).toBe(200);
    await expect.poll(() => list.locator('.live-responses-table tbody .response-col_status').first().innerText(), { timeout: pageTimeout }).toContain('200');
    expect(errors).toEqual([]);
    expect(foreign(requests)).toEqual([]);
    await page.close();
  }, 180_000);

  test('the landing page links to the console, GraphiQL, the docs, the OpenAPI document and the health routes, and each answers', async () => {
    const { page, errors, requests } = await watchedPage();
    await page.goto(`${t.origin}/`);
    const links = page.locator('a');
    const hrefs = await links.evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
    expect(hrefs.map((href) => new URL(href).pathname)).toEqual(['/console', '/graphql', '/api/v1/docs', '/api/v1/openapi.json', '/healthz', '/readyz']);
    for (const [i, href] of hrefs.entries()) {
      await page.goto(`${t.origin}/`);
      const [response] = await Promise.all([page.waitForEvent('response', (r) => r.url() === href), links.nth(i).click()]);
      expect(response.status(), href).toBe(200);
      await page.waitForLoadState('load');
      expect(page.url()).toBe(href);
    }
    // GraphiQL, reached from the landing page, shows its editor.
    await page.goto(`${t.origin}/`);
    await links.nth(1).click();
    await page.locator('.graphiql-query-editor').waitFor();
    expect(errors).toEqual([]);
    expect(foreign(requests)).toEqual([]);
    await page.close();
  }, 180_000);
});
