// Receiving uploaded files without holding one in memory: each file streams through a meter (size,
// SHA-256, its first bytes) into a spool file. Its type is read from those first bytes (magic numbers),
// never taken from the client: an unrecognised, disallowed or mismatched type (declared Content-Type or
// filename extension) is refused, as is a file over its limit as soon as it crosses it; the rest of a
// refused file is read and dropped, so that every file of the request gets its verdict. Empty files are
// skipped. Image dimensions come from sharp (header only, EXIF orientation applied), read from the
// file's first bytes while the rest still streams when they hold the header. `receiveFile` is
// the one place a file is judged; the REST route (a multipart body, field `files`: receiveUploads) and
// GraphQL's uploadMedia (files of a multipart GraphQL request: receiveFiles) both use it. The caller
// decides what happens next (all-or-nothing, upload-route.ts).
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import busboy from 'busboy';
import { fileTypeFromBuffer } from 'file-type';
import type { MediaConfig } from '../../config/media.js';
import { feedParser } from '../../http/multipart-feed.js';
import { AppError } from '../../shared/errors.js';
import { loadSharp } from './imaging.js';

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

/** A file as it arrives: what the client says about it (name, declared type) and its bytes. */
export interface IncomingFile {
  filename: string | undefined;
  mimeType: string;
  stream: Readable;
}

/** What became of one file: received (its spool file kept), refused or skipped (nothing kept). */
type Outcome = { file: ReceivedFile } | { rejected: FileVerdict } | { skipped: FileVerdict };

/** Bytes file-type needs to recognise every format it knows. */
const sniffBytes = 4100;
/**
 * The first bytes of an image (the whole of a small one) are also kept in memory while it streams to
 * its spool file, and sharp reads its dimensions from there as soon as they are in, alongside the rest
 * of the stream and the spool file's closing: from a path, libvips opens and seeks the
 * file once per loader it tries (some 15 opens and 70 seeks per JPEG), which cost a small upload more
 * than receiving it. Of a larger image, only formats whose header (orientation included) comes before
 * the pixels are read from the head, and from the file when the head does not hold it all.
 */
const imageHeadBytes = 256 * 1024;
/** Types whose dimensions and orientation precede the image data: JPEG (APP1 before the frame) and PNG (eXIf before IDAT). */
const headerFirstTypes = new Set(['image/jpeg', 'image/png']);
/** Other names a detected type's files commonly carry. */
const extensionAliases: Record<string, string[]> = { jpg: ['jpeg', 'jpe', 'jfif'], tif: ['tiff'], mov: ['qt'], mp4: ['m4v'], m4v: ['mp4'], heic: ['heif'] };
const mb = (bytes: number) => `${Math.round((bytes / 1048576) * 100) / 100} MB`;

/** The largest request an upload may be: every file at the largest size, plus room for the form. */
export const uploadRequestLimit = (config: MediaConfig) => config.maxFiles * config.maxSizeBytes + 1048576;

const tooManyFiles = (config: MediaConfig) => `Too many files: at most ${config.maxFiles} per request`;

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
async function imageSize(image: Buffer | string): Promise<{ width: number; height: number }> {
  const sharp = await loadSharp();
  const meta = await sharp(image).metadata();
  return { width: meta.autoOrient.width, height: meta.autoOrient.height };
}

type Dimensions = { width: number | null; height: number | null };

/**
 * The dimensions of a received image: read from its head while it was still streaming or closing
 * (metered.headSize) when that is enough, else from its file; null when unreadable.
 */
async function dimensionsOf(metered: Metered, spoolPath: string): Promise<Dimensions> {
  const unreadable = () => ({ width: null, height: null });
  const fromHead = await metered.headSize;
  if (fromHead) return fromHead;
  // The whole image was in the head: the file holds nothing more to read.
  if (metered.headSize && metered.wholeHead) return unreadable();
  return imageSize(spoolPath).catch(unreadable);
}

/** A request whose multipart body broke off or does not follow the format: the client's error. */
const malformed = (error: unknown) =>
  error instanceof AppError ? error : new AppError('VALIDATION_ERROR', `Malformed multipart body: ${error instanceof Error ? error.message : String(error)}`);

interface Metered {
  size: number;
  sha256: string;
  detected: { mime: string; ext: string } | undefined;
  refusal: string | null;
  /**
   * An image's dimensions read from its first imageHeadBytes (the whole of a smaller image), started as
   * soon as those were in: null if they could not be read there, undefined when not tried (not an image,
   * or a larger one whose format keeps its header elsewhere).
   */
  headSize: Promise<{ width: number; height: number } | null> | undefined;
  /** The head held the whole file. */
  wholeHead: boolean;
}

