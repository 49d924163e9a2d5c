// GET /uploads/temp/<key>: a file of local storage, served by this server. The key must be one the
// server generated (checked before any path is built, and the path must stay inside UPLOAD_DIR);
// the file must belong to an active record, whose type is the response's Content-Type (never guessed
// from the file), with nosniff. The URL is the capability: no caller is needed, as with a public
// bucket. Deleted records' files stay in storage but are no longer served.
import type { SystemDb } from '../../db/request-db.js';
import { reply, type HttpResponse } from '../../http/exchange.js';
import { failure } from '../../rest/envelope.js';
import { servedFileType } from './service.js';
import { isStorageKey, localUrlPrefix, type MediaStorage } from './storage.js';

/** Whether a request path is one of stored files. */
export const isStoredFilePath = (pathname: string) => pathname.startsWith(localUrlPrefix);

/** The stored file at `pathname` (under /uploads/temp/), or 404. */
export async function serveStoredFile(pathname: string, storage: MediaStorage, system: SystemDb): Promise<HttpResponse> {
  const notFound = () => failure(404, 'NOT_FOUND', 'File not found', undefined, false);
  const key = pathname.slice(localUrlPrefix.length);
  if (!isStorageKey(key)) return notFound();
  const type = await servedFileType(system, storage.driver, key);
  if (!type) return notFound();
  const file = await storage.open(key);
  if (!file) return notFound();
  return reply(200, file.stream, {
    'content-type': type,
    'content-length': String(file.size),
    'x-content-type-options': 'nosniff',
    'content-disposition': 'inline',
    // Keys are never reused and files never change.
    'cache-control': 'public, max-age=31536000, immutable',
  });
}
