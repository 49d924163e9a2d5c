// Real processes for the tests of what only shows across them: the server (src/main.ts) and the CLIs,
// each with its own environment; their output collected, their exit awaited. They run the run's one
// build (scripts/build.mjs into a dist.* folder, made by global-setup.ts: what `npm start` runs), with
// V8 compiling WebAssembly (PGlite's, Prisma's query compiler) by its baseline compiler only: the same
// behaviour, and a process that lives seconds does not pay for optimizing it (a server's start: 2.5 s
// of CPU against 3.1 s, and 4.6–5.0 s run from source through tsx). Outside a vitest run with that
// setup, from source through tsx.
import { execFile, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's build (buildForRun), if global-setup.ts made one. */
    processBuild: string | null;
  }
}

const root = path.resolve(import.meta.dirname, '../..');

/** Builds the server and CLIs once for the run, into a dist.* folder of the repository root (where the build finds prisma/). */
export async function buildForRun(): Promise<{ dir: string; remove(): Promise<void> }> {
  const name = `dist.test-run-${process.pid}-${randomBytes(3).toString('hex')}`;
  await promisify(execFile)(process.execPath, ['scripts/build.mjs', '--out-dir', name], { cwd: root });
  const dir = path.join(root, name);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Node's arguments that run `entry` (`src/main.ts`, `src/cli/main.ts` …): from the run's build, or through tsx.
 * A test's process lives seconds: V8 optimizing its WebAssembly or its JavaScript would never pay (docs/development.md).
 */
export function entryArguments(entry: string): string[] {
  let build: string | null = null;
  try {
    build = inject('processBuild') ?? null;
  } catch {
    // Not in a vitest worker.
  }
  if (!build) return ['--import', 'tsx', entry];
  return ['--liftoff-only', '--no-opt', path.join(build, path.relative('src', entry).replace(/\.ts$/, '.js'))];
}

/** A port nobody listens on right now (a child cannot be told to listen on 0 and report it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with how the process ended, or null if it still runs after `ms`. */
  exit(ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | null>;
  /** SIGKILL if it still runs, and wait for it. */
  kill(): Promise<void>;
}

export interface SpawnOptions {
  /** Added to a minimal environment (PATH, HOME, NODE_ENV=test, LOG_LEVEL=silent, HOST=127.0.0.1). */
  env?: Record<string, string>;
  /** 'ignore' by default; 'pipe' to read (or close) the child's stdout. */
  stdout?: 'pipe' | 'ignore';
  uid?: number;
  gid?: number;
}

/** Runs an entry point (`src/main.ts`, `src/cli/main.ts` …) with `args` as its own process. */
export function spawnEntry(entry: string, args: string[] = [], options: SpawnOptions = {}): Spawned {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'test', LOG_LEVEL: 'silent', HOST: '127.0.0.1', ...options.env };
  const stdio: StdioOptions = ['ignore', options.stdout ?? 'ignore', 'pipe'];
  const child = spawn(process.execPath, [...entryArguments(entry), ...args], { env, stdio, uid: options.uid, gid: options.gid });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stdout?.on('error', () => {});
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const exit = (ms: number) => Promise.race([ended, new Promise<null>((resolve) => setTimeout(() => resolve(null), ms))]);
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exit,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await ended;
    },
  };
}

/** Waits until `origin`/healthz answers 200; throws with the child's stderr if it exits or `ms` pass first. */
export async function waitForHealthz(origin: string, server: Spawned, ms = 150_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) throw new Error(`the server exited: ${server.stderr()}`);
    if (Date.now() > deadline) throw new Error(`the server did not answer within ${ms} ms: ${server.stderr()}`);
    if ((await fetch(`${origin}/healthz`).then((r) => r.status, () => 0)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