/**
 * Streams one file into `spoolPath`, deciding its type on its first bytes and enforcing its size limit.
 * The input failing (the request broke off, the parser gave up) is the client's error; the disk failing is not.
 */
async function meterInto(config: MediaConfig, stream: Readable, spoolPath: string, filename: string, declared: string): Promise<Metered> {
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let size = 0;
  let sniffed = false;
  /** Collecting `head` beyond the sniff: the file is an image, and its head is not complete yet. */
  let keeping = true;
  let detected: Metered['detected'];
  let refusal: string | null = null;
  let headSize: Metered['headSize'];
  /** Reads the image's size from its head now, alongside the rest of the stream and the spool's closing. */
  const readHead = () => {
    headSize = imageSize(Buffer.concat(head)).catch(() => null);
    head.length = 0;
  };
  const sniff = async () => {
    sniffed = true;
    detected = await fileTypeFromBuffer(Buffer.concat(head));
    refusal = typeRefusal(config, detected, filename, declared);
    keeping = !refusal && !!detected?.mime.startsWith('image/');
    if (!keeping) head.length = 0;
  };
  /** Takes one chunk: counted, hashed, sniffed; false when the file is refused (from now on nothing is kept). */
  const take = async (chunk: Buffer): Promise<boolean> => {
    size += chunk.length;
    if (size > limitFor(config, detected?.mime ?? null)) {
      refusal = `file exceeds the limit of ${mb(limitFor(config, detected?.mime ?? null))}`;
      return false;
    }
    hash.update(chunk);
    if (!sniffed || keeping) head.push(chunk);
    if (!sniffed && size >= sniffBytes) await sniff();
    if (keeping && size >= imageHeadBytes) {
      keeping = false;
      if (headerFirstTypes.has(detected?.mime ?? '')) readHead();
    }
    return !refusal;
  };
  const spool = createWriteStream(spoolPath);
  // A disk failure while no write is awaited is kept here and thrown at the next chunk or the end.
  let diskFailure: unknown;
  spool.on('error', (error) => void (diskFailure ??= error));
  const disk = async <T>(work: Promise<T>): Promise<T> => {
    try {
      return await work;
    } catch (error) {
      throw diskFailure ?? error;
    }
  };
  try {
    // Chunk by chunk, with the disk's backpressure; a refused file is read to its end (the next part
    // follows it), nothing more of it kept. The input failing (the request broke off, the parser gave
    // up) ends the loop with the client's error.
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        if (diskFailure) throw diskFailure;
        if (refusal || !(await take(chunk))) continue;
        if (!spool.write(chunk)) await disk(once(spool, 'drain'));
      }
    } catch (error) {
      if (error === diskFailure) throw error;
      throw malformed(error);
    }
    if (!sniffed && !refusal && size > 0) await sniff();
    // An image smaller than the head is all there: its size is read while the spool file closes.
    if (keeping && !refusal && size > 0) readHead();
    spool.end();
    await disk(finished(spool));
  } catch (error) {
    spool.destroy();
    throw error;
  }
  return { size, sha256: hash.digest('hex'), detected, refusal, headSize: refusal ? undefined : headSize, wholeHead: size < imageHeadBytes };
}

/**
 * Receives one file into a new spool file under `spoolDir` and judges it: the one place files are
 * validated. Only a received file keeps its spool file; a refused or skipped one, or a failure, leaves nothing.
 */
export async function receiveFile(config: MediaConfig, incoming: IncomingFile, spoolDir: string): Promise<Outcome> {
  const filename = cleanFilename(incoming.filename);
  const spoolPath = path.join(spoolDir, randomUUID());
  try {
    const metered = await meterInto(config, incoming.stream, spoolPath, filename, incoming.mimeType);
    let outcome: Outcome;
    if (metered.size === 0) outcome = { skipped: { filename, reason: 'empty file' } };
    else if (metered.refusal || !metered.detected) outcome = { rejected: { filename, reason: metered.refusal ?? 'unreadable' } };
    else {
      const { mime, ext } = metered.detected;
      let dimensions: { width: number | null; height: number | null } = { width: null, height: null };
      if (mime.startsWith('image/')) dimensions = await dimensionsOf(metered, spoolPath);
      outcome =
        mime.startsWith('image/') && dimensions.width === null
          ? { rejected: { filename, reason: `content looks like ${mime} but the image cannot be read` } }
          : { file: { filename, spoolPath, size: metered.size, sha256: metered.sha256, mimeType: mime, ext, ...dimensions } };
    }
    if (!('file' in outcome)) await rm(spoolPath, { force: true });
    return outcome;
  } catch (error) {
    await rm(spoolPath, { force: true });
    throw error;
  }
}

