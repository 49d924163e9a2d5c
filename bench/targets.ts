// Server processes under test. Each runs as its own child process (never in the bench's process, so
// the load generator and the server are measured separately) and is killed with its whole process
// group, also when the bench fails or is interrupted.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** One process to start: the product on PostgreSQL or PGlite, or the raw baseline. */
export interface ServerSpec {
  name: string;
  /** Entry point, relative to `root`. */
  entry: string;
  /** The checkout it runs from (its working directory): this repository unless given. */
  root?: string;
  /** Added to the bench's environment; `undefined` removes a variable (e.g. DATABASE_URL for PGlite). */
  env: Record<string, string | undefined>;
}

export interface RunningServer {
  name: string;
  baseUrl: string;
  /** The server's process (`node --import tsx` runs it in one), for reading its memory in /proc. */
  pid: number;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Last resort on any exit of the bench: no server may outlive it. */
export function killAllServers(): void {
  for (const child of live) killGroup(child, 'SIGKILL');
  live.clear();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls GET /healthz until it answers 200; fails early if the process dies. */
async function waitForHealth(child: ChildProcess, baseUrl: string, output: () => string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`server exited (${child.exitCode ?? child.signalCode}) before becoming healthy:\n${output()}`);
    }
    try {
      const response = await fetch(`${baseUrl}/healthz`);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`server not healthy after ${timeoutMs} ms:\n${output()}`);
}

/** Starts a server on a free port with logging off and NODE_ENV=production, and waits for /healthz. */
export async function startServer(spec: ServerSpec): Promise<RunningServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // Compiled entries (the product's dist/main.js, as `npm start` runs it) run on node alone; others
  // with `node --import tsx` rather than `npx tsx`: one process instead of three, none of them idling
  // on the two cores the server has.
  // The bench's accounts sign up and go straight to work: no e-mail verification (on by default in production).
  const merged = { ...process.env, REQUIRE_EMAIL_VERIFICATION: 'false', ...spec.env, NODE_ENV: 'production', LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: String(port) };
  const env = Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined));
  // BENCH_SERVER_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) goes to every server's node, for profiling.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, ...(spec.entry.endsWith('.js') ? [spec.entry] : ['--import', 'tsx', spec.entry])], {
    cwd: spec.root ?? repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that stop() reaches anything the server itself spawns.
    detached: true,
  });
  live.add(child);
  // Keep only the tail of what the server prints, for error messages.
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // The raw baseline logs nothing but its failures (the product runs with logging off): shown as they come.
  if (!spec.entry.endsWith('.js')) child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${spec.name}] ${chunk.toString()}`));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    killGroup(child, 'SIGTERM');
    const graceful = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!graceful) {
      killGroup(child, 'SIGKILL');
      await exited;
    }
    live.delete(child);
  };

  try {
    await waitForHealth(child, baseUrl, () => tail);
  } catch (error) {
    await stop();
    throw new Error(`${spec.name}: ${(error as Error).message}`);
  }
  return { name: spec.name, baseUrl, pid: child.pid!, stop };
}
