// The container of a backup: a tar stream (tar-stream), gzip'd (node:zlib), written and read as a stream.
// Each entry is written whole before the next and waits for the file to take it, so what is held in
// memory is one entry's chunk, whatever the backup's size. An entry written whole (the manifest, a chunk
// of rows) carries its SHA-256 in a PAX record, checked before it is used: a damaged chunk is refused as
// one, not met as a strange value. Files are covered by gzip's CRC, checked before a restore commits.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { DamagedBackupError } from './manifest.js';

/** A backup file being written: entries in order, then `finish` (or `abandon`). */
export interface ArchiveWriter {
  /** Adds an entry holding `data`. */
  add(name: string, data: Buffer | string): Promise<void>;
  /** Adds an entry of `size` bytes read from `source`. */
  addStream(name: string, size: number, source: Readable): Promise<void>;
  /** Ends the file and moves it to its name; resolves to its size in bytes. */
  finish(): Promise<number>;
  /** Removes what was written. */
  abandon(): Promise<void>;
}

/** Starts writing a backup to `file`, under a temporary name until `finish`: a failed backup leaves nothing that looks like one. */
export function writeArchive(file: string): ArchiveWriter {
  const partial = `${file}.partial`;
  const pack = tar.pack();
  const written = pipeline(pack, createGzip(), createWriteStream(partial));
  written.catch(() => {}); // awaited by finish; a failure surfaces there or in the entry that met it
  const entry = (name: string, size: number, fill: (sink: NodeJS.WritableStream) => void, sha256?: string) =>
    new Promise<void>((resolve, reject) => {
      const sink = pack.entry({ name, size, mtime: new Date(0), ...(sha256 && { pax: { [checksumRecord]: sha256 } }) }, (error) => (error ? reject(error) : resolve()));
      fill(sink as unknown as NodeJS.WritableStream);
    });
  return {
    add: (name, data) => {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      return entry(name, bytes.length, (sink) => sink.end(bytes), createHash('sha256').update(bytes).digest('hex'));
    },
    addStream: (name, size, source) =>
      entry(name, size, (sink) => {
        source.once('error', (error) => (sink as unknown as { destroy(e: Error): void }).destroy(error));
        source.pipe(sink);
      }),
    async finish() {
      pack.finalize();
      await written;
      await rename(partial, file);
      return (await stat(file)).size;
    },
    async abandon() {
      pack.destroy();
      await written.catch(() => {});
      await rm(partial, { force: true });
    },
  };
}

/** The PAX record of an entry's SHA-256: an extended attribute to tar (GNU tar ignores it unless asked to --xattrs). */
const checksumRecord = 'SCHILY.xattr.user.sha256';

/** An entry of a backup being read: consume `stream` whole before asking for the next. */
export interface ArchiveEntry {
  name: string;
  size: number;
  stream: Readable;
  /** The SHA-256 the entry was written with, when it was written whole. */
  sha256: string | undefined;
}

/** Reads an entry whole (a manifest, a chunk of rows), checking it against its SHA-256. */
export async function entryText(entry: ArchiveEntry): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of entry.stream) parts.push(part as Buffer);
  const bytes = Buffer.concat(parts);
  if (entry.sha256 !== undefined && createHash('sha256').update(bytes).digest('hex') !== entry.sha256) {
    throw new DamagedBackupError(`the backup file is damaged: ${entry.name} does not match its checksum`);
  }
  return bytes.toString('utf8');
}

/** The entries of the backup in `file`, in order; a damaged or cut-off file throws DamagedBackupError. */
export async function* readArchive(file: string): AsyncGenerator<ArchiveEntry> {
  const extract = tar.extract();
  const read = pipeline(createReadStream(file), createGunzip(), extract);
  read.catch(() => {}); // its error also ends the iteration below
  try {
    for await (const entry of extract) {
      const { name, size, pax } = entry.header;
      yield { name, size: size ?? 0, stream: entry as unknown as Readable, sha256: (pax as Record<string, string> | undefined)?.[checksumRecord] };
    }
    await read;
  } catch (error) {
    throw damaged(error);
  } finally {
    extract.destroy();
  }
}

/** The error of a stream that could not be read as a gzip'd tar, said as what it means (any other error as it is). */
export function damaged(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof DamagedBackupError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') return error;
  if (code?.startsWith('Z_') || /tar|end of data|unexpected end|premature close/i.test(error.message)) {
    return new DamagedBackupError(`the backup file is damaged or incomplete (${error.message})`);
  }
  return error;
}
