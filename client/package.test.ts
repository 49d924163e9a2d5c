// The client as a package an app installs: `npm pack` (which builds dist/ first) makes a tarball that
// `npm install <tarball>` takes into a new project, where plain Node imports it, esbuild bundles it,
// and tsc checks an app's code against its types, each against a real server over HTTP.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../src/testkit/accounts.js';
import { createKey } from '../src/testkit/api-keys.js';
import { createTestApp, type TestApp } from '../src/testkit/test-app.js';

const run = promisify(execFile);
const clientDir = path.dirname(fileURLToPath(import.meta.url));
// An app's TypeScript: 5.9 (the `typescript` package, kept for tools' JavaScript API), older than the 7 the package is built with.
const tsc = path.join(clientDir, '..', 'node_modules', 'typescript', 'bin', 'tsc');

let t: TestApp;
let key: string;
let app: string;

/** The README's GraphQL document, exactly as the package's `graphql()` knows it. */
async function knownDocument(): Promise<string> {
  const source = await readFile(path.join(clientDir, 'examples', 'quickstart.ts'), 'utf8');
  return /graphql\((`[^`]+`)\)/.exec(source)![1]!;
}

/** An app's code using the package: a task created, the page listed (items used as tasks), a typed GraphQL query. */
const appCode = (document: string) => `
import { createPlatformClient } from '@platform/client';
import { graphql } from '@platform/client/graphql';

const client = createPlatformClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
const created = await client.rest.POST('/api/v1/tasks', { body: { title: 'From the package', priority: 'high' } });
const page = await client.list('/api/v1/tasks', { priority: 'high', limit: 5 });
const open = await client.graphql(graphql(${document}), { limit: 5 });
const titles = (page.data?.items ?? []).map((task) => task.title.toUpperCase());
console.log(JSON.stringify({ status: created.response.status, titles, open: open.data?.tasks.items.map((task) => task.title) }));
`;

beforeAll(async () => {
  app = await mkdtemp(path.join(tmpdir(), 'client-package-'));
  await run('npm', ['pack', '--silent', '--pack-destination', app], { cwd: clientDir });
  const [tarball] = (await readdir(app)).filter((name) => name.endsWith('.tgz'));
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'an-app', private: true, type: 'module' }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', `./${tarball}`], { cwd: app });
  const code = appCode(await knownDocument());
  await writeFile(path.join(app, 'app.mjs'), code);
  await writeFile(path.join(app, 'app.ts'), `declare const process: { env: Record<string, string> };\n${code}`);
  t = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
  key = (await createKey(t, await signUp(t), { name: 'package', scopes: ['tasks:*'] })).key;
}, 240_000);

afterAll(async () => {
  await t?.close();
  if (app) await rm(app, { recursive: true, force: true });
});

async function runApp(file: string): Promise<{ status: number; titles: string[]; open: string[] }> {
  const { stdout } = await run(process.execPath, [file], { cwd: app, env: { ...process.env, BASE_URL: t.origin, API_KEY: key } });
  return JSON.parse(stdout) as { status: number; titles: string[]; open: string[] };
}

describe('the client as an installed package', () => {
  it('holds built ESM and types, no TypeScript source', async () => {
    const installed = path.join(app, 'node_modules', '@platform', 'client');
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; import: string }> };
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
    const files = await readdir(path.join(installed, 'dist'), { recursive: true });
    expect(files).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', path.join('generated', 'graphql', 'index.js')]));
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('runs on plain Node from node_modules', async () => {
    const answer = await runApp('app.mjs');
    expect(answer.status).toBe(201);
    expect(answer.titles).toContain('FROM THE PACKAGE');
  });

  it('is bundled by esbuild, and the bundle runs', async () => {
    await build({ absWorkingDir: app, entryPoints: ['app.mjs'], bundle: true, platform: 'node', format: 'esm', outfile: 'bundle.mjs', logLevel: 'silent' });
    const answer = await runApp('bundle.mjs');
    expect(answer.status).toBe(201);
    expect(answer.titles.filter((title) => title === 'FROM THE PACKAGE').length).toBe(2);
  });

  it("types an app's code: list items are records, and a wrong field is refused by tsc", async () => {
    const config = { compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], strict: true, noEmit: true, types: [] }, files: ['app.ts'] };
    await writeFile(path.join(app, 'tsconfig.json'), JSON.stringify(config));
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app });
    await writeFile(path.join(app, 'app.ts'), `${await readFile(path.join(app, 'app.ts'), 'utf8')}\nexport const wrong = (await client.list('/api/v1/tasks')).data?.items[0]?.tittle;\n`);
    const refused = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(refused).toContain("Property 'tittle' does not exist");
  });
});
