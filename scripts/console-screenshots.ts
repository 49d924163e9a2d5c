// Screenshots of the console's main screens for docs/console.md (`npm run -s screenshots`): an app on
// a fresh embedded database, a team with a few records and a picture, and Debian's chromium at
// 1280 × 800, each screen written to docs/console/<name>.png.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { signUp } from '../src/testkit/accounts.js';
import { launchChromium, signedInContext } from '../src/testkit/browser.js';
import { pngFile, upload } from '../src/testkit/media.js';
import { createTestApp } from '../src/testkit/test-app.js';

execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
const out = new URL('../docs/console/', import.meta.url);
mkdirSync(out, { recursive: true });
const t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
const browser = await launchChromium();
try {
  const ada = await signUp(t, { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' });
  const as = { cookie: ada.cookie };
  const logo = await upload(t, [{ name: 'engine.png', type: 'image/png', content: await pngFile(800, 600, '#2050c0') }], as);
  const customer = await t.json('POST', '/api/v1/customers', { name: 'Analytical Engines Ltd', account: 1842, office: 'London', salesRep: 'Charles', logoId: logo.body.data.media[0].id }, as);
  const titles = ['Write the first chapter', 'Draw the difference engine', 'Translate Menabrea', 'Notes A to G', 'Bernoulli numbers'];
  const statuses = ['todo', 'in-progress', 'review', 'done', 'done'];
  for (const [i, title] of titles.entries()) await t.json('POST', '/api/v1/tasks', { title, status: statuses[i], priority: i % 2 ? 'high' : 'medium', dueDate: `2026-12-0${i + 1}` }, as);
  const order = await t.json('POST', '/api/v1/orders', { customerId: customer.body.data.id, amount: '1842.00' }, as);
  await t.json('POST', `/api/v1/orders/${order.body.data.id}/pay`, undefined, as);
  const invited = await t.json('POST', `/api/v1/teams/${ada.activeTeamId}/members`, { email: 'charles@example.com', role: 'member' }, as);
  if (invited.status !== 201) throw new Error(`invitation: ${invited.status} ${JSON.stringify(invited.body)}`);
  const context = await signedInContext(browser, t.origin, ada.cookie, { viewport: { width: 1280, height: 800 } });
  await context.addInitScript(() => localStorage.setItem('console.signedIn', '1'));
  const page = await context.newPage();
  const screens: [string, string, string][] = [
    ['home', '/console', 'Data'],
    ['list', '/console/data/tasks', 'Tasks'],
    ['record', `/console/data/orders/${order.body.data.id}`, 'History'],
    ['media', '/console/media', 'Media'],
    ['api-keys', '/console/api-keys', 'API keys'],
    ['team', '/console/team', 'Members'],
  ];
  for (const [name, path, heading] of screens) {
    await page.goto(`${t.origin}${path}`);
    await page.getByRole('heading', { name: heading }).first().waitFor();
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: new URL(`${name}.png`, out).pathname, fullPage: false });
    console.log(`✔ docs/console/${name}.png`);
  }
} finally {
  await browser.close();
  await t.close();
}
