// The console's data studio and API keys in a real browser (Debian's chromium, playwright-core), as
// people use them: a newcomer signs up, creates a task, uploads a picture into a customer's logo and
// sees its thumbnail, makes an API key, copies it and uses it with curl; a list filtered, sorted,
// searched and paged; a teammate's change appearing live; a record's custom operation, history and
// children; the media library; the team's members, invitations and plan; webhooks; scheduled actions
// for developers; a viewer finding the write
// controls disabled with the reason. No console error, no failed
// request, nothing leaving the origin; axe-core finds nothing serious at 1280 and 390 px.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { launchChromium, noGraveViolations, signedInContext, watch, type Watched } from '../testkit/browser.js';
import { pngFile } from '../testkit/media.js';
import { userWithRole } from '../testkit/scheduled-actions.js';
import { joinTeam } from '../testkit/teams.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

const pageTimeout = 60_000;

let t: TestApp;
let browser: Browser;
let owner: SignedUpUser;
let teammate: SignedUpUser;
let viewer: SignedUpUser;

/** Every page the tests opened, for the last test: what the console asked of the server. */
const everyPage: Watched[] = [];

/** A watched page signed in as `user` (their session cookie), or signed out. */
async function pageOf(user?: SignedUpUser, options: Parameters<Browser['newContext']>[0] = {}): Promise<Watched> {
  const context = user ? await signedInContext(browser, t.origin, user.cookie, options) : await browser.newContext(options);
  // The console asks for the session only where this browser signed in (api.ts): a signed-in context says so.
  if (user) await context.addInitScript(() => localStorage.setItem('console.signedIn', '1'));
  const watched = watch(await context.newPage(), t.origin, pageTimeout);
  everyPage.push(watched);
  return watched;
}


