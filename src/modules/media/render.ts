// GET /api/v1/media/{id}/render?w=&h=&fit=&format=: a resized copy of an uploaded image, made with
// sharp and cached on storage. Image bytes, not an envelope, so not a route declaration: src/app.ts
// calls this inside the request's context (scope media:read, errors without `code`).
// The words: the *source* is the stored file of an active record of the caller's teams; a *rendition*
// is one (source, w, h, fit, format), stored under a key derived from exactly those, so the same request
// finds it again with storage.open (a cache hit costs no SQL beyond reading the source's record).
// Renditions are not media records: /uploads/temp never serves them, only this route does, to callers
// who may read the source. Each stored one has a row in media_renditions (service.ts), written after
// its file: a source keeps at most MEDIA_RENDITIONS_PER_SOURCE, the oldest evicted (row, then file),
// and deleting the record removes them all.
// Bounds, so that no request can ask for an unbounded image or exhaust memory: w and h at most
// maxRenderDimension; sources over maxSourceBytes or maxSourcePixels are refused; the image is never
// scaled up; per process at most `concurrent` renders run and `waiting` more wait (beyond: 503 with
// Retry-After), and identical concurrent requests share one render.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Context } from '../../graphql/context.js';
import { reply, type HttpRequest, type HttpResponse } from '../../http/exchange.js';
import { failure } from '../../rest/envelope.js';
import { AppError } from '../../shared/errors.js';
import { parseInputExactly } from '../../shared/validation.js';
import { loadSharp } from './imaging.js';
import { recordRendition, renditionSource, type RenditionSource } from './service.js';
import { mediaStorageKey, removeStoredFiles, type MediaStorage } from './storage.js';

/**
 * Largest width or height a rendition may ask for. Measured worst case (a 40-megapixel noise image,
 * EXIF-rotated, to 2048 px): about 150 MB and 3 s for AVIF, 65 MB and 1 s for WebP, per render; at
 * 4096 px AVIF took 580 MB and 30 s, so 2048 it is.
 */
export const maxRenderDimension = 2048;
/** Largest source file read into memory for a render (uploads are smaller unless MEDIA_CONFIG raises them). */
export const maxSourceBytes = 50 * 1024 * 1024;
/** Largest source image (width × height, from its header) decoded: 40 megapixels. */
export const maxSourcePixels = 40_000_000;
/** A render taking longer is abandoned (sharp checks between libvips operations, not inside an encoder). */
const renderTimeoutSeconds = 30;
/** Bump when the output for the same parameters changes (encoder settings): new keys and ETags. */
const renditionVersion = 1;

export interface RenderLimits {
  /** Renders running at once in this process. */
  concurrent: number;
  /** Renders waiting for a slot; one more is refused with 503. */
  waiting: number;
}

export const defaultRenderLimits: RenderLimits = { concurrent: 2, waiting: 16 };
/** Seconds a refused (busy) caller is told to wait. */
const retryAfterSeconds = 2;

const dimension = z.coerce.number().int().min(1).max(maxRenderDimension).optional();

export const renderQuery = z
  .strictObject({
    w: dimension,
    h: dimension,
    fit: z.enum(['cover', 'contain', 'fill', 'inside', 'outside']).default('inside'),
    format: z.enum(['webp', 'avif', 'jpeg', 'png']).default('webp'),
  })
  .refine((q) => q.w !== undefined || q.h !== undefined, { message: 'w or h is required', path: ['w'] });
export type RenderQuery = z.output<typeof renderQuery>;

const formats = {
  webp: { type: 'image/webp', ext: 'webp' },
  avif: { type: 'image/avif', ext: 'avif' },
  jpeg: { type: 'image/jpeg', ext: 'jpg' },
  png: { type: 'image/png', ext: 'png' },
} as const;

/** Source types rendered (decoders that read no other file and fetch nothing: never SVG, PDF and the like). */
const renderableTypes = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/tiff']);

/** The widths of a media record's rendition links (`renditions`): a small `srcset`, WebP (the route's default format). */
export const renditionWidths = [320, 640, 1280] as const;

/**
 * Where to fetch resized copies of an uploaded image: this route at each width of `renditionWidths`
 * (relative, as local files' URLs are); none for videos, registered files (no stored file) and types
 * sharp is not given.
 */
export function renditionLinks(m: { id: string; mimeType: string; storageDriver: string | null }): { width: number; url: string }[] {
  if (!m.storageDriver || !renderableTypes.has(m.mimeType)) return [];
  return renditionWidths.map((width) => ({ width, url: `/api/v1/media/${m.id}/render?w=${width}` }));
}

const cacheControl = 'private, max-age=31536000, immutable';

