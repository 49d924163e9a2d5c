// GraphiQL runs a subscription, in a real browser (Debian's chromium, driven by playwright-core, as
// http/pages.browser.test.ts): typed into its editor and run with its button, it goes over yoga's
// Server-Sent Events with the session cookie, and a task created meanwhile shows in the result pane.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { signUp, type SignedUpUser } from '../../testkit/accounts.js';
import { launchChromium, signedInContext, typeIntoGraphiQL } from '../../testkit/browser.js';
import { createTestApp, type TestApp } from '../../testkit/test-app.js';

const pageTimeout = 60_000;

let t: TestApp;
let browser: Browser;
let user: SignedUpUser;

beforeAll(async () => {
  browser = await launchChromium();
  t = await createTestApp();
  user = await signUp(t);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
}, 60_000);

test('GraphiQL runs a subscription: the changes arrive in its result pane as they are committed', async () => {
  const context = await signedInContext(browser, t.origin, user.cookie);
  const page = await context.newPage();
  page.setDefaultTimeout(pageTimeout);
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  const streams: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(`${t.origin}/graphql`) && request.headers().accept?.includes('text/event-stream')) streams.push(request.method());
  });

  await page.goto(`${t.origin}/graphql`);
  await typeIntoGraphiQL(page, 'subscription Board { taskEvents { type record { title } } }', pageTimeout);
  await page.locator('.graphiql-execute-button').click();
  await expect.poll(() => streams.length, { timeout: pageTimeout }).toBeGreaterThan(0);

  // The subscription opens once the request is answered: a task is written until one shows.
  const result = page.locator('.result-window');
  let shown = '';
  for (let i = 0; i < 60 && !shown.includes('Seen in GraphiQL'); i++) {
    const res = await t.json('POST', '/api/v1/tasks', { title: `Seen in GraphiQL ${i}` }, { cookie: user.cookie });
    expect(res.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Monaco renders spaces as no-break spaces.
    shown = (await result.innerText()).replace(/\s+/g, ' ');
  }
  expect(shown).toContain('"type": "CREATED"');
  expect(shown).toContain('Seen in GraphiQL');
  expect(errors).toEqual([]);
  await context.close();
}, 180_000);
