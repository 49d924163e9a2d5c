// GET|HEAD /uploads/temp/<key>: a file of local storage, served by this server. The key must be one
// the server generated (checked before any path is built, and the path must stay inside UPLOAD_DIR);
// the file must belong to an active record, whose type is the response's Content-Type (never guessed
// from the file), with nosniff. The URL is the capability: no caller is needed, as with a public
// bucket. Deleted records' files stay in storage but are no longer served.
// Range requests (video players seek with them): one range `bytes=a-b`, `a-` or `-n` → 206 with
// Content-Range; an unsatisfiable one → 416; several ranges, or an If-Range that is not the file's
// ETag → the whole file. Files never change, so the key is the ETag.
import { systemDb, type SystemDb } from '../../db/request-db.js';
import { reply, type HttpRequest, type HttpResponse } from '../../http/exchange.js';
import { failure } from '../../rest/envelope.js';
import { defineHttpRoute } from '../../rest/http-route.js';
import { servedFileType } from './service.js';
import { isStorageKey, localStorage, localUrlPrefix, type ByteRange, type LocalStorage } from './storage.js';

/**
 * GET|HEAD /uploads/temp/*: outside the request pipeline (the URL is the capability). Local files
 * only, whatever the driver (hosted-blob's fallback files are local).
 */
export const storedFileRoute = defineHttpRoute({
  methods: ['GET', 'HEAD'],
  path: `${localUrlPrefix}*`,
  pipeline: false,
  errorCodes: false,
  start({ config, database }) {
    const files = localStorage(config.media.uploadDir);
    const system = systemDb(database, 'serve uploaded files');
    return (request) => serveStoredFile(request, files, system);
  },
});

/** The bytes a Range header asks of a file of `size` bytes: a range, 'unsatisfiable', or null for the whole file. */
export function requestedRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return null; // absent, several ranges or another unit: the whole file
  const [first, last] = [match[1] === '' ? null : Number(match[1]), match[2] === '' ? null : Number(match[2])];
  if (first === null) {
    // The last `last` bytes.
    if (last === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - last!), end: size - 1 };
  }
  if (first >= size || (last !== null && last < first)) return 'unsatisfiable';
  return { start: first, end: Math.min(last ?? size - 1, size - 1) };
}

/** The stored file at the request's path (under /uploads/temp/), or 404. */
export async function serveStoredFile(request: HttpRequest, storage: LocalStorage, system: SystemDb): Promise<HttpResponse> {
  const notFound = () => failure(404, 'NOT_FOUND', 'File not found', undefined, false);
  const key = request.url.pathname.slice(localUrlPrefix.length);
  if (!isStorageKey(key)) return notFound();
  const type = await servedFileType(system, storage.driver, key);
  if (!type) return notFound();
  const size = await storage.sizeOf(key);
  if (size === null) return notFound();
  const etag = `"${key}"`;
  const headers = {
    'content-type': type,
    'x-content-type-options': 'nosniff',
    'content-disposition': 'inline',
    'accept-ranges': 'bytes',
    etag,
    // Keys are never reused and files never change.
    'cache-control': 'public, max-age=31536000, immutable',
  };
  const ifRange = request.header('if-range');
  const range = ifRange == null || ifRange === etag ? requestedRange(request.header('range') ?? undefined, size) : null;
  if (range === 'unsatisfiable') {
    const refused = failure(416, 'RANGE_NOT_SATISFIABLE', 'Range not satisfiable', undefined, false);
    refused.headers['content-range'] = `bytes */${size}`;
    return refused;
  }
  const file = await storage.open(key, range ?? undefined);
  if (!file) return notFound();
  if (!range) return reply(200, file.stream, { ...headers, 'content-length': String(size) });
  return reply(206, file.stream, { ...headers, 'content-length': String(range.end - range.start + 1), 'content-range': `bytes ${range.start}-${range.end}/${size}` });
}
