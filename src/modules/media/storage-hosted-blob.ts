// The hosted-blob driver: uploads go over HTTP to a blob service, with local storage as the fallback
// the contract asks for ("local: no blob token, or the blob upload fails").
//
// The protocol, every request carrying `authorization: Bearer <BLOB_READ_WRITE_TOKEN>`:
//   PUT    <BLOB_API_URL>/uploads/temp/<key>   body: the file, with content-type and content-length
//          → 2xx JSON {"url": "<absolute http(s) URL whose path is under /uploads/temp/>"}
//   GET    <BLOB_API_URL>/uploads/temp/<key>   → 200 with the file and content-length, or 404
//   DELETE <BLOB_API_URL>/uploads/temp/<key>   → 2xx, or 404 when there is nothing to delete
// A request that makes no progress for BLOB_TIMEOUT_MS fails. A failed upload (network error,
// timeout, non-2xx, an answer without such a URL) is stored locally instead, with a warning (never
// the token); for BLOB_RETRY_AFTER_MS after it, uploads go local without trying the blob service, so
// the rest of a batch does not wait on a failing service once per file. Files that fell back stay
// local for good: `open` and `remove` look in local storage first, then at the blob service.
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { MediaStorage } from './storage.js';

export interface HostedBlobOptions {
  /** Base of the blob API, without a trailing slash. */
  apiUrl: string;
  token: string;
  timeoutMs: number;
  retryAfterMs: number;
  /** Where failed uploads (and their spool files) go. */
  local: MediaStorage;
  logger: Logger;
}

/** Longest JSON answer to an upload that is read. */
const answerLimit = 64 * 1024;

/** A blob request that failed: the message says how, never with the token. */
class BlobError extends Error {}

/** The hosted-blob driver over `local` as its fallback. */
export function hostedBlobStorage(options: HostedBlobOptions): MediaStorage {
  const { apiUrl, token, timeoutMs, retryAfterMs, local, logger } = options;
  const isHttps = apiUrl.startsWith('https:');
  const agent = isHttps ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  /** Until when uploads skip the blob service after a failure (epoch ms). */
  let localUntil = 0;

  /** Sends one request for `key`; resolves with the response once its headers arrived. */
  function send(method: string, key: string, headers: Record<string, string | number> = {}, body?: Readable | Buffer): Promise<IncomingMessage> {
    const url = `${apiUrl}/uploads/temp/${key}`;
    return new Promise((resolve, reject) => {
      const request = (isHttps ? https : http).request(url, { method, agent, timeout: timeoutMs, headers: { ...headers, authorization: `Bearer ${token}` } }, resolve);
      request.on('timeout', () => request.destroy(new BlobError(`${method} /uploads/temp/${key}: no progress for ${timeoutMs} ms`)));
      request.on('error', (error) => reject(error instanceof BlobError ? error : new BlobError(`${method} /uploads/temp/${key}: ${error.message}`)));
      if (body instanceof Readable) {
        // An early answer (401, 413…) or a failure ends the request: the file stops being read.
        request.on('close', () => body.destroy());
        body.on('error', (error) => request.destroy(error));
        body.pipe(request);
      } else {
        request.end(body);
      }
    });
  }

  /** The response's body, up to `limit` bytes. */
  async function text(response: IncomingMessage, limit: number): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) {
        response.destroy();
        throw new BlobError(`answer over ${limit} bytes`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  const ok = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

  /** PUTs the spool file; resolves with the URL the blob service answered. */
  async function upload(spoolPath: string, key: string, contentType: string): Promise<string> {
    const { size } = await stat(spoolPath);
    const response = await send('PUT', key, { 'content-type': contentType, 'content-length': size }, createReadStream(spoolPath));
    const answer = await text(response, answerLimit);
    if (!ok(response.statusCode)) throw new BlobError(`PUT /uploads/temp/${key}: status ${response.statusCode}`);
    let url: unknown;
    try {
      url = (JSON.parse(answer) as { url?: unknown })?.url;
    } catch {
      throw new BlobError(`PUT /uploads/temp/${key}: the answer is not JSON`);
    }
    if (typeof url !== 'string' || !isBlobUrl(url)) throw new BlobError(`PUT /uploads/temp/${key}: the answer has no absolute http(s) url under /uploads/temp/`);
    return url;
  }

  /** Notes a failed blob request: warns (the reason names the request, never the token) and goes local for a while. */
  function failed(error: unknown, key: string, what: string): void {
    localUntil = Date.now() + retryAfterMs;
    // Messages of our requests name the method and path; Node's own never quote request headers.
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn({ key, reason, retryAfterMs }, `hosted blob ${what} failed: stored locally`);
  }

  /** Deletes at the blob service; a missing file is fine. */
  async function removeRemote(key: string): Promise<void> {
    const response = await send('DELETE', key);
    response.resume();
    if (!ok(response.statusCode) && response.statusCode !== 404) throw new BlobError(`DELETE /uploads/temp/${key}: status ${response.statusCode}`);
  }

  return {
    driver: 'hosted-blob',
    spoolDir: () => local.spoolDir(),
    async put(spoolPath, key, contentType) {
      if (Date.now() < localUntil) return local.put(spoolPath, key, contentType);
      try {
        const url = await upload(spoolPath, key, contentType);
        await rm(spoolPath, { force: true });
        return { driver: 'hosted-blob', key, url };
      } catch (error) {
        failed(error, key, 'upload');
        // The service may have kept the file while failing to answer: it would belong to no record.
        removeRemote(key).catch(() => {});
        return local.put(spoolPath, key, contentType);
      }
    },
    async write(key, data, contentType) {
      if (Date.now() < localUntil) return local.write(key, data, contentType);
      try {
        const response = await send('PUT', key, { 'content-type': contentType, 'content-length': data.length }, data);
        await text(response, answerLimit);
        if (!ok(response.statusCode)) throw new BlobError(`PUT /uploads/temp/${key}: status ${response.statusCode}`);
      } catch (error) {
        failed(error, key, 'write');
        await local.write(key, data, contentType);
      }
    },
    async remove(key) {
      const here = await local.open(key);
      if (here) {
        here.stream.destroy();
        return local.remove(key);
      }
      await removeRemote(key);
    },
    // The blob protocol has no listing: only the fallback files kept locally can be swept.
    listWrittenBefore: local.listWrittenBefore?.bind(local),
    async open(key) {
      const here = await local.open(key);
      if (here) return here;
      const response = await send('GET', key);
      if (response.statusCode === 404) {
        response.resume();
        return null;
      }
      const size = Number(response.headers['content-length']);
      if (response.statusCode !== 200 || !Number.isSafeInteger(size)) {
        response.destroy();
        throw new BlobError(`GET /uploads/temp/${key}: status ${response.statusCode}${response.statusCode === 200 ? ' without content-length' : ''}`);
      }
      // The reader paces the stream from here: an idle reader must not time the download out.
      response.socket.setTimeout(0);
      return { stream: response, size };
    },
    async close() {
      agent.destroy();
      await local.close?.();
    },
  };
}

/** An absolute http(s) URL whose path is under /uploads/temp/ (contract). */
function isBlobUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.pathname.includes('/uploads/temp/') && !url.username && !url.password;
  } catch {
    return false;
  }
}
