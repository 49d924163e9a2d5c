// The docs as a reader meets them: the README's tour runs, word for word, against the real server in
// its own process (curl and jq, as a reader would), and so does docs/build-an-app.md; every link between the pages leads to a file of
// the repository (and to a heading that exists); and the generated parts (docs/configuration.md, the
// operation tables) are what the code makes today.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedDocs, repositoryRoot } from '../../scripts/docs-pages.js';
import { startServerProcess, type ServerProcess } from '../testkit/server-process.js';

const read = (file: string) => readFileSync(path.join(repositoryRoot, file), 'utf8');

/** The Markdown files a reader of a clone opens: README.md, client/README.md and docs/. */
function pages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(repositoryRoot, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
  return ['README.md', 'client/README.md', ...walk('docs')];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) => heading.trim().toLowerCase().replace(/[`*_]/g, '').replace(/[^\p{L}\p{N} -]/gu, '').replace(/ /g, '-');

function anchors(file: string): Set<string> {
  const text = read(file).replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

describe('the docs', () => {
  it('link only to files and headings of the repository', () => {
    const broken: string[] = [];
    for (const file of pages()) {
      const text = read(file).replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?|mailto):/.test(target!)) continue;
        const [where, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = where ? path.normalize(path.join(path.dirname(file), where)) : file;
        if (resolved.startsWith('..')) broken.push(`${file}: ${target} leaves the repository`);
        else if (!existsSync(path.join(repositoryRoot, resolved))) broken.push(`${file}: ${target} does not exist`);
        else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) broken.push(`${file}: ${target} names no heading of ${resolved}`);
      }
      if (/\.\.\/shared\b/.test(text)) broken.push(`${file}: mentions ../shared, which a clone does not have`);
    }
    expect(broken).toEqual([]);
  });

  it('have every generated part as the code makes it today (npm run generate writes them)', async () => {
    const stale = [...(await generatedDocs())].filter(([file, content]) => readFileSync(file, 'utf8') !== content).map(([file]) => path.relative(repositoryRoot, file));
    expect(stale).toEqual([]);
  }, 120_000);
});

describe('the README tour', () => {
  let server: ServerProcess;
  let dir: string;
  beforeAll(async () => {
    server = await startServerProcess({ RATE_LIMIT_ENABLED: 'false' });
    dir = await mkdtemp(path.join(tmpdir(), 'tour-'));
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs as written: signup, a key, a task, an upload, a GraphQL query, and a subscription that sees the change', async () => {
    await promisify(execFile)('jq', ['--version']).catch(() => {
      throw new Error('the README tour needs jq (apt-get install jq)');
    });
    const host = new URL(server.origin).host;
    const blocks = [...read('README.md').matchAll(/^```sh (tour|tour-listen)\n([\s\S]*?)^```$/gm)].map((m) => ({ kind: m[1]!, code: m[2]!.replaceAll('localhost:3000', host) }));
    expect(blocks.map((b) => b.kind)).toEqual(['tour', 'tour', 'tour', 'tour', 'tour', 'tour-listen', 'tour']);
    // The reader's second terminal: the listening block runs in the background; the change that
    // follows it waits until the subscription answered its first bytes, then for the event.
    const script = ['set -euo pipefail'];
    for (const block of blocks) {
      if (block.kind === 'tour') script.push(block.code);
      else {
        // The file exists before the loop reads it (the background subshell would make it only once scheduled).
        script.push(': > listen.out', `( ${block.code.trim()} ) >> listen.out 2>&1 &`, 'listener=$!', "for _ in $(seq 1 600); do grep -q '^:' listen.out && break; sleep 0.1; done", 'sleep 1');
      }
    }
    script.push("for _ in $(seq 1 600); do grep -q 'UPDATED' listen.out && break; sleep 0.1; done", 'kill $listener');
    await writeFile(path.join(dir, 'tour.sh'), script.join('\n'));
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('bash', ['tour.sh'], { cwd: dir });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('"email": "ada@example.com"');
    expect(stdout).toMatch(/^sk_test_[\w-]{40}$/m); // base64url: a key may hold - and _
    expect(stdout).toContain('"title": "Try the platform"');
    expect(stdout).toContain('"mimeType": "image/png"');
    expect(stdout).toMatch(/"total": 1\b/);
    expect(stdout.trim().split('\n').at(-1)).toBe('"done"');
    const heard = readFileSync(path.join(dir, 'listen.out'), 'utf8');
    expect(heard).toMatch(/"type":"UPDATED".*"title":"Try the platform","status":"DONE"/);
  }, 120_000);
});

describe('the Build an app page', () => {
  let server: ServerProcess;
  let dir: string;
  beforeAll(async () => {
    server = await startServerProcess({ RATE_LIMIT_ENABLED: 'false' });
    dir = await mkdtemp(path.join(tmpdir(), 'build-an-app-'));
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs as written: orders numbered by the hooks, a file attached, paid by the custom operation on both faces, amounts exact', async () => {
    const host = new URL(server.origin).host;
    const blocks = [...read('docs/build-an-app.md').matchAll(/^```sh app\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.replaceAll('localhost:3000', host));
    expect(blocks).toHaveLength(7);
    await writeFile(path.join(dir, 'app.sh'), ['set -euo pipefail', ...blocks].join('\n'));
    const { stdout, stderr } = await promisify(execFile)('bash', ['app.sh'], { cwd: dir });
    expect(stderr).toBe('');
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { number: 'ORD-0002', amount: '0.20', status: 'draft', lineCount: 0 },
      { number: 'ORD-0001', attachment: { filename: 'quote.pdf' } },
      { number: 'ORD-0001', status: 'paid', paid: true },
      { code: 'VALIDATION_FAILED', details: { amount: 'must have at most 2 digits after the decimal point' } },
      { status: 'draft', count: 1, sum: '0.20' },
      { status: 'paid', count: 1, sum: '0.10' },
      [{ count: 2, sum: { amount: '0.30' } }],
      { number: 'ORD-0002', status: 'PAID', amount: '0.20' },
    ]);
  }, 120_000);
});
