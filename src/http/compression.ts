// Answers compressed as the client accepts: brotli, else gzip (Accept-Encoding negotiated by
// `negotiator`, q-values and `identity;q=0` honoured), for the bodies it pays for: text of 1 KB or more
// whose route has not chosen its encoding itself (the console's assets are compressed at build time),
// and generated streams of text (an export). Left as they are: media and other stored files (a stream
// of known length: mostly compressed images already, and ranges are byte offsets of the stored file),
// event streams (a push body: each event must leave at once), partial and empty answers, HEAD.
// Compression runs on libuv's thread pool (zlib's async API), so a large page does not hold the event
// loop; brotli at quality 4, the level CDNs use for dynamic answers (quality 11, zlib's default, costs
// ~50× more CPU for a few per cent).
import Negotiator from 'negotiator';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { appendHeader, bodyLength, type HttpResponse } from './exchange.js';

/** Smallest body compressed: below it the saving is smaller than the headers that announce it. */
export const compressionThreshold = 1024;

type Encoding = 'br' | 'gzip';
const offered: readonly Encoding[] = ['br', 'gzip'];

const brotliOptions = (size?: number): zlib.BrotliOptions => ({
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    ...(size === undefined ? {} : { [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size }),
  },
});
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Text types: JSON (with +json suffixes, ndjson), JavaScript, XML, SVG, CSV, HTML and other text; not event streams. */
const compressibleType = /^(?:text\/(?!event-stream)|application\/(?:[\w.-]+\+)?(?:json|x-ndjson|javascript|xml)\b|image\/svg\+xml)/i;

/** The encoding the client prefers among ours (brotli first when it rates both alike), or null. */
function negotiated(acceptEncoding: string | null): Encoding | null {
  if (!acceptEncoding) return null;
  // negotiator 1.x breaks ties by the server's preference; @types/negotiator (0.6) does not declare the option.
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as {
    encoding(available: readonly string[], options: { preferred: readonly string[] }): string | undefined;
  };
  const chosen = negotiator.encoding([...offered, 'identity'], { preferred: offered });
  return chosen === 'br' || chosen === 'gzip' ? chosen : null;
}

/** Whether `response` is text the client could be sent compressed (whatever it accepts). */
function compressible(response: HttpResponse): boolean {
  const { status, headers, body } = response;
  if (status < 200 || status === 204 || status === 206 || status === 304) return false;
  if (headers['content-encoding'] !== undefined) return false;
  if (!compressibleType.test(String(headers['content-type'] ?? ''))) return false;
  if (typeof body === 'string' || body instanceof Uint8Array) return bodyLength(body) >= compressionThreshold;
  // A generated stream (no length known up front), not a stored file.
  return body instanceof Readable && headers['content-length'] === undefined;
}

/** `response` as it goes to a client sending `acceptEncoding` (unchanged when not worth compressing). */
export async function compressed(response: HttpResponse, acceptEncoding: string | null, method: string): Promise<HttpResponse> {
  if (method === 'HEAD' || !compressible(response)) return response;
  appendHeader(response, 'vary', 'accept-encoding');
  const encoding = negotiated(acceptEncoding);
  if (!encoding) return response;
  const { body } = response;
  response.headers['content-encoding'] = encoding;
  delete response.headers['content-length'];
  if (body instanceof Readable) {
    const encoder = encoding === 'br' ? zlib.createBrotliCompress(brotliOptions()) : zlib.createGzip();
    // A failure on either side ends both: the answer then stops short, as an uncompressed one would.
    pipeline(body, encoder).catch(() => {});
    return { ...response, body: encoder };
  }
  const bytes = body as string | Uint8Array;
  return { ...response, body: encoding === 'br' ? await brotli(bytes, brotliOptions(bodyLength(bytes))) : await gzip(bytes) };
}
