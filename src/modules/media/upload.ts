// Receiving a multipart upload (field `files`, one or more) without holding a file in memory: each
// file streams through a meter (size, SHA-256, its first bytes) into a spool file. Its type is read
// from those first bytes (magic numbers), never taken from the client: an unrecognised, disallowed or
// mismatched type (declared Content-Type or filename extension) is refused, as is a file over its
// limit as soon as it crosses it; the rest of a refused file is read and dropped, so that every file
// of the request gets its verdict. Empty files are skipped. Image dimensions come from sharp (header
// only, EXIF orientation applied). The caller decides what happens next (all-or-nothing).
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import type { MediaConfig } from '../../config/media.js';
import { AppError } from '../../shared/errors.js';

/** A file received whole into its spool file, its type known from its content. */
export interface ReceivedFile {
  filename: string;
  spoolPath: string;
  size: number;
  sha256: string;
  mimeType: string;
  /** Extension of the detected type (`png`, `jpg`, `mp4`…): the stored file's. */
  ext: string;
  width: number | null;
  height: number | null;
}

export interface FileVerdict {
  filename: string;
  reason: string;
}

export interface Received {
  files: ReceivedFile[];
  rejected: FileVerdict[];
  skipped: FileVerdict[];
}

/** Bytes file-type needs to recognise every format it knows. */
const sniffBytes = 4100;
/** Other names a detected type's files commonly carry. */
const extensionAliases: Record<string, string[]> = { jpg: ['jpeg', 'jpe', 'jfif'], tif: ['tiff'], mov: ['qt'], mp4: ['m4v'], m4v: ['mp4'], heic: ['heif'] };
const mb = (bytes: number) => `${Math.round((bytes / 1048576) * 100) / 100} MB`;

/** The largest request an upload may be: every file at the largest size, plus room for the form. */
export const uploadRequestLimit = (config: MediaConfig) => config.maxFiles * config.maxSizeBytes + 1048576;

function limitFor(config: MediaConfig, mimeType: string | null): number {
  if (mimeType?.startsWith('image/')) return config.maxImageBytes;
  if (mimeType?.startsWith('video/')) return config.maxVideoBytes;
  return config.maxSizeBytes;
}

/** A client filename made safe to store and show (it never names a file on disk). */
export function cleanFilename(name: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const base = (name ?? '').replace(/[\u0000-\u001f\u007f]/g, '').split(/[\\/]/).pop()!.trim();
  return base.slice(0, 255) || 'unnamed';
}

/** Why a detected type may not be stored under this name and declared type, or null when it may. */
function typeRefusal(config: MediaConfig, detected: { mime: string; ext: string } | undefined, filename: string, declared: string): string | null {
  if (!detected) return 'file type could not be recognised from its content';
  if (!config.allowedMimeTypes.includes(detected.mime)) return `file type ${detected.mime} is not allowed`;
  const ext = path.extname(filename).slice(1).toLowerCase();
  if (ext && ext !== detected.ext && !extensionAliases[detected.ext]?.includes(ext)) return `content is ${detected.mime}, which does not match the extension .${ext}`;
  const claimed = declared.toLowerCase();
  if (claimed && claimed !== 'application/octet-stream' && claimed !== detected.mime) return `content is ${detected.mime}, not the declared ${claimed}`;
  return null;
}

/** Width and height as displayed (EXIF orientation applied), read from the header only. */
async function imageSize(file: string): Promise<{ width: number; height: number }> {
  const meta = await sharp(file).metadata();
  return { width: meta.autoOrient.width, height: meta.autoOrient.height };
}

interface Metered {
  size: number;
  sha256: string;
  detected: { mime: string; ext: string } | undefined;
  refusal: string | null;
}

/** Streams one file into `spoolPath`, deciding its type on its first bytes and enforcing its size limit. */
async function receiveFile(config: MediaConfig, stream: Readable, spoolPath: string, filename: string, declared: string): Promise<Metered> {
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let size = 0;
  let sniffed = false;
  let detected: Metered['detected'];
  let refusal: string | null = null;
  const sniff = async () => {
    sniffed = true;
    detected = await fileTypeFromBuffer(Buffer.concat(head));
    refusal = typeRefusal(config, detected, filename, declared);
  };
  const meter = new Transform({
    async transform(chunk: Buffer, _encoding, done: TransformCallback) {
      // A refused file is read to its end (the next part follows it) but nothing more is kept.
      if (refusal) return done();
      size += chunk.length;
      if (size > limitFor(config, detected?.mime ?? null)) {
        refusal = `file exceeds the limit of ${mb(limitFor(config, detected?.mime ?? null))}`;
        return done();
      }
      hash.update(chunk);
      if (!sniffed) {
        head.push(chunk);
        if (size >= sniffBytes) await sniff();
      }
      done(null, refusal ? undefined : chunk);
    },
    async flush(done: TransformCallback) {
      if (!sniffed && !refusal && size > 0) await sniff();
      done();
    },
  });
  await pipeline(stream, meter, createWriteStream(spoolPath));
  return { size, sha256: hash.digest('hex'), detected, refusal };
}

