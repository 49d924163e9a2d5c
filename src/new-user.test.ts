// What a new user does, in a copy of the project (its files as git knows them, node_modules linked):
// `entity new invoices` writes a definition (a bad slug or an existing file is refused in one line); uncommenting its relation, decimal and media lines and running
// the one documented command (`npm run db:entities -- add_invoices`) regenerates everything and
// writes the migration; the whole project still type-checks (`npm run typecheck`), with the app's own client example typed
// by the new entity; the server starts (migrating itself) and the entity answers through REST,
// GraphQL and the typed client. Embedded PGlite: what a new user starts with.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from './testkit/accounts.js';
import { freePort, waitForHealthz, type Spawned } from './testkit/processes.js';
import { httpClient, type TestApp } from './testkit/test-app.js';

const repository = path.resolve(import.meta.dirname, '..');
let root: string;
let server: Spawned | undefined;

/** Runs `command` in the copy as a user would, failing with its output. */
function run(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'new-user-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: repository, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    cpSync(path.join(repository, file), path.join(root, file));
  }
  symlinkSync(path.join(repository, 'node_modules'), path.join(root, 'node_modules'));
});
afterAll(async () => {
  await server?.kill();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('a new user adds an entity', () => {
  it('scaffolds, generates and migrates with the documented commands, and uses it through REST, GraphQL and the typed client', async () => {
    const scaffold = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'entity', 'new', ...args], { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'silent' } });
    const made = scaffold('invoices');
    expect(made.status, made.stderr).toBe(0);
    expect(made.stdout).toContain('npm run db:entities -- add_invoices');
    // Refused in one line, nothing written: a slug that is not one, a file that exists.
    for (const [args, message] of [[['Invoices!'], '"Invoices!" is not a slug'], [['invoices'], 'src/config/entities/invoices.ts exists already'], [[], 'entity new takes one slug']] as const) {
      const refused = scaffold(...args);
      expect({ status: refused.status, stderr: refused.stderr.trim().split('\n')[0] }).toEqual({ status: 1, stderr: expect.stringContaining(message) });
    }
    const file = path.join(root, 'src/config/entities/invoices.ts');
    // The scaffold's commented relation, decimal and media field, uncommented.
    const definition = readFileSync(file, 'utf8').replace(/\/\/ (\{ name: '(amount|customer|attachment)'.*?\}),/g, '$1,');
    expect(definition).toMatch(/^\s+\{ name: 'amount', type: 'decimal'/m);
    expect(definition).toMatch(/^\s+\{ name: 'customer', type: 'relation'/m);
    expect(definition).toMatch(/^\s+\{ name: 'attachment', type: 'media' \}/m);
    writeFileSync(file, definition);
    // The app's own client code, typed by the entity it adds.
    writeFileSync(
      path.join(root, 'client/examples/invoices.ts'),
      `import { graphql } from '../src/generated/graphql/index.js';
import { createPlatformClient } from '../src/index.js';

const bigInvoices = graphql(\`
  query BigInvoices {
    invoices(where: { amount: { gte: "100" } }) {
      items {
        title
        amount
        customer {
          name
        }
        attachment {
          filename
        }
      }
    }
  }
\`);

export async function invoices(baseUrl: string, apiKey: string, customerId: string, attachmentId: string) {
  const client = createPlatformClient({ baseUrl, apiKey });
  const created = await client.rest.POST('/api/v1/invoices', { body: { title: 'March', customerId, amount: '120.50', attachmentId } });
  const amount: string | null = created.data!.data.amount;
  const big = await client.graphql(bigInvoices);
  const titles: string[] = big.data!.invoices.items.map((i) => i.title);
  const file: string | undefined = big.data!.invoices.items[0]?.attachment?.filename;
  return { amount, titles, customer: big.data!.invoices.items[0]?.customer?.name, file };
}
`,
    );

    run('npm', ['run', '-s', 'db:entities', '--', 'add_invoices']);
    expect(readFileSync(path.join(root, 'prisma/entities.prisma'), 'utf8')).toContain('amount Decimal? @db.Decimal(12, 2)');
    expect(readFileSync(path.join(root, 'prisma/entities.prisma'), 'utf8')).toContain('attachmentId String? @db.Uuid @map("attachment_id")');
    expect(readFileSync(path.join(root, 'client/src/generated/openapi.ts'), 'utf8')).toContain('"/api/v1/invoices"');
    // The project's own check (TypeScript 7's native compiler, the server and the console), as a user runs it.
    run('npm', ['run', '-s', 'typecheck']);

    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    // From source as `npm run dev` runs it, on an empty DATA_DIR; V8's flags as every process the tests start (processes.ts).
    const child = spawn(process.execPath, ['--liftoff-only', '--no-opt', '--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: path.join(root, '.data') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    server = { child, stdout: () => '', stderr: () => stderr, exit: async () => null, kill: async () => void (child.exitCode === null && child.kill('SIGKILL'), await ended) };
    await waitForHealthz(origin, server);

    const http = httpClient(origin) as TestApp;
    const user = await signUp(http);
    const as = { cookie: user.cookie };
    const customer = await http.json('POST', '/api/v1/customers', { name: 'Acme', account: 1, office: 'Madrid' }, as);
    expect(customer.status).toBe(201);
    const customerId = customer.body.data.id;

    const scan = await http.json('POST', '/api/v1/media', { url: 'https://files.example.com/scan.pdf', filename: 'scan.pdf', fileSize: 2048, mimeType: 'application/pdf' }, as);
    expect(scan.status, JSON.stringify(scan.body)).toBe(201);
    const attachmentId = scan.body.data.id;

    const rest = await http.json('POST', '/api/v1/invoices', { title: 'February', customerId, amount: '0.1', attachmentId }, as);
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect(rest.body.data).toMatchObject({ title: 'February', customerId, amount: '0.10', status: 'draft', attachmentId });
    expect((await http.json('POST', '/api/v1/invoices', { title: 'Bad', customerId, amount: '-1' }, as)).status).toBe(422);
    expect((await http.json('POST', '/api/v1/invoices', { title: 'Bad', customerId, attachmentId: customerId }, as)).body.details).toEqual({ attachmentId: 'must be the id of a media record of this team' });
    const expanded = await http.json('GET', `/api/v1/invoices/${rest.body.data.id}?expand=attachment&fields=attachment.url`, undefined, as);
    expect(expanded.body.data).toEqual({ attachment: { url: 'https://files.example.com/scan.pdf' } });
    const gql = await http.graphql('{ invoices { items { title amount customer { name } attachment { filename } } } }', {}, as);
    expect(gql.body).toEqual({ data: { invoices: { items: [{ title: 'February', amount: '0.10', customer: { name: 'Acme' }, attachment: { filename: 'scan.pdf' } }] } } });

    const key = await http.json('POST', '/api/v1/api-keys', { name: 'app', scopes: ['invoices:*', 'customers:read', 'media:read'] }, as);
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    const script = `import { invoices } from './client/examples/invoices.ts';\nconsole.log(JSON.stringify(await invoices(${[origin, key.body.data.key, customerId, attachmentId].map((v) => JSON.stringify(v)).join(', ')})));`;
    const typed = JSON.parse(run('node', ['--import', 'tsx', '--input-type=module', '-e', script]));
    expect(typed).toEqual({ amount: '120.50', titles: ['March'], customer: 'Acme', file: 'scan.pdf' });
  }, 900_000);
});
