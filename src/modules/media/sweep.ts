// Files a crash left behind. An upload moves its spool file into storage, then records it (upload.ts):
// a process killed between the two leaves a stored file no record refers to, and one killed while
// receiving leaves its spool file. The *orphan sweep* removes stored files that no media record (of
// any status: a deleted record keeps its file) and no rendition refers to, once they are older than
// the grace period (MEDIA_ORPHAN_GRACE_MINUTES, default an hour: far beyond an upload's commit, so a
// file on its way to its record is never taken), on every driver that can list what it stores (local,
// s3; hosted-blob: its local fallback files only, the blob protocol has no listing), plus the partial
// files of rendition writes and spool files idle that long. It is named system work
// ('media: orphan sweep'), runs once at start-up and then every MEDIA_ORPHAN_SWEEP_MINUTES in each
// process (several instances sweeping at once only remove the same files twice). At start-up the spool
// directory is cleaned first, more eagerly: spool files idle for a minute (a file being received is
// written continuously, a received one is moved into storage at once; see docs/api/media.md, "Storage").
// Why not a scheduled action type: the queue runs only where a scheduler calls the cron route or
// CRON_INTERVAL_SECONDS is set, and this must run in every deployment.
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { OrphanSweepConfig } from '../../config/media.js';
import type { SystemDb } from '../../db/request-db.js';
import { referencedStorageKeys } from './repository.js';
import type { MediaStorage } from './storage.js';

export interface SweepDeps {
  storage: MediaStorage;
  /** Named system access: 'media: orphan sweep'. */
  system: SystemDb;
  /** UPLOAD_DIR: where local files, their partial writes and the spool directory are. */
  uploadDir: string;
  now(): Date;
  log: Logger;
}

export interface SweepReport {
  /** Stored files no record refers to, removed. */
  orphans: number;
  /** Spool and partial files removed. */
  leftovers: number;
}

/** How long a spool file must be idle before the start-up clean removes it. */
export const spoolIdleAtStartMs = 60_000;
/** Keys checked against the database at once. */
const batchSize = 500;
/** A rendition written beside its key (storage.ts, local write): `<key>.<pid>.partial`. */
const partialPattern = /^[0-9a-f-]{36}\.[a-z0-9]{1,8}\.\d+\.partial$/;

/** The spool directory of every driver (storage.ts, local driver). */
export const spoolDirOf = (uploadDir: string) => path.join(path.resolve(uploadDir), '.incoming');

/** Removes the files in `dir` (those whose name fits `pattern`, when given) last written before `before`; how many. */
async function removeIdle(dir: string, before: Date, log: Logger, pattern?: RegExp): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isFile() || (pattern && !pattern.test(entry.name))) continue;
    const file = path.join(dir, entry.name);
    const info = await stat(file).catch(() => null);
    if (!info || info.mtimeMs >= before.getTime()) continue;
    try {
      await rm(file, { force: true });
      removed += 1;
    } catch (error) {
      log.warn({ err: error, file: entry.name }, 'media sweep: could not remove a leftover file');
    }
  }
  return removed;
}

/** Removes spool files idle for `idleMs` (uploads a stopped process was receiving); how many. */
export function cleanSpool(uploadDir: string, idleMs: number, now: Date, log: Logger): Promise<number> {
  return removeIdle(spoolDirOf(uploadDir), new Date(now.getTime() - idleMs), log);
}

/** One sweep: stored files no record refers to and leftovers, older than `graceMs`. */
export async function sweepOrphans(deps: SweepDeps, graceMs: number): Promise<SweepReport> {
  const before = new Date(deps.now().getTime() - graceMs);
  const report: SweepReport = { orphans: 0, leftovers: 0 };
  report.leftovers += await removeIdle(path.resolve(deps.uploadDir), before, deps.log, partialPattern);
  report.leftovers += await cleanSpool(deps.uploadDir, graceMs, deps.now(), deps.log);
  if (!deps.storage.listWrittenBefore) return report;
  let batch: string[] = [];
  const settle = async () => {
    const referenced = await referencedStorageKeys(deps.system, batch);
    for (const key of batch.filter((k) => !referenced.has(k))) {
      try {
        await deps.storage.remove(key);
        report.orphans += 1;
      } catch (error) {
        deps.log.warn({ err: error, key }, 'media sweep: could not remove an orphaned file');
      }
    }
    batch = [];
  };
  for await (const key of deps.storage.listWrittenBefore(before)) {
    batch.push(key);
    if (batch.length >= batchSize) await settle();
  }
  if (batch.length) await settle();
  return report;
}

export interface Sweeper {
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
  /** The start-up clean and sweep (tests wait for it). */
  readonly started: Promise<void>;
}

/** Cleans the spool, sweeps, then sweeps every `intervalMs` (0: never again); one sweep at a time. */
export function startSweeper(deps: SweepDeps, config: OrphanSweepConfig): Sweeper {
  let running: Promise<void> | null = null;
  let stopped = false;
  const sweep = (first: boolean) => {
    if (running || stopped) return running ?? Promise.resolve();
    running = (async () => {
      try {
        const spool = first ? await cleanSpool(deps.uploadDir, spoolIdleAtStartMs, deps.now(), deps.log) : 0;
        const report = await sweepOrphans(deps, config.graceMs);
        if (spool || report.orphans || report.leftovers) deps.log.info({ ...report, leftovers: report.leftovers + spool }, 'media sweep removed files no record refers to');
      } catch (error) {
        deps.log.error({ err: error }, 'media sweep failed; the next one tries again');
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const started = sweep(true);
  const timer = config.intervalMs > 0 ? setInterval(() => void sweep(false), config.intervalMs) : null;
  timer?.unref();
  return {
    started,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
