// One process per PGlite data directory. PGlite is single-process: a second process opening the same
// files (the CLI while the server runs) writes over the first one's pages and loses data. Whoever opens
// DATA_DIR takes `pglite.lock` (proper-lockfile: an atomic mkdir whose mtime the holder refreshes) and
// writes who it is beside it (`pglite.lock.owner.json`: inside, it would change the mtime the holder
// checks); everyone else stops before writing anything. Whatever removes the lock (release, stale
// removal, exit) removes the owner file first (proper-lockfile is given that rmdir), so an owner file
// never outlives its lock and cannot be mistaken for the next holder's.
//
// A holder killed with -9 leaves its lock behind. It is taken over at once when the owner file shows a
// dead holder on this machine (its pid gone, an earlier boot, or our own pid: in a container the server
// is pid 1 on every start); otherwise, as on another machine sharing the directory, once its mtime is
// older than the stale threshold.
import { randomUUID } from 'node:crypto';
import fs, { readFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { makeDirectory } from './make-directory.js';

/** Who opens the directory; named in the refusal another process prints. */
export type DataDirHolder = 'server' | 'cli' | 'migrations';

/** What `pglite.owner.json` records about the holder of the lock. */
export interface DataDirOwner {
  holder: DataDirHolder;
  pid: number;
  hostname: string;
  bootId: string | null;
  /** The process's start time in clock ticks since boot (Linux), telling a reused pid from the holder. */
  started: string | null;
  token: string;
  since: string;
}

/** Another live process holds the data directory; nothing was written. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: DataDirOwner | null,
  ) {
    super(`${owner ? `the ${describe(owner.holder)} (pid ${owner.pid})` : 'another process'} is using the data directory ${dataDir}`);
    this.name = 'DataDirLockedError';
  }
}

/** DATA_DIR cannot be created or written (a read-only disk, a file in the way, no permission). */
export class DataDirUnusableError extends Error {
  constructor(dataDir: string, cause: NodeJS.ErrnoException) {
    super(`DATA_DIR ${dataDir} cannot be created or written: ${cause.code ?? ''} ${reason(cause)}`.replace(/\s+/g, ' ').trim());
    this.name = 'DataDirUnusableError';
  }
}

/** PGlite's file system (Emscripten) throws plain objects with its own errno numbers, not Errors. */
const emscriptenErrno: Record<number, [string, string]> = {
  2: ['EACCES', 'permission denied'],
  44: ['ENOENT', 'no such file or directory'],
  51: ['ENOSPC', 'no space left on device'],
  54: ['ENOTDIR', 'not a directory'],
  63: ['EPERM', 'operation not permitted'],
  69: ['EROFS', 'read-only file system'],
};

/** An error of PGlite opening its files under `dataDir` as one an operator can read. */
export function pgliteOpenError(dataDir: string, error: unknown): Error {
  if (error instanceof Error) return error;
  const errno = (error as { errno?: unknown } | null)?.errno;
  const [code, text] = (typeof errno === 'number' && emscriptenErrno[errno]) || [`errno ${String(errno)}`, 'the embedded database could not open its files'];
  return new DataDirUnusableError(dataDir, Object.assign(new Error(`${code}: ${text}`), { code }));
}

function describe(holder: DataDirHolder): string {
  return holder === 'server' ? 'server' : holder === 'cli' ? 'CLI' : 'migration command';
}

function reason(error: NodeJS.ErrnoException): string {
  return error.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
}

/** A refresh every 5 s; a lock left by a holder we cannot check is taken over after 30 s without one. */
const staleMs = 30_000;
const ownTokens = new Set<string>();
const bootId = readProc('/proc/sys/kernel/random/boot_id');

function readProc(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function processStart(pid: number): string | null {
  const stat = readProc(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
}

/**
 * Creates `dataDir` if needed and takes its lock for `holder`; throws DataDirLockedError when another live
 * process holds it, DataDirUnusableError when the directory cannot be created or written. Resolves to the release.
 */
export async function lockDataDir(dataDir: string, holder: DataDirHolder): Promise<() => Promise<void>> {
  try {
    await makeDirectory(dataDir);
  } catch (error) {
    throw new DataDirUnusableError(dataDir, error as NodeJS.ErrnoException);
  }
  const lockPath = path.join(dataDir, 'pglite.lock');
  const ownerPath = ownerFileOf(lockPath);
  const options = {
    lockfilePath: lockPath,
    realpath: false,
    fs: withOwnerRemoval,
    stale: staleMs,
    update: 5_000,
    // Only another process taking over a lock whose refresh stalled for 30 s gets here: say so, keep running.
    onCompromised: (error: Error) => console.error(`Warning: the lock on ${dataDir} was lost (${error.message}); another process may be using it`),
  };
  const acquire = async (): Promise<() => Promise<void>> => {
    try {
      return await lockfile.lock(dataDir, options);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ELOCKED') throw new DataDirUnusableError(dataDir, error as NodeJS.ErrnoException);
      const owner = await readOwner(ownerPath);
      if (!owner || !isDeadHolder(owner)) throw new DataDirLockedError(dataDir, owner);
      // Claim the dead holder's lock by moving its owner file out: of two processes starting at once,
      // only one rename succeeds; the other retries and finds the winner's lock.
      const claimed = path.join(dataDir, `pglite.lock.claimed-${process.pid}-${randomUUID()}`);
      const won = await rename(ownerPath, claimed).then(() => true, () => false);
      if (won) {
        await rm(claimed, { force: true });
        await rm(lockPath, { recursive: true, force: true });
      }
      return lockfile.lock(dataDir, options).catch((again: NodeJS.ErrnoException) => {
        if (again.code === 'ELOCKED') throw new DataDirLockedError(dataDir, null);
        throw new DataDirUnusableError(dataDir, again);
      });
    }
  };
  const release = await acquire();
  const owner: DataDirOwner = { holder, pid: process.pid, hostname: os.hostname(), bootId, started: processStart(process.pid), token: randomUUID(), since: new Date().toISOString() };
  ownTokens.add(owner.token); // before the file shows it: our own pid there must never read as a past life
  try {
    await writeFile(`${ownerPath}.tmp`, JSON.stringify(owner));
    await rename(`${ownerPath}.tmp`, ownerPath);
  } catch (error) {
    ownTokens.delete(owner.token);
    await release().catch(() => {});
    throw new DataDirUnusableError(dataDir, error as NodeJS.ErrnoException);
  }
  return async () => {
    ownTokens.delete(owner.token);
    await release().catch(() => {});
  };
}

const ownerFileOf = (lockPath: string) => `${lockPath}.owner.json`;

/** node:fs for proper-lockfile, whose rmdir (release, stale removal, exit) removes the owner file first. */
const withOwnerRemoval = {
  ...fs,
  rmdir: (dir: string, callback: (error: NodeJS.ErrnoException | null) => void) => fs.rm(ownerFileOf(dir), { force: true }, () => fs.rmdir(dir, callback)),
  rmdirSync: (dir: string) => {
    fs.rmSync(ownerFileOf(dir), { force: true });
    fs.rmdirSync(dir);
  },
};

async function readOwner(ownerPath: string): Promise<DataDirOwner | null> {
  try {
    return JSON.parse(await readFile(ownerPath, 'utf8')) as DataDirOwner;
  } catch {
    return null; // being written or removed this instant, or from a crash between lock and write: not provably dead
  }
}

/** True when the owner provably no longer runs: on this machine, and from an earlier boot, an earlier life of our pid, or a pid now gone or reused. */
function isDeadHolder(owner: DataDirOwner): boolean {
  if (owner.hostname !== os.hostname()) return false;
  if (ownTokens.has(owner.token)) return false;
  if (owner.bootId && bootId && owner.bootId !== bootId) return true;
  if (owner.pid === process.pid) return true;
  try {
    process.kill(owner.pid, 0);
    const started = processStart(owner.pid);
    return Boolean(owner.started && started && owner.started !== started);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
