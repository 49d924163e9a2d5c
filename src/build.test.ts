// The production build (scripts/build.mjs) on a small project of its own: per-file output with relative
// `.ts` imports rewritten, test code left out, nothing rebuilt while the sources are unchanged, a
// failed build that leaves the previous dist/ in place, and a build to another folder (--out-dir).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const project = mkdtempSync(path.join(tmpdir(), 'build-test-'));
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
  writeFileSync(path.join(project, file), text);
};
const build = () => spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: project, encoding: 'utf8' });
const runDist = () => spawnSync(process.execPath, ['dist/main.js'], { cwd: project, encoding: 'utf8' });

beforeAll(() => {
  mkdirSync(path.join(project, 'scripts'));
  copyFileSync('scripts/build.mjs', path.join(project, 'scripts/build.mjs'));
  // The console's build is a part of the build script (this project has no console/: nothing to build).
  copyFileSync('scripts/console-build.mjs', path.join(project, 'scripts/console-build.mjs'));
  copyFileSync('tsconfig.json', path.join(project, 'tsconfig.json'));
  symlinkSync(path.resolve('node_modules'), path.join(project, 'node_modules'));
  write('package.json', JSON.stringify({ type: 'module' }));
  write('src/main.ts', "import { greeting } from './generated/greeting.ts';\nimport { name } from './name.js';\nconst answer: string = `${greeting}, ${name}`;\nconsole.log(answer);\n");
  write('src/generated/greeting.ts', "export const greeting: string = 'hello';\n");
  write('src/name.ts', "export const name = 'world';\n");
  write('src/main.test.ts', "import 'vitest';\n");
  write('src/testkit/helper.ts', "import 'fast-check';\n");
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('npm run build (scripts/build.mjs)', () => {
  it('transpiles each source to dist/, rewriting relative .ts imports, without test code', () => {
    const first = build();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/^build: 3 files to dist\/ in \d+ ms/);
    expect(readFileSync(path.join(project, 'dist/main.js'), 'utf8')).toContain('./generated/greeting.js');
    expect(existsSync(path.join(project, 'dist/main.test.js'))).toBe(false);
    expect(existsSync(path.join(project, 'dist/testkit'))).toBe(false);
    expect(runDist().stdout).toBe('hello, world\n');
  }, 60_000);

  it('does nothing, and writes nothing, while the sources are unchanged', () => {
    const before = statSync(path.join(project, 'dist/main.js')).mtimeMs;
    const again = build();
    expect(again.status).toBe(0);
    expect(again.stderr).toBe('');
    expect(statSync(path.join(project, 'dist/main.js')).mtimeMs).toBe(before);
  }, 60_000);

  it('a failed build says why, exits 1 and keeps the previous build; the next good one replaces it', () => {
    write('src/name.ts', "export const name = ;\n");
    const failed = build();
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('Build failed (the previous build in dist/ is kept)');
    expect(failed.stderr).toContain('src/name.ts:1');
    expect(runDist().stdout).toBe('hello, world\n');
    write('src/name.ts', "export const name = 'again';\n");
    expect(build().status).toBe(0);
    expect(runDist().stdout).toBe('hello, again\n');
  }, 60_000);

  it('--out-dir builds to another dist.* folder of the root, leaving dist/ alone, and refuses any other folder', () => {
    const before = statSync(path.join(project, 'dist/main.js')).mtimeMs;
    const other = spawnSync(process.execPath, ['scripts/build.mjs', '--out-dir', 'dist.other'], { cwd: project, encoding: 'utf8' });
    expect(other.status, other.stderr).toBe(0);
    expect(other.stderr).toMatch(/^build: 3 files to dist\.other\/ in \d+ ms/);
    expect(spawnSync(process.execPath, ['dist.other/main.js'], { cwd: project, encoding: 'utf8' }).stdout).toBe('hello, again\n');
    expect(statSync(path.join(project, 'dist/main.js')).mtimeMs).toBe(before);
    for (const folder of ['src', 'out/dist.x', '../dist.x']) {
      const refused = spawnSync(process.execPath, ['scripts/build.mjs', '--out-dir', folder], { cwd: project, encoding: 'utf8' });
      expect(refused.status, folder).toBe(2);
      expect(refused.stderr).toContain('--out-dir must name a dist.* folder directly in');
    }
    expect(readFileSync(path.join(project, 'src/main.ts'), 'utf8')).toContain('greeting');
  }, 60_000);
});
