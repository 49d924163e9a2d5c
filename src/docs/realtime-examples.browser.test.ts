// The realtime page's examples (docs/api/realtime.md), run as written against a real server: the
// browser's EventSource in Chromium on the server's own origin with the session cookie, the curl
// command with an API key, and the graphql-ws client in a Node process of its own. Only the page's
// placeholders are filled in: the server's address for api.example.com, the key, and what the page
// leaves to the reader (`render`, and a WebSocket for Node, which has none before Node 22).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { repositoryRoot } from '../../scripts/docs-pages.js';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { bearer, createKey } from '../testkit/api-keys.js';
import { launchChromium, signedInContext } from '../testkit/browser.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

const page = readFileSync(path.join(repositoryRoot, 'docs/api/realtime.md'), 'utf8');
const blocks = [...page.matchAll(/^```(js|sh)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));
const [eventSourceExample, curlExample, graphqlWsExample] = blocks;

let t: TestApp;
let browser: Browser;
let user: SignedUpUser;
let key: string;

beforeAll(async () => {
  browser = await launchChromium();
  t = await createTestApp();
  user = await signUp(t);
  key = (await createKey(t, user, { scopes: ['tasks:*', 'customers:*'] })).key;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
}, 60_000);

/** Writes records until `heard()` is true: a subscription opens a moment after its request. */
async function writeUntilHeard(write: (n: number) => Promise<unknown>, heard: () => boolean | Promise<boolean>): Promise<void> {
  for (let n = 0; n < 60 && !(await heard()); n++) {
    await write(n);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  expect(await heard()).toBe(true);
}

const createTask = (title: string) => t.json('POST', '/api/v1/tasks', { title, status: 'todo' }, bearer(key));

it('the page has its three examples: EventSource, curl, graphql-ws', () => {
  expect(blocks.map((b) => b.lang)).toEqual(['js', 'sh', 'js']);
  expect(eventSourceExample!.code).toContain('new EventSource(');
  expect(graphqlWsExample!.code).toContain("from 'graphql-ws'");
});

it('the browser example receives a task created meanwhile, with the session cookie', async () => {
  const context = await signedInContext(browser, t.origin, user.cookie, { bypassCSP: true });
  const tab = await context.newPage();
  await tab.goto(`${t.origin}/`);
  await tab.evaluate(`window.changes = []; const render = (change) => window.changes.push(change);\n${eventSourceExample!.code}`);
  await writeUntilHeard(
    (n) => createTask(`Seen in the browser ${n}`),
    async () => (await tab.evaluate('window.changes.map((c) => c.type + " " + (c.record && c.record.title))') as string[]).some((c) => c.startsWith('CREATED Seen in the browser')),
  );
  await context.close();
}, 120_000);

it('the curl example prints a customer created meanwhile as an event', async () => {
  const command = curlExample!.code.split('\n')[0]!.replace('https://api.example.com', t.origin);
  const child = spawn('bash', ['-c', command], { env: { ...process.env, KEY: key } });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  try {
    await writeUntilHeard(
      (n) => t.json('POST', '/api/v1/customers', { name: `Madrid customer ${n}`, account: 1000 + n, office: 'Madrid' }, bearer(key)),
      () => /"type":"CREATED".*"office":"Madrid"/.test(out),
    );
    expect(out).toMatch(/^id: \S+$/m);
  } finally {
    child.kill();
  }
}, 120_000);

it('the graphql-ws example, run by Node, prints a task created meanwhile', async () => {
  const url = new URL(t.origin);
  const code = graphqlWsExample!.code.replace('wss://api.example.com', `ws://${url.host}`);
  const script = `import WebSocket from 'ws';\nglobalThis.WebSocket = WebSocket;\nconst KEY = process.env.KEY;\n${code}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: repositoryRoot, env: { ...process.env, KEY: key } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  try {
    await writeUntilHeard((n) => createTask(`Seen over WebSocket ${n}`), () => /type: 'CREATED'[\s\S]*Seen over WebSocket/.test(out)).catch((error: unknown) => {
      throw new Error(`${String(error)}; the example printed: ${out} ${err}`);
    });
    expect(err).toBe('');
  } finally {
    child.kill();
  }
}, 120_000);