async function customer(user: SignedUpUser, name: string, account: number, office = 'Madrid'): Promise<string> {
  const res = await t.json('POST', '/api/v1/customers', { name, account, office }, { cookie: user.cookie });
  if (res.status !== 201) throw new Error(`customer: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

/** A form's input by its label exactly (a required field's label ends in an asterisk). */
const field = (page: Page, label: string) => page.getByLabel(new RegExp(`^${label}( \\*)?$`));

/** The texts of the list's first column, as shown. */
const firstColumn = (page: Page) => page.locator('tbody tr td:first-child').allInnerTexts();

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'ignore' });
  browser = await launchChromium();
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false', API_KEY_USAGE_FLUSH_MS: '200' });
  owner = await signUp(t, { firstName: 'Ada', lastName: 'Lovelace' });
  teammate = await signUp(t, { firstName: 'Charles', lastName: 'Babbage' });
  viewer = await signUp(t, { firstName: 'Mary', lastName: 'Somerville' });
  await joinTeam(t, owner, owner.activeTeamId, teammate, 'member');
  await joinTeam(t, owner, owner.activeTeamId, viewer, 'viewer');
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
}, 60_000);

describe('the data studio in a browser', () => {
  test('a newcomer signs up, creates a task, uploads a logo and sees its thumbnail, makes an API key, copies it and uses it with curl', async () => {
    const { page, errors, failed, foreign } = await pageOf(undefined, { permissions: ['clipboard-read', 'clipboard-write'] });
    await page.goto(`${t.origin}/console/sign-up`);
    const email = `newcomer-${Date.now()}@example.com`;
    await page.getByLabel('First name').fill('Alan');
    await page.getByLabel('Last name').fill('Turing');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.getByText(`Signed in as ${email}`).waitFor();

    // A task, through the menu the definitions made.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Tasks' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    await page.getByRole('link', { name: 'New task' }).click();
    await page.getByLabel('Title').fill('Write the first chapter');
    await page.getByLabel('Priority').selectOption('high');
    await page.getByRole('button', { name: 'Create the task' }).click();
    await page.getByRole('heading', { name: 'Write the first chapter' }).waitFor();
    await expect(page.getByLabel('Priority').inputValue()).resolves.toBe('high');

    // A customer with a logo: the picture uploaded from the form, its thumbnail rendered by the server.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('link', { name: 'New customer' }).click();
    await field(page, 'Name').fill('Analytical Engines Ltd');
    await page.getByLabel('Account').fill('1842');
    await page.getByLabel('Office').fill('London');
    await page.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from(await pngFile(400, 300)) });
    const thumbnail = page.locator('.thumbnails img').first();
    await thumbnail.waitFor();
    await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: pageTimeout }).toBe(320);
    await page.getByRole('button', { name: 'Create the customer' }).click();
    await page.getByRole('heading', { name: 'Analytical Engines Ltd' }).waitFor();
    await expect.poll(() => page.locator('.thumbnails img').first().evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: pageTimeout }).toBe(320);

    // An API key with tasks:read, shown once, copied, and used by curl.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('reporting');
    await page.getByLabel('tasks:read').check();
    await page.getByRole('button', { name: 'Create the key' }).click();
    const shown = (await page.getByTestId('new-key').innerText()).trim();
    expect(shown).toMatch(/^sk_/);
    // The clipboard answers a page that has the focus.
    await page.bringToFront();
    await page.getByRole('button', { name: 'Copy the key' }).click();
    await page.getByText('Copied.').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(shown);
    // curl in a process of its own (asynchronously: the server answers from this process).
    const curl = async (...args: string[]) => (await promisify(execFile)('curl', ['-s', '--max-time', '30', '-H', `Authorization: Bearer ${copied}`, ...args], { encoding: 'utf8' })).stdout;
    const answer = JSON.parse(await curl(`${t.origin}/api/v1/tasks`)) as { data: { title: string }[] };
    expect(answer.data.map((task) => task.title)).toEqual(['Write the first chapter']);
    // The key's scopes hold: it reads tasks, not customers.
    await expect(curl('-o', '/dev/null', '-w', '%{http_code}', `${t.origin}/api/v1/customers`)).resolves.toBe('403');
    await page.getByRole('button', { name: 'Done' }).click();
    const keys = page.getByRole('region', { name: 'Your keys' });
    await keys.getByText(/reporting .* tasks:read · active/).waitFor();
    // Its usage counts the request it served (the one its scopes refused is not counted), once the
    // server has written its counts (API_KEY_USAGE_FLUSH_MS).
    const usage = async () => {
      await page.reload();
      await keys.getByRole('button', { name: 'Usage' }).click();
      return keys.getByRole('status').innerText();
    };
    await expect.poll(usage, { timeout: pageTimeout }).toMatch(/^1 request in all, 1 in the last 24 hours, last /);
    // Revoked here, refused from the next request on.
    page.once('dialog', (dialog) => void dialog.accept());
    await keys.getByRole('button', { name: 'Revoke reporting' }).click();
    await keys.getByText(/· inactive/).waitFor();
    await expect(keys.getByRole('button', { name: 'Revoke reporting' }).isDisabled()).resolves.toBe(true);
    await expect(curl('-o', '/dev/null', '-w', '%{http_code}', `${t.origin}/api/v1/tasks`)).resolves.toBe('401');
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
    expect(foreign).toEqual([]);
  }, 240_000);

  test('a list: columns, sort, search, AND/OR filters and cursor pages', async () => {
    const prefix = `Sorted ${Date.now()}`;
    for (const status of ['review', 'done', 'review']) await t.json('POST', '/api/v1/tasks', { title: `Counted ${status}`, status }, { cookie: owner.cookie });
    for (let i = 0; i < 23; i++) await customer(owner, `${prefix} ${String(i).padStart(2, '0')}`, 10_000 + i, i % 3 === 0 ? 'Paris' : 'Rome');
    const { page, errors, failed, responses } = await pageOf(owner);
    await page.goto(`${t.origin}/console/data/customers`);
    await page.getByRole('heading', { name: 'Customers' }).waitFor();
    // The entity page's chart counts tasks by status (tasks' first filterable choice field).
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Tasks' }).click();
    await page.getByRole('figure').getByText('Tasks by status').waitFor();
    await expect(page.getByRole('figure').locator('li').allInnerTexts()).resolves.toEqual(['done\n1', 'review\n2']);
    await page.goBack();
    await page.getByRole('heading', { name: 'Customers' }).waitFor();
    await page.getByLabel('Search').fill(prefix);
    await page.getByRole('button', { name: /^Name/ }).click();
    await expect.poll(() => firstColumn(page), { timeout: pageTimeout }).toEqual(Array.from({ length: 20 }, (_, i) => `${prefix} ${String(i).padStart(2, '0')}`));
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => firstColumn(page), { timeout: pageTimeout }).toEqual([20, 21, 22].map((i) => `${prefix} ${i}`));
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(async () => (await firstColumn(page)).length, { timeout: pageTimeout }).toBe(20);
    await page.getByRole('button', { name: /^Name/ }).click();
    await expect.poll(async () => (await firstColumn(page))[0], { timeout: pageTimeout }).toBe(`${prefix} 22`);

    // Office is Paris OR account ≥ 10,020: the Paris ones (0, 3, …, 21) and 20, 22.
    await page.locator('summary', { hasText: 'Filter' }).click();
    await page.getByLabel('Match').selectOption('OR');
    await page.getByRole('button', { name: 'Add a condition' }).click();
    await page.getByRole('button', { name: 'Add a condition' }).click();
    const conditions = page.locator('.condition');
    await conditions.nth(0).getByLabel('Field').selectOption({ label: 'Office' });
    await conditions.nth(0).getByLabel('Value').fill('Paris');
    await conditions.nth(1).getByLabel('Field').selectOption({ label: 'Account' });
    await conditions.nth(1).getByLabel('Operator').selectOption('gte');
    await conditions.nth(1).getByLabel('Value').fill('10020');
    await page.getByRole('button', { name: 'Apply the filter' }).click();
    const expected = [0, 3, 6, 9, 12, 15, 18, 20, 21, 22].map((i) => `${prefix} ${String(i).padStart(2, '0')}`);
    await expect.poll(async () => (await firstColumn(page)).sort(), { timeout: pageTimeout }).toEqual(expected);

    // Columns: Phone off, Visit days on; kept for the next visit.
    await page.locator('summary', { hasText: 'Columns' }).click();
    await page.getByLabel('Phone').uncheck();
    await page.getByLabel('Visit days').check();
    const headings = async () => (await page.locator('thead th').allInnerTexts()).map((text) => text.replace(/ [▲▼]$/, ''));
    await expect(headings()).resolves.toEqual(['Name', 'Account', 'Office', 'Sales rep', 'Visit days']);
    await page.reload();
    await page.getByRole('heading', { name: 'Customers' }).waitFor();
    await expect.poll(headings, { timeout: pageTimeout }).toEqual(['Name', 'Account', 'Office', 'Sales rep', 'Visit days']);
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
    // All of it on the GraphQL API: the studio sent nothing to the entities' REST routes.
    const paths = responses.map((r) => new URL(r.url()).pathname);
    expect(paths).toContain('/graphql');
    expect(paths.filter((p) => /^\/api\/v1\/(customers|tasks)/.test(p))).toEqual([]);
  }, 240_000);

  test("a teammate's change appears live in an open list", async () => {
    const id = await customer(owner, `Live ${Date.now()}`, 20_001, 'Oslo');
    const watching = await pageOf(owner);
    await watching.page.goto(`${t.origin}/console/data/customers`);
    await watching.page.getByRole('link', { name: /^Live / }).first().waitFor();
    // The teammate renames it in their own browser.
    const editing = await pageOf(teammate);
    await editing.page.goto(`${t.origin}/console/data/customers/${id}`);
    await field(editing.page, 'Name').fill('Renamed by Charles');
    await editing.page.getByRole('button', { name: 'Save' }).click();
    await editing.page.getByText('Saved.').waitFor();
    // No reload on the watching page: the change stream brings it.
    await watching.page.getByRole('link', { name: 'Renamed by Charles' }).waitFor();
    for (const { errors, failed } of [watching, editing]) {
      expect(errors).toEqual([]);
      expect(failed).toEqual([]);
    }
  }, 240_000);

  test("a record: the server's refusal at the field, a custom operation, history with a diff and a restore, children", async () => {
    const customerId = await customer(owner, `Orders ${Date.now()}`, 30_001);
    const { page, errors, failed } = await pageOf(owner);
    await page.goto(`${t.origin}/console/data/orders/new`);
    await page.getByLabel('Amount').fill('-5');
    await page.getByLabel('Search Customers').fill('Orders');
    await field(page, 'Customer').selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Create the order' }).click();
    await expect.poll(() => page.getByLabel('Amount').getAttribute('aria-invalid'), { timeout: pageTimeout }).toBe('true');
    await page.getByLabel('Amount').fill('12.50');
    await page.getByRole('button', { name: 'Create the order' }).click();
    // The record's page, titled by its number (the orders' hooks number every order: ORD-0001).
    await page.getByRole('button', { name: 'Pay an order' }).waitFor();
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toMatch(/^ORD-\d+$/);
    await expect(field(page, 'Customer').inputValue()).resolves.toBe(customerId);

    await page.getByRole('button', { name: 'Pay an order' }).click();
    await page.getByText('Pay an order: done.').waitFor();
    await expect.poll(() => page.getByLabel('Status').inputValue(), { timeout: pageTimeout }).toBe('paid');
    const history = page.getByRole('region', { name: 'History' });
    await history.getByText('Version 2').waitFor();
    const change = history.locator('li').first().getByRole('row', { name: /Status/ });
    await expect(change.innerText()).resolves.toMatch(/draft\s+paid/);

    // The first version back: status draft again (an owner may change a paid order).
    await history.getByRole('button', { name: /^Restore version/ }).last().click();
    await expect.poll(() => page.getByLabel('Status').inputValue(), { timeout: pageTimeout }).toBe('draft');

    // A customer's notes, added and removed under it.
    await page.goto(`${t.origin}/console/data/customers/${customerId}`);
    const notes = page.getByRole('region', { name: 'Notes' });
    await notes.getByLabel('Body').fill('Prefers calls in the morning');
    await notes.getByRole('button', { name: 'Add a note' }).click();
    await notes.getByText('Prefers calls in the morning').waitFor();
    await notes.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => notes.locator('.children li').count(), { timeout: pageTimeout }).toBe(0);
    // The refused create was the one failure (the browser logs its 422), and it was said at the field.
    expect(errors.filter((e) => !/status of 422/.test(e))).toEqual([]);
    expect(failed).toEqual([expect.stringMatching(/^422 .*\/graphql$/)]);
  }, 240_000);

  test('a viewer finds every write control disabled, with the reason', async () => {
    const id = await customer(owner, `Viewed ${Date.now()}`, 40_001);
    const { page, errors, failed } = await pageOf(viewer);
    await page.goto(`${t.origin}/console/data/customers`);
    await page.getByRole('heading', { name: 'Customers' }).waitFor();
    await expect(page.getByRole('button', { name: 'New customer' }).isDisabled()).resolves.toBe(true);
    await page.getByText('Viewers can read but not change records').first().waitFor();
    await page.goto(`${t.origin}/console/data/customers/${id}`);
    await page.getByRole('heading', { name: /^Viewed / }).waitFor();
    await expect(page.getByRole('button', { name: 'Save' }).isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Delete' }).isDisabled()).resolves.toBe(true);
    await expect(field(page, 'Name').isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Add a note' }).isDisabled()).resolves.toBe(true);
    // Disabled at first for another reason ("Loading your team", after the page load), then for the viewer's.
    await expect.poll(() => page.getByRole('button', { name: 'Save' }).getAttribute('title'), { timeout: 15_000 }).toBe('Viewers can read but not change records');
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
  }, 240_000);

  test('the trash: a deleted post is listed there and restored with a click', async () => {
    const title = `Trashed ${Date.now()}`;
    const made = await t.json('POST', '/api/v1/posts', { title, slug: `trashed-${Date.now()}` }, { cookie: owner.cookie });
    expect(made.status).toBe(201);
    const id = made.body.data.id as string;
    expect((await t.json('DELETE', `/api/v1/posts/${id}`, undefined, { cookie: owner.cookie })).status).toBe(200);
    const { page, errors, failed } = await pageOf(owner);
    await page.goto(`${t.origin}/console/data/posts`);
    await page.getByRole('heading', { name: 'Posts' }).waitFor();
    await page.getByText('No posts match.').or(page.locator('tbody tr').first()).waitFor();
    await expect(page.getByRole('link', { name: title }).count()).resolves.toBe(0);
    await page.getByLabel('Trash').check();
    await page.getByRole('button', { name: `Restore ${title}` }).click();
    await expect.poll(() => page.getByRole('button', { name: `Restore ${title}` }).count(), { timeout: pageTimeout }).toBe(0);
    await page.getByLabel('Trash').uncheck();
    await page.getByRole('link', { name: title }).waitFor();
    // Live again for every client: READ answers it, without deletedAt.
    const read = await t.json('GET', `/api/v1/posts/${id}`, undefined, { cookie: owner.cookie });
    expect(read.status).toBe(200);
    expect(read.body.data.deletedAt ?? null).toBeNull();
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
  }, 240_000);

  test('the media library: files dropped are uploaded, shown as thumbnails, found, tagged and described; a file held already is named', async () => {
    const tag = await t.json('POST', '/api/v1/media-tags', { name: 'Brand' }, { cookie: owner.cookie });
    expect(tag.status).toBe(201);
    const { page, errors, failed, responses } = await pageOf(owner);
    await page.goto(`${t.origin}/console/media`);
    await page.getByRole('heading', { name: 'Media' }).waitFor();
    // Ready for a drop once the team (and so the caller's role) is known.
    await page.getByText('Drop files here to upload them').waitFor();
    const name = `drop-${Date.now()}.png`;
    const bytes = [...(await pngFile(640, 480, '#2050c0'))];
    const drop = async () => {
      const dataTransfer = await page.evaluateHandle(({ bytes, name }) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(bytes)], name, { type: 'image/png' }));
        return transfer;
      }, { bytes, name });
      await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer });
    };
    await drop();
    await page.getByText('Uploaded 1 file.').waitFor();
    const tile = page.getByRole('button', { name: `Details of ${name}` });
    await expect.poll(() => tile.locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: pageTimeout }).toBe(320);
    // The same content again: uploaded, and named as one the team held already.
    await drop();
    await page.getByText(`Already in the library: ${name}`).waitFor();

    await page.getByLabel('Search').fill(name.replace('.png', ''));
    await expect.poll(() => page.locator('.media-grid li').count(), { timeout: pageTimeout }).toBe(2);
    await tile.first().click();
    const details = page.getByRole('region', { name });
    await expect(details.innerText()).resolves.toMatch(/640 × 480/);
    await details.getByLabel('Alternative text').fill('A blue square');
    await details.getByLabel('Brand').check();
    await details.getByRole('button', { name: 'Save' }).click();
    await details.getByText('Saved.').waitFor();
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Tag').selectOption({ label: 'Brand' });
    await expect.poll(() => page.locator('.media-grid li').allInnerTexts(), { timeout: pageTimeout }).toEqual([name]);
    const listed = await t.json('GET', `/api/v1/media?search=${encodeURIComponent(name.replace('.png', ''))}`, undefined, { cookie: owner.cookie });
    expect(listed.body.data.data.map((m: { alt: string | null }) => m.alt).sort()).toEqual(['A blue square', null]);
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
    // All of it on the GraphQL API: nothing sent to the media REST routes but the thumbnails' bytes (the rendition route Media.renditions names).
    expect(responses.map((r) => new URL(r.url()).pathname).filter((p) => /^\/api\/v1\/media/.test(p) && !/^\/api\/v1\/media\/[^/]+\/render$/.test(p))).toEqual([]);

    // A viewer reads the library and may not add to it.
    const seen = await pageOf(viewer);
    await seen.page.goto(`${t.origin}/console/media`);
    await seen.page.getByText('Viewers can read but not change records').waitFor();
    await expect(seen.page.getByLabel('Choose files').isDisabled()).resolves.toBe(true);
    expect(seen.errors).toEqual([]);
  }, 240_000);

  test('the team: plan usage, an invitation sent, a role changed and a member removed by the owner; a viewer may do none of it', async () => {
    const newcomer = await signUp(t, { firstName: 'Emmy', lastName: 'Noether' });
    const { page, errors, failed } = await pageOf(owner);
    await page.goto(`${t.origin}/console/team`);
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await page.getByRole('region', { name: /^Plan/ }).getByText('team members').waitFor();
    await expect(page.getByRole('region', { name: 'Members' }).innerText()).resolves.toContain(teammate.email);
    await page.getByLabel('E-mail').fill(newcomer.email);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await page.getByText(`Invitation sent to ${newcomer.email}.`).waitFor();
    // It is pending in the team's list, with its role and expiry.
    const invitations = page.getByRole('region', { name: 'Pending invitations' });
    await expect.poll(() => invitations.innerText(), { timeout: pageTimeout }).toContain(newcomer.email);
    await expect(invitations.getByRole('listitem').filter({ hasText: newcomer.email }).innerText()).resolves.toMatch(/viewer · expires /);
    // A second invitation, to another new user, cancelled in the page: gone from the page and the API.
    const changedMind = await signUp(t, { firstName: 'Sophie', lastName: 'Germain' });
    await page.getByLabel('E-mail').fill(changedMind.email);
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await page.getByText(`Invitation sent to ${changedMind.email}.`).waitFor();
    const cancel = invitations.getByRole('button', { name: `Cancel the invitation to ${changedMind.email}` });
    await cancel.waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await cancel.click();
    await expect.poll(() => invitations.innerText(), { timeout: pageTimeout }).not.toContain(changedMind.email);
    await expect(invitations.innerText()).resolves.toContain(newcomer.email);
    const listed = await t.json('GET', `/api/v1/teams/${owner.activeTeamId}/invitations`, undefined, { cookie: owner.cookie });
    const pendingEmails = (listed.body.data as { email: string }[]).map((i) => i.email);
    expect(pendingEmails).toContain(newcomer.email);
    expect(pendingEmails).not.toContain(changedMind.email);
    expect((await t.json('GET', '/api/v1/team-invitations', undefined, { cookie: changedMind.cookie })).body.data).toEqual([]);
    // The newcomer accepts (as the invitation page does), and the owner sees them join.
    const pending = await t.json('GET', '/api/v1/team-invitations', undefined, { cookie: newcomer.cookie });
    const token = (pending.body.data as { token: string; teamId: string }[]).find((i) => i.teamId === owner.activeTeamId)!.token;
    expect((await t.json('POST', `/api/v1/team-invitations/${token}/accept`, undefined, { cookie: newcomer.cookie })).status).toBe(200);
    await page.reload();
    const role = page.getByLabel(`Role of ${newcomer.email}`);
    await expect(role.inputValue()).resolves.toBe('viewer');
    await expect.poll(() => invitations.innerText(), { timeout: pageTimeout }).toContain('No pending invitation.');
    await role.selectOption('member');
    const roleOf = async () => ((await t.json('GET', `/api/v1/teams/${owner.activeTeamId}/members?limit=100`, undefined, { cookie: owner.cookie })).body.data as { role: string; user: { email: string } }[]).find((m) => m.user.email === newcomer.email)?.role;
    await expect.poll(roleOf, { timeout: pageTimeout }).toBe('member');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: `Remove ${newcomer.email}` }).click();
    await expect.poll(roleOf, { timeout: pageTimeout }).toBeUndefined();
    await expect.poll(() => page.getByRole('region', { name: 'Members' }).innerText(), { timeout: pageTimeout }).not.toContain(newcomer.email);
    // The owner's own role is not theirs to change.
    await expect(page.getByLabel(`Role of ${owner.email}`).isDisabled()).resolves.toBe(true);
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);

    // Another team of the owner's, switched to in the header: its members are the owner alone.
    const other = await t.json('POST', '/api/v1/teams', { name: 'Side project', slug: `side-${Date.now()}` }, { cookie: owner.cookie });
    expect(other.status).toBe(201);
    await page.reload();
    await page.getByLabel('Team', { exact: true }).selectOption({ label: 'Side project (owner)' });
    await page.getByRole('heading', { name: 'Side project' }).waitFor();
    await expect.poll(() => page.getByRole('region', { name: 'Members' }).locator('li').count(), { timeout: pageTimeout }).toBe(1);
    await page.getByLabel('Team', { exact: true }).selectOption({ value: owner.activeTeamId });
    await expect.poll(() => page.getByRole('region', { name: 'Members' }).innerText(), { timeout: pageTimeout }).toContain(teammate.email);
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);

    const seen = await pageOf(viewer);
    await seen.page.goto(`${t.origin}/console/team`);
    await seen.page.getByText('Only owners and admins invite.').waitFor();
    await seen.page.getByText("Only owners and admins see and cancel the team's invitations.").waitFor();
    await expect(seen.page.getByRole('button', { name: 'Send the invitation' }).isDisabled()).resolves.toBe(true);
    await expect(seen.page.getByLabel(`Role of ${teammate.email}`).isDisabled()).resolves.toBe(true);
    await expect(seen.page.getByLabel(`Role of ${teammate.email}`).getAttribute('title')).resolves.toBe('Only owners and admins manage members');
    expect(seen.errors).toEqual([]);
    expect(seen.failed).toEqual([]);
  }, 240_000);

  test("webhooks: an endpoint made with its events, its secret shown once, turned off and deleted; a viewer is told it is the owners' and admins'", async () => {
    const { page, errors, failed } = await pageOf(owner);
    await page.goto(`${t.origin}/console/webhooks`);
    await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
    await page.getByLabel('URL').fill('https://hooks.example.com/platform');
    await page.getByLabel('Description').fill('Billing');
    await page.getByLabel('orders:*').check();
    await page.getByRole('button', { name: 'Create the endpoint' }).click();
    await expect.poll(async () => (await page.getByTestId('webhook-secret').innerText()).trim(), { timeout: pageTimeout }).toMatch(/^whsec_/);
    const endpoints = page.getByRole('region', { name: 'Endpoints' });
    await endpoints.getByText('https://hooks.example.com/platform').waitFor();
    await expect(endpoints.innerText()).resolves.toContain('orders:* · on · Billing');
    await endpoints.getByRole('button', { name: 'Turn off' }).click();
    await endpoints.getByRole('button', { name: 'Turn on' }).waitFor();
    const listed = await t.json('GET', '/api/v1/webhooks', undefined, { cookie: owner.cookie });
    expect(listed.body.data).toMatchObject([{ url: 'https://hooks.example.com/platform', eventTypes: ['orders:*'], active: false }]);
    await endpoints.getByRole('button', { name: 'Deliveries' }).click();
    await endpoints.getByText('No delivery yet.').waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await endpoints.getByRole('button', { name: 'Delete' }).click();
    await endpoints.getByText('No endpoint yet.').waitFor();
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);

    const seen = await pageOf(viewer);
    await seen.page.goto(`${t.origin}/console/webhooks`);
    await seen.page.getByText('Only owners and admins manage webhooks.').waitFor();
    await expect(seen.page.getByRole('button', { name: 'Create the endpoint' }).isDisabled()).resolves.toBe(true);
    expect(seen.errors).toEqual([]);
    expect(seen.failed).toEqual([]);
  }, 240_000);

  test('scheduled actions: a developer filters the queue and cancels a pending action; a member is told they are for developers', async () => {
    const developer = await userWithRole(t, 'developer');
    const scheduled = await t.json('POST', '/api/v1/devtools/scheduled-actions', { actionType: 'social:refresh-tokens', payload: {}, scheduledAt: '2030-01-02T00:00:00Z' }, { cookie: developer.cookie });
    expect(scheduled.status).toBe(201);
    const { page, errors, failed } = await pageOf(developer);
    await page.goto(`${t.origin}/console`);
    await page.getByRole('link', { name: 'Scheduled actions' }).click();
    await page.getByRole('heading', { name: 'Scheduled actions' }).waitFor();
    await page.getByLabel('Status').selectOption('pending');
    await page.getByLabel('Action type').selectOption('social:refresh-tokens');
    const item = page.locator('.endpoints li', { hasText: 'social:refresh-tokens · pending' }).first();
    await item.waitFor();
    await item.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(async () => (await t.json('GET', `/api/v1/devtools/scheduled-actions/${scheduled.body.data.id}`, undefined, { cookie: developer.cookie })).body.data.status, { timeout: pageTimeout }).toBe('failed');
    await page.getByLabel('Status').selectOption('failed');
    const cancelled = page.locator('.endpoints li', { hasText: 'social:refresh-tokens · failed' }).first();
    await cancelled.getByText('Cancelled').waitFor();
    // A failed action is retried: pending again, due now (the queue may have taken it up since).
    await cancelled.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(async () => (await t.json('GET', `/api/v1/devtools/scheduled-actions/${scheduled.body.data.id}`, undefined, { cookie: developer.cookie })).body.data.status, { timeout: pageTimeout }).not.toBe('failed');
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);

    const member = await pageOf(owner);
    await member.page.goto(`${t.origin}/console/scheduled-actions`);
    await member.page.getByText('Scheduled actions are for developers').waitFor();
    await expect(member.page.getByRole('link', { name: 'Scheduled actions' }).count()).resolves.toBe(0);
    expect(member.failed).toEqual([]);
  }, 240_000);

  test('every studio screen passes axe-core at 1280 and 390 px', async () => {
    const id = await customer(owner, `Axe ${Date.now()}`, 50_001);
    for (const width of [1280, 390]) {
      const { page } = await pageOf(owner, { viewport: { width, height: 900 } });
      const screens: [string, string, string][] = [
        ['home', '/console', 'Console'],
        ['list', '/console/data/customers', 'Customers'],
        ['record', `/console/data/customers/${id}`, 'Axe'],
        ['new record', '/console/data/orders/new', 'New order'],
        ['API keys', '/console/api-keys', 'API keys'],
        ['media', '/console/media', 'Media'],
        ['team', '/console/team', 'Members'],
        ['webhooks', '/console/webhooks', 'Endpoints'],
        ['scheduled actions', '/console/scheduled-actions', 'Scheduled actions'],
      ];
      for (const [name, path, heading] of screens) {
        await page.goto(`${t.origin}${path}`);
        await page.getByRole('heading', { name: heading }).first().waitFor();
        await page.waitForLoadState('networkidle').catch(() => undefined);
        await noGraveViolations(page, `${name} at ${width} px`);
      }
      await page.context().close();
    }
  }, 240_000);

  // Last: over every screen the tests above drove, the console's requests went to the GraphQL API
  // (the thumbnails aside: image bytes from the rendition route that Media.renditions names).
  test('the console asked everything of the GraphQL API', () => {
    const paths = everyPage.flatMap((w) => w.responses.map((r) => `${r.request().method()} ${new URL(r.url()).pathname}`));
    expect(paths).toContain('POST /graphql');
    expect(paths.filter((p) => / \/api\//.test(p) && !/^GET \/api\/v1\/media\/[^/]+\/render$/.test(p))).toEqual([]);
  });
});
