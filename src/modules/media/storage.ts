// Where uploaded files live, behind one interface. An upload is first received whole into a spool
// file (see upload.ts); `put` then moves it into storage under a key the server generated (a UUID
// and the extension of the detected type: nothing of the client's filename ever reaches the disk).
// Drivers: `local` (files under UPLOAD_DIR, served by this server at /uploads/temp/<key>),
// `hosted-blob` (storage-hosted-blob.ts: a blob service over HTTP, falling back to local) and `s3`
// (storage-s3.ts: any S3-compatible store). Spool files are always on local disk, under UPLOAD_DIR.
// Derived files (renditions) are written under keys of the same shape with `write`.
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { MediaConfig } from '../../config/media.js';
import { hostedBlobStorage } from './storage-hosted-blob.js';
import { isStorageKey } from './storage-key.js';
import { s3Storage } from './storage-s3.js';
import { openForReading, type ByteRange } from '../../shared/file-reading.js';
import { serviceKey } from '../../shared/services.js';

export type StorageDriverName = 'local' | 'hosted-blob' | 's3';

export interface StoredFile {
  driver: StorageDriverName;
  key: string;
  /** Where clients fetch the file: relative (`/uploads/temp/<key>`) for local storage, absolute otherwise. */
  url: string;
}

export interface MediaStorage {
  readonly driver: StorageDriverName;
  /** A directory for spool files of uploads being received (on the same filesystem as storage, when local). */
  spoolDir(): Promise<string>;
  /**
   * Moves a completely received spool file into storage under `key`. The answer names the driver
   * that holds it: a driver with a fallback (hosted-blob → local) may answer another than its own.
   */
  put(spoolPath: string, key: string, contentType: string): Promise<StoredFile>;
  /** Stores a small derived file (a rendition) under `key`, replacing any file there. */
  write(key: string, data: Buffer, contentType: string): Promise<void>;
  /** Removes a stored file (undoing a put whose record could not be written). Absent files are fine. */
  remove(key: string): Promise<void>;
  /** A stored file as a stream with its size, or null when there is none under `key`. */
  open(key: string): Promise<{ stream: Readable; size: number } | null>;
  /**
   * The keys of stored files last written before `before`, for the orphan sweep (sweep.ts). Absent
   * when the driver cannot list what it stores (hosted-blob lists its local fallback files only).
   */
  listWrittenBefore?(before: Date): AsyncIterable<string>;
  /** Releases connections and the like (tests and shutdown). */
  close?(): Promise<void>;
}

/** The app's storage, made once from MEDIA_* (the media module's service: module.ts). */
export const mediaStorageKey = serviceKey<MediaStorage>('media storage');

/** Whether `key` is one this server generates (storage-key.ts; exported here for the callers of storage). */
export { isStorageKey };

/** Removes the files under `keys`, trying every one; rejects naming those that could not be removed. */
export async function removeStoredFiles(storage: MediaStorage, keys: string[]): Promise<void> {
  const results = await Promise.allSettled(keys.map((key) => storage.remove(key)));
  const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (errors.length) {
    const failed = keys.filter((_, i) => results[i]!.status === 'rejected');
    throw new AggregateError(errors, `stored files not removed: ${failed.join(', ')}`);
  }
}

/** The public path local files are served under. */
export const localUrlPrefix = '/uploads/temp/';

/** The configured driver (config.storage, chosen in src/config/media.ts). */
export function createStorage(config: MediaConfig, logger: Logger): MediaStorage {
  const local = localStorage(config.uploadDir);
  const storage = config.storage;
  switch (storage.driver) {
    case 'local':
      return local;
    case 'hosted-blob':
      return hostedBlobStorage({ ...storage, local, logger: logger.child({ storage: 'hosted-blob' }) });
    case 's3':
      return s3Storage(storage, () => local.spoolDir());
  }
}

/** Bytes `start` to `end` (both included) of a file (file-reading.ts). */
export type { ByteRange };

/** Local storage can also read part of a file: the server serves its files with range requests. */
export interface LocalStorage extends MediaStorage {
  /** With `range`, the stream holds those bytes only (`size` is still the whole file's). */
  open(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | null>;
  /** The size of a stored file, or null when there is none under `key`. */
  sizeOf(key: string): Promise<number | null>;
}

/** How long the spool directory is taken to exist after it was last made. */
const spoolRecheckMs = 1000;

/** The local driver: files under `root` (UPLOAD_DIR), spool files under `root/.incoming`. */
export function localStorage(root: string): LocalStorage {
  const base = path.resolve(root);
  const spool = path.join(base, '.incoming');
  let spoolCheckedAt = Number.NEGATIVE_INFINITY;
  /** The file of a key, refusing anything that is not a generated key or would leave `base`. */
  const fileOf = (key: string): string => {
    const file = path.join(base, key);
    if (!isStorageKey(key) || path.dirname(file) !== base) throw new Error(`not a storage key: ${JSON.stringify(key)}`);
    return file;
  };
  const sizeOf = async (key: string): Promise<number | null> => {
    if (!isStorageKey(key)) return null;
    const info = await stat(fileOf(key)).catch(() => null);
    return info?.isFile() ? info.size : null;
  };
  return {
    driver: 'local',
    async spoolDir() {
      // Made (again) at most once a second, not on every upload (a mkdir costs a measurable share of a
      // small one); an UPLOAD_DIR removed under a running server is back within a second.
      if (performance.now() - spoolCheckedAt > spoolRecheckMs) {
        await mkdir(spool, { recursive: true });
        spoolCheckedAt = performance.now();
      }
      return spool;
    },
    async put(spoolPath, key) {
      await rename(spoolPath, fileOf(key));
      return { driver: 'local', key, url: `${localUrlPrefix}${key}` };
    },
    async write(key, data) {
      // Whole or not at all: written beside, then renamed over.
      const file = fileOf(key);
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, data);
      await rename(partial, file);
    },
    async remove(key) {
      await rm(fileOf(key), { force: true });
    },
    sizeOf,
    async *listWrittenBefore(before) {
      const entries = await readdir(base, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (!entry.isFile() || !isStorageKey(entry.name)) continue;
        const info = await stat(path.join(base, entry.name)).catch(() => null);
        if (info && info.mtimeMs < before.getTime()) yield entry.name;
      }
    },
    async open(key, range) {
      // Opened before it is read (file-reading.ts): a file removed meanwhile is read whole or absent.
      return isStorageKey(key) ? openForReading(fileOf(key), range) : null;
    },
  };
}
