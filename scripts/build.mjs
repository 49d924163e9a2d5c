// The production build: src/ transpiled file by file to dist/ with esbuild (types are checked by
// `npm run typecheck`, in CI), so it needs no dev package and takes about a second. Files are kept apart,
// not bundled: the entity definitions are loaded from their folder at run time, and paths the server
// reads (prisma/, the definitions' folder) resolve from dist/ as they do from src/. Relative `.ts`
// imports (the generated Prisma client's) become `.js`.
//
// `npm start` runs it first: a stamp of the sources in dist/ makes it a no-op (and read-only) when
// nothing changed. A build goes to a temporary folder that replaces dist/ only once it succeeded, so a
// failed build leaves the previous one in place. `--force` rebuilds regardless of the stamp.
//
// `--out-dir dist.NAME` builds to that folder of the repository root instead of dist/ (a test run's
// servers and CLIs run from one of its own, never touching the dist/ that `npm start` and the bench
// run). It must sit directly in the root, as dist/ does (prisma/ is found one level up); git and the
// linter ignore `dist.*` folders.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import lockfile from 'proper-lockfile';
import { buildConsole, consoleSources } from './console-build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = path.join(root, 'src');
const distDir = outDirOption();
const distName = path.basename(distDir);

/** dist/, or the `dist.*` folder `--out-dir` names, directly in the root (the build finds prisma/ one level up). */
function outDirOption() {
  const at = process.argv.indexOf('--out-dir');
  if (at === -1) return path.join(root, 'dist');
  const value = process.argv[at + 1];
  const dir = value ? path.resolve(root, value) : '';
  if (!value || path.dirname(dir) !== root || !/^dist\.[\w-][\w.-]*$/.test(path.basename(dir))) {
    console.error(`--out-dir must name a dist.* folder directly in ${root} (the build finds prisma/ one level up), not ${value ?? 'nothing'}`);
    process.exit(2);
  }
  return dir;
}

const stampFile = '.build-stamp';
/** Test-only code: never part of the server (its packages are dev dependencies). */
const excluded = (relative) => /\.test\.ts$/.test(relative) || /^(testkit|fuzz)\//.test(relative.split(path.sep).join('/'));

/** The console's sources (console-build.mjs), relative to the root. */
function consoleFiles() {
  return consoleSources
    .flatMap((entry) => {
      const full = path.join(root, entry);
      if (!existsSync(full)) return [];
      if (!entry.startsWith('console/src') && !entry.startsWith('client/src')) return [entry];
      return readdirSync(full, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)));
    })
    .sort();
}

function sources() {
  return readdirSync(srcDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.relative(srcDir, path.join(entry.parentPath, entry.name)))
    .filter((relative) => !excluded(relative))
    .sort();
}

/** Everything the output depends on: the sources, this script, the compiler options and esbuild's version. */
function stampOf(files) {
  const esbuildVersion = JSON.parse(readFileSync(path.join(root, 'node_modules', 'esbuild', 'package.json'), 'utf8')).version;
  const hash = createHash('sha256').update(`esbuild ${esbuildVersion}\n`);
  for (const extra of [fileURLToPath(import.meta.url), path.join(root, 'tsconfig.json'), path.join(root, 'package.json')]) {
    hash.update(readFileSync(extra));
  }
  for (const file of files) hash.update(`\0${file}\0`).update(readFileSync(path.join(srcDir, file)));
  for (const file of consoleFiles()) hash.update(`\0${file}\0`).update(readFileSync(path.join(root, file)));
  return hash.digest('hex');
}

function currentStamp() {
  try {
    return readFileSync(path.join(distDir, stampFile), 'utf8').trim();
  } catch {
    return null;
  }
}

/** Marks every import external; relative `.ts`/`.mts` specifiers are rewritten to the emitted `.js`/`.mjs`. */
const keepImports = {
  name: 'keep-imports',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const relative = args.path.startsWith('./') || args.path.startsWith('../');
      return { path: relative ? args.path.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs') : args.path, external: true };
    });
  },
};

/** Moves the finished build into place: dist/ is missing only between two renames, and restored if a build died there. */
async function replaceDist(built) {
  const previous = `${distDir}.previous`;
  await rm(previous, { recursive: true, force: true });
  if (existsSync(distDir)) await rename(distDir, previous);
  await rename(built, distDir);
  await rm(previous, { recursive: true, force: true });
}

async function build(files, stamp) {
  if (!existsSync(distDir) && existsSync(`${distDir}.previous`)) await rename(`${distDir}.previous`, distDir);
  const started = Date.now();
  const temporary = `${distDir}.building-${process.pid}`;
  await rm(temporary, { recursive: true, force: true });
  try {
    const esbuild = await import('esbuild');
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: files.map((file) => path.join('src', file)),
      outbase: 'src',
      outdir: temporary,
      bundle: true, // with every import external (keepImports): one output per source, specifiers rewritten
      plugins: [keepImports],
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: true,
      logLevel: 'silent',
      tsconfig: path.join(root, 'tsconfig.json'),
    });
    for (const warning of result.warnings) console.warn(`build warning: ${warning.text}`);
    // The console (console/, scripts/console-build.mjs) into dist/console, when the project has one.
    if (existsSync(path.join(root, 'console', 'src'))) await buildConsole(root, path.join(temporary, 'console'));
    await writeFile(path.join(temporary, stampFile), `${stamp}\n`);
    await replaceDist(temporary);
  } catch (error) {
    await rm(temporary, { recursive: true, force: true });
    throw error;
  }
  return { files: files.length, ms: Date.now() - started };
}

async function main() {
  const force = process.argv.includes('--force');
  const files = sources();
  const stamp = stampOf(files);
  if (!force && currentStamp() === stamp) return; // up to date: nothing is written (a read-only install starts)
  // Two builds at once (two `npm start`) take turns; the second then finds the stamp current.
  const lockDir = path.join(root, 'node_modules', '.cache');
  await mkdir(lockDir, { recursive: true });
  const lockName = distName === 'dist' ? 'platform-build.lock' : `platform-build-${distName}.lock`;
  const release = await lockfile.lock(root, { lockfilePath: path.join(lockDir, lockName), realpath: false, stale: 60_000, retries: { retries: 120, minTimeout: 500, maxTimeout: 1000 } });
  try {
    if (!force && currentStamp() === stamp) return;
    const outcome = await build(files, stamp);
    console.error(`build: ${outcome.files} files to ${distName}/ in ${outcome.ms} ms`);
  } finally {
    await release();
  }
}

main().catch((error) => {
  const errors = error?.errors?.length ? error.errors.map((e) => `${e.location ? `${e.location.file}:${e.location.line}: ` : ''}${e.text}`) : [error?.message ?? String(error)];
  console.error(`Build failed (the previous build in ${distName}/ is kept):\n${errors.slice(0, 20).join('\n')}`);
  process.exit(1);
});