/** The files of one request as they are received, reported in the request's order whatever order they finish in. */
class Batch {
  private readonly outcomes: { at: number; outcome: Promise<Outcome> }[] = [];

  add(at: number, outcome: Promise<Outcome>): void {
    outcome.catch(() => {}); // settled (and reported) by settle() or abandon()
    this.outcomes.push({ at, outcome });
  }

  /** Every file's verdict; if any file failed, the received ones are discarded and the first failure thrown. */
  async settle(): Promise<Received> {
    const settled = await Promise.allSettled(this.outcomes.map((o) => o.outcome));
    const ordered = this.outcomes.map((o, i) => ({ at: o.at, result: settled[i]! })).sort((a, b) => a.at - b.at);
    const received: Received = { files: [], rejected: [], skipped: [] };
    for (const { result } of ordered) {
      if (result.status === 'rejected') continue;
      const outcome = result.value;
      if ('file' in outcome) received.files.push(outcome.file);
      else if ('rejected' in outcome) received.rejected.push(outcome.rejected);
      else received.skipped.push(outcome.skipped);
    }
    const failure = ordered.find(({ result }) => result.status === 'rejected')?.result as PromiseRejectedResult | undefined;
    if (failure) {
      await discard(received.files);
      throw failure.reason;
    }
    return received;
  }

  /** Waits for every file and keeps none (the request failed as a whole). */
  async abandon(): Promise<void> {
    await this.settle().then(
      (received) => discard(received.files),
      () => {},
    );
  }
}

/**
 * Reads the multipart body of `request` into spool files under `spoolDir`; returns the files received
 * and those refused or skipped, with the reason. Spool files of refused files are already removed.
 * A body that is not multipart, malformed, or too large is an AppError (nothing is kept).
 */
export async function receiveUploads(config: MediaConfig, contentType: string | null, body: AsyncIterable<Uint8Array>, spoolDir: string, idleMs: number): Promise<Received> {
  if (!/^multipart\/form-data\b/i.test(contentType ?? '')) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be multipart/form-data');
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { 'content-type': contentType! }, limits: { files: config.maxFiles, fields: 50, fieldSize: 64 * 1024, parts: config.maxFiles + 50 } });
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Malformed multipart body: missing boundary');
  }
  const batch = new Batch();
  let parts = 0;
  // Past a limit busboy drops the rest silently: the request is refused instead.
  let overLimit: string | null = null;
  parser.on('filesLimit', () => void (overLimit ??= tooManyFiles(config)));
  parser.on('partsLimit', () => void (overLimit ??= `Too many form parts: at most ${config.maxFiles} files and 50 fields per request`));
  parser.on('file', (field, stream, info) => {
    // The parser failing mid-part fails its stream too: a reader sees that in its own loop.
    stream.on('error', () => {});
    const part = parts++;
    if (field !== 'files') {
      batch.add(part, Promise.resolve({ rejected: { filename: cleanFilename(info.filename), reason: `unexpected form field "${field}" (files go in "files")` } }));
      stream.resume();
      return;
    }
    batch.add(part, receiveFile(config, { filename: info.filename, mimeType: info.mimeType, stream }, spoolDir));
  });
  try {
    await feedParser(parser, body, { limitBytes: uploadRequestLimit(config), idleMs });
  } catch (error) {
    // The file being read (if any) fails with the parser: settle every file, keep none.
    await batch.abandon();
    throw malformed(error);
  }
  // A failure now is the disk's or sharp's, not the client's: an unexpected error.
  const received = await batch.settle();
  if (overLimit) {
    await discard(received.files);
    throw new AppError('VALIDATION_ERROR', overLimit);
  }
  return received;
}

/**
 * Receives files that arrive one by one (the Upload values of a multipart GraphQL request, each a
 * promise that settles when its part begins), all at once so that their order in the body does not
 * matter; the verdicts are in the order of `files`. A file that never came, or broke off, fails the
 * request as malformed (nothing is kept).
 */
export async function receiveFiles(config: MediaConfig, files: Promise<IncomingFile>[], spoolDir: string): Promise<Received> {
  if (files.length > config.maxFiles) throw new AppError('VALIDATION_ERROR', tooManyFiles(config));
  const batch = new Batch();
  files.forEach((file, i) => batch.add(i, file.then((incoming) => receiveFile(config, incoming, spoolDir), (error: unknown) => Promise.reject(malformed(error)))));
  return batch.settle();
}

/** Removes the spool files of received files (a refused batch, or after a failure). */
export async function discard(files: ReceivedFile[]): Promise<void> {
  await Promise.all(files.map((f) => rm(f.spoolPath, { force: true })));
}
