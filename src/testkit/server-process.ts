// The real server as its own process (src/main.ts, as processes.ts runs it) on a fresh database (a
// temporary DATA_DIR holding a copy of the run's migrated template, or a new PostgreSQL database under
// TEST_DATABASE_URL): for what only shows across processes (a crash of the process, how a separate
// client sees a connection closed under it).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, seedDataDir, testDatabaseUrl, type TestDatabase } from './database.js';
import { entryArguments, freePort } from './processes.js';

export interface ServerProcess {
  origin: string;
  /** The PostgreSQL database the server uses (testing on PostgreSQL), for a second process on it (the CLI). */
  databaseUrl: string | undefined;
  child: ChildProcess;
  /** What the process wrote to stderr so far. */
  stderr(): string;
  /** Kills the process and removes its database and files. */
  stop(): Promise<void>;
}

/**
 * Starts the server with `env` over the defaults (silent logs) and waits for /healthz. On PostgreSQL it
 * gets a new database, unless `env` names one (DATABASE_URL: it is neither created nor dropped here).
 */
export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'platform-process-'));
  let db: TestDatabase | undefined;
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, UPLOAD_DIR: path.join(dataDir, 'uploads'), ...env };
  delete childEnv.DATABASE_URL;
  if (env.DATABASE_URL) childEnv.DATABASE_URL = env.DATABASE_URL;
  else if (testDatabaseUrl) {
    db = await createTestDatabase();
    childEnv.DATABASE_URL = db.url!;
  } else if (!env.DATA_DIR) await seedDataDir(dataDir);
  const child = spawn(process.execPath, entryArguments('src/main.ts'), { env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
    await db?.drop();
  };
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 150_000;
  for (;;) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not start: ${stderr}`);
    }
    if ((await fetch(`${origin}/healthz`).then((r) => r.status, () => 0)) === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return { origin, databaseUrl: childEnv.DATABASE_URL, child, stderr: () => stderr, stop };
}
