// A real browser for the *.browser.test.ts files: Debian's chromium (or CHROMIUM_PATH), driven by
// playwright-core, headless and quiet (no GPU, no background fetches or component updates of its own,
// so that every request a page makes is the page's).
import { existsSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page, type Response } from 'playwright-core';
import { expect } from 'vitest';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launches chromium, or throws saying how to install it when there is none at CHROMIUM_PATH (default /usr/bin/chromium). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(executablePath)) throw new Error(`No browser at ${executablePath}: apt-get install chromium (or set CHROMIUM_PATH)`);
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** A new browser context that sends the session cookie (a Cookie header, `name=value`) to `origin`. */
export async function signedInContext(browser: Browser, origin: string, cookie: string, options?: BrowserContextOptions): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  const separator = cookie.indexOf('=');
  await context.addCookies([{ name: cookie.slice(0, separator), value: cookie.slice(separator + 1), url: origin }]);
  return context;
}

/** Replaces what GraphiQL's editor (on `page`, already at /graphql) holds with `text`, once the editor shows it. */
export async function typeIntoGraphiQL(page: Page, text: string, timeoutMs: number): Promise<void> {
  const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
  await editor.waitFor();
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  // Monaco renders spaces as no-break spaces; the text is the query exactly (no auto-closed brackets).
  await expect.poll(async () => (await editor.innerText()).replace(/\s+/g, ' '), { timeout: timeoutMs }).toContain(text);
}

/** What a page did that a person would call broken: console errors, failed requests, requests leaving the origin. */
export interface Watched {
  page: Page;
  errors: string[];
  failed: string[];
  foreign: string[];
  responses: Response[];
}

/**
 * Watches `page` of the app at `origin`: console errors and uncaught exceptions, requests that failed
 * (a response of 400 or more, or none; one cut short by the page's own navigation, net::ERR_ABORTED,
 * did not fail) and requests to any other origin. A test expects each list empty at its end.
 */
export function watch(page: Page, origin: string, timeoutMs: number): Watched {
  page.setDefaultTimeout(timeoutMs);
  const watched: Watched = { page, errors: [], failed: [], foreign: [], responses: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') watched.errors.push(message.text());
  });
  page.on('pageerror', (error) => watched.errors.push(error.stack ?? String(error)));
  page.on('requestfailed', (request) => void (request.failure()?.errorText !== 'net::ERR_ABORTED' && watched.failed.push(`${request.url()} ${request.failure()?.errorText}`)));
  page.on('response', (response) => {
    watched.responses.push(response);
    if (response.status() >= 400) watched.failed.push(`${response.status()} ${response.url()}`);
    if (!response.url().startsWith(`${origin}/`) && !response.url().startsWith('data:')) watched.foreign.push(response.url());
  });
  return watched;
}

/**
 * axe-core finds no serious or critical violation on `page` as it shows now (`name` in the failure),
 * and the page does not scroll sideways. Axe runs in the page itself (its legacy mode: the console has
 * no frames to reach), not by its default of collecting each frame's results and opening a blank page
 * to combine them: the same rules, without a new renderer for every check. Measured alone: the studio's
 * 18 checks 22.4 → 17.5 s of CPU (worker and browser) and 50 → 36 s of wall time; the sign-in screens'
 * 14 checks 16.5–16.6 → 11.4–12.6 s and 22 → 14 s.
 */
export async function noGraveViolations(page: Page, name: string): Promise<void> {
  const { violations, passes } = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
  expect(passes.length, `axe checked ${name}`).toBeGreaterThan(0);
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(grave, name).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name} scrolls sideways`).toBe(true);
}