const digest = (...parts: (string | number)[]) => createHash('sha256').update(parts.join('\n')).digest('hex');

/**
 * The storage key of a rendition: UUID-shaped from a hash of (media id, parameters), with version 8
 * (RFC 9562's custom UUIDs), so it can never be one of the random version-4 keys of uploads. The
 * source's own (random) key is hashed in too: where storage is a public bucket, a rendition's address
 * is no easier to find than its source's.
 */
export function renditionKey(source: { id: string; storageKey: string }, q: RenderQuery): string {
  const h = digest('rendition', renditionVersion, source.id, source.storageKey, q.w ?? '', q.h ?? '', q.fit, q.format);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}.${formats[q.format].ext}`;
}

/** A strong ETag: the source's content (its SHA-256, else its id: records never change) and the parameters. */
export function renditionEtag(source: { id: string; sha256: string | null }, q: RenderQuery): string {
  return `"${digest('etag', renditionVersion, source.sha256 ?? source.id, q.w ?? '', q.h ?? '', q.fit, q.format).slice(0, 40)}"`;
}

/** Whether If-None-Match names `etag` (weak comparison, as RFC 9110 asks for this header) or is `*`. */
function notModified(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/** Refused because enough renders are running and waiting already. */
export class RenderBusyError extends Error {
  constructor() {
    super('render queue full');
  }
}

export interface RenderQueue {
  /** `work`'s result for `key`: shared with a run for the same key in progress, else run in a free slot. Rejects with RenderBusyError when full. */
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
  /** Running and waiting renders (tests). */
  load(): { running: number; waiting: number };
}

/** A semaphore with a bounded wait list, and single flight per key. */
export function createRenderQueue(limits: RenderLimits): RenderQueue {
  let running = 0;
  const waiting: (() => void)[] = [];
  const inFlight = new Map<string, Promise<unknown>>();
  async function inSlot<T>(work: () => Promise<T>): Promise<T> {
    if (running < limits.concurrent) running++;
    else if (waiting.length < limits.waiting) await new Promise<void>((resolve) => waiting.push(resolve));
    else throw new RenderBusyError();
    try {
      return await work();
    } finally {
      // The slot goes straight to the next waiter, if any.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  }
  return {
    run<T>(key: string, work: () => Promise<T>) {
      const current = inFlight.get(key);
      if (current) return current as Promise<T>;
      const run = inSlot(work).finally(() => inFlight.delete(key));
      inFlight.set(key, run);
      return run;
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}

const cannotRender = (message: string) => new AppError('VALIDATION_FAILED', message);

/** Reads a stored file whole (the caller has checked its size), stopping past `limit` bytes all the same. */
async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      stream.destroy();
      throw cannotRender('Image is too large to render');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const transparent = { r: 0, g: 0, b: 0, alpha: 0 };
const white = { r: 255, g: 255, b: 255, alpha: 1 };

/** Renders `input` as asked: EXIF orientation applied, never scaled up, metadata dropped. */
export async function renderImage(input: Buffer, q: RenderQuery): Promise<Buffer> {
  const sharp = await loadSharp();
  const jpeg = q.format === 'jpeg';
  // JPEG has no alpha: transparent pixels and `contain` padding become white there, transparent elsewhere.
  let image = sharp(input, { limitInputPixels: maxSourcePixels })
    .rotate()
    .resize({ width: q.w, height: q.h, fit: q.fit, withoutEnlargement: true, background: jpeg ? white : transparent })
    .timeout({ seconds: renderTimeoutSeconds });
  if (jpeg) image = image.flatten({ background: white });
  switch (q.format) {
    case 'webp':
      return image.webp({ quality: 80 }).toBuffer();
    case 'avif':
      // Effort 2 of 0–9: the default (4) took ten times as long on a noisy image, for little gain.
      return image.avif({ quality: 50, effort: 2 }).toBuffer();
    case 'jpeg':
      return image.jpeg({ quality: 80, mozjpeg: true }).toBuffer();
    case 'png':
      return image.png({ compressionLevel: 9 }).toBuffer();
  }
}

/** Reads the source from storage and renders it. */
async function renderFromSource(storage: MediaStorage, sourceKey: string, q: RenderQuery, log: Logger): Promise<Buffer> {
  const file = await storage.open(sourceKey);
  if (!file) {
    log.warn({ key: sourceKey }, 'stored file of an active record is missing');
    throw new AppError('NOT_FOUND', 'Media file not found');
  }
  if (file.size > maxSourceBytes) {
    file.stream.destroy();
    throw cannotRender('Image is too large to render');
  }
  const input = await readAll(file.stream, maxSourceBytes);
  let image: Buffer;
  try {
    image = await renderImage(input, q);
  } catch (error) {
    if (/pixel limit/i.test(String((error as Error).message))) throw cannotRender('Image is too large to render');
    log.warn({ err: error, key: sourceKey }, 'image could not be rendered');
    throw cannotRender('Image could not be rendered');
  }
  return image;
}

/** A rendition to cache: its key, the record it is of, its bytes and their type. */
interface Rendition {
  key: string;
  mediaId: string;
  image: Buffer;
  contentType: string;
}

/**
 * Stores a rendition, then records it (evicting the source's oldest beyond `perSource`) and removes the
 * files the record says must go. The file is written before its row and removed again when it cannot be
 * recorded (the record was deleted meanwhile, or the database failed), so no file outlives its row for
 * long. Failures only cost a later render: logged, never the caller's.
 */
async function cacheRendition(ctx: Context, storage: MediaStorage, r: Rendition, perSource: number): Promise<void> {
  try {
    await storage.write(r.key, r.image, r.contentType);
  } catch (error) {
    ctx.log.warn({ err: error, key: r.key }, 'rendition not cached');
    return;
  }
  const unwanted = await recordRendition(ctx, { key: r.key, mediaId: r.mediaId, bytes: r.image.length }, perSource).catch((error: unknown) => {
    ctx.log.warn({ err: error, key: r.key }, 'rendition not recorded: its file is removed');
    return [r.key];
  });
  await removeStoredFiles(storage, unwanted).catch((error: unknown) => ctx.log.warn({ err: error, mediaId: r.mediaId }, 'renditions not removed from storage'));
}

export interface Renditions {
  /**
   * Answers GET /api/v1/media/{id}/render as the context's caller: reads the record (the database
   * phase) and returns the network phase (storage and sharp work), which the pipeline runs once it has
   * ended the request's transaction (the route declares its network I/O `last`).
   */
  handle(request: HttpRequest, ctx: Context, mediaId: string): Promise<() => Promise<HttpResponse>>;
}

/**
 * The rendition route over the request scope's media storage, keeping MEDIA_RENDITIONS_PER_SOURCE
 * renditions of a source, with its own render queue (one per app, so per process).
 */
export function createRenditions(limits: RenderLimits = defaultRenderLimits): Renditions {
  const queue = createRenderQueue(limits);

  /** The network phase: storage and sharp work, after the request's transaction. */
  async function answer(request: HttpRequest, ctx: Context, source: RenditionSource, q: RenderQuery): Promise<HttpResponse> {
    const { config } = ctx;
    const storage = ctx.services.get(mediaStorageKey);
    if (!source.mimeType.startsWith('image/')) throw cannotRender('Only images can be rendered');
    // A registered record's file is hosted elsewhere: fetching its URL would be request forgery.
    if (!source.storageKey) throw cannotRender('Only uploaded images can be rendered');
    if (!renderableTypes.has(source.mimeType)) throw cannotRender(`Images of type ${source.mimeType} cannot be rendered`);
    const etag = renditionEtag(source, q);
    const headers = { etag, 'cache-control': cacheControl, 'x-content-type-options': 'nosniff' };
    if (notModified(request.header('if-none-match'), etag)) return reply(304, null, headers);
    const typed = { ...headers, 'content-type': formats[q.format].type, 'content-disposition': 'inline' };
    const sourceKey = source.storageKey;
    const key = renditionKey({ id: source.id, storageKey: sourceKey }, q);
    const cached = await storage.open(key);
    if (cached) return reply(200, cached.stream, { ...typed, 'content-length': String(cached.size) });
    const render = async () => {
      const image = await renderFromSource(storage, sourceKey, q, ctx.log);
      await cacheRendition(ctx, storage, { key, mediaId: source.id, image, contentType: formats[q.format].type }, config.media.renditionsPerSource);
      return image;
    };
    let image: Buffer;
    try {
      image = await queue.run(key, render);
    } catch (error) {
      if (!(error instanceof RenderBusyError)) throw error;
      const busy = failure(503, 'SERVICE_UNAVAILABLE', 'Too many images are being rendered; try again shortly', undefined, false);
      busy.headers['retry-after'] = String(retryAfterSeconds);
      return busy;
    }
    return reply(200, image, { ...typed, 'content-length': String(image.length) });
  }

  return {
    async handle(request, ctx, mediaId) {
      const q = parseInputExactly(renderQuery, Object.fromEntries(request.url.searchParams), 'Invalid query parameters');
      const source = await renditionSource(ctx, mediaId);
      return () => answer(request, ctx, source, q);
    },
  };
}