/**
 * Reads the multipart body of `request` into spool files under `spoolDir`; returns the files received
 * and those refused or skipped, with the reason. Spool files of refused files are already removed.
 * A body that is not multipart, malformed, or too large is an AppError (nothing is kept).
 */
export async function receiveUploads(config: MediaConfig, contentType: string | null, body: AsyncIterable<Uint8Array>, spoolDir: string): Promise<Received> {
  if (!/^multipart\/form-data\b/i.test(contentType ?? '')) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be multipart/form-data');
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { 'content-type': contentType! }, limits: { files: config.maxFiles, fields: 50, fieldSize: 64 * 1024, parts: config.maxFiles + 50 } });
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Malformed multipart body: missing boundary');
  }
  const result: Received = { files: [], rejected: [], skipped: [] };
  // Files finish in any order; every list is reported in the order of the request's parts.
  const position = new Map<object, number>();
  let parts = 0;
  const add = <T extends object>(list: T[], item: T, part: number) => void (list.push(item), position.set(item, part));
  const spooled: string[] = [];
  const pending: Promise<void>[] = [];
  // Past a limit busboy drops the rest silently: the request is refused instead.
  let overLimit: string | null = null;
  parser.on('filesLimit', () => void (overLimit ??= `Too many files: at most ${config.maxFiles} per request`));
  parser.on('partsLimit', () => void (overLimit ??= `Too many form parts: at most ${config.maxFiles} files and 50 fields per request`));
  parser.on('file', (field, stream, info) => {
    const part = parts++;
    const filename = cleanFilename(info.filename);
    if (field !== 'files') {
      add(result.rejected, { filename, reason: `unexpected form field "${field}" (files go in "files")` }, part);
      stream.resume();
      return;
    }
    const spoolPath = path.join(spoolDir, randomUUID());
    spooled.push(spoolPath);
    pending.push(
      (async () => {
        const metered = await receiveFile(config, stream, spoolPath, filename, info.mimeType);
        if (metered.size === 0) return add(result.skipped, { filename, reason: 'empty file' }, part);
        if (metered.refusal || !metered.detected) return add(result.rejected, { filename, reason: metered.refusal ?? 'unreadable' }, part);
        const { mime, ext } = metered.detected;
        let dimensions: { width: number | null; height: number | null } = { width: null, height: null };
        if (mime.startsWith('image/')) {
          dimensions = await imageSize(spoolPath).catch(() => ({ width: null, height: null }));
          if (dimensions.width === null) return add(result.rejected, { filename, reason: `content looks like ${mime} but the image cannot be read` }, part);
        }
        add(result.files, { filename, spoolPath, size: metered.size, sha256: metered.sha256, mimeType: mime, ext, ...dimensions }, part);
      })(),
    );
  });
  const removeSpooled = () => Promise.all(spooled.map((file) => rm(file, { force: true })));
  try {
    await pipeline(Readable.from(byteLimited(body, uploadRequestLimit(config))), parser);
  } catch (error) {
    // The file being read (if any) fails with the parser: settle every file, keep none.
    await Promise.allSettled(pending);
    await removeSpooled();
    if (error instanceof AppError) throw error;
    throw new AppError('VALIDATION_ERROR', `Malformed multipart body: ${(error as Error).message}`);
  }
  const failure = (await Promise.allSettled(pending)).find((outcome) => outcome.status === 'rejected');
  if (failure) {
    await removeSpooled();
    throw failure.reason; // the disk or sharp failed, not the client: an unexpected error
  }
  const kept = new Set(result.files.map((f) => f.spoolPath));
  await Promise.all(spooled.filter((file) => !kept.has(file)).map((file) => rm(file, { force: true })));
  if (overLimit) {
    await discard(result.files);
    throw new AppError('VALIDATION_ERROR', overLimit);
  }
  for (const list of [result.files, result.rejected, result.skipped] as object[][]) list.sort((a, b) => position.get(a)! - position.get(b)!);
  return result;
}

/** Removes the spool files of received files (a refused batch, or after a failure). */
export async function discard(files: ReceivedFile[]): Promise<void> {
  await Promise.all(files.map((f) => rm(f.spoolPath, { force: true })));
}

/** The body, failing with 413 as soon as it exceeds `limit` bytes. */
async function* byteLimited(body: AsyncIterable<Uint8Array>, limit: number): AsyncGenerator<Uint8Array> {
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.byteLength;
    if (seen > limit) throw new AppError('PAYLOAD_TOO_LARGE', `Upload exceeds the largest accepted request (${mb(limit)})`);
    yield chunk;
  }
}
