// Reading a JSON request body: content type checked, size bounded while streaming, syntax errors as 400.
import type { HttpRequest } from './exchange.js';
import { AppError } from '../shared/errors.js';

/** Reads the body as text, failing with 413 as soon as it exceeds `limit` bytes. */
export async function readLimitedText(request: HttpRequest, limit: number): Promise<string> {
  const declared = Number(request.header('content-length') ?? 'NaN');
  if (declared > limit) throw tooLarge(limit);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    // Leaving the loop early destroys the stream: the rest of an oversized body is never buffered.
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? Buffer.from(chunks[0]!).toString('utf8') : Buffer.concat(chunks).toString('utf8');
}

function tooLarge(limit: number) {
  return new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${limit} bytes`);
}

const jsonType = /^application\/([a-z.+-]*\+)?json\b/i;

/** Whether a Content-Type header names JSON (application/json or application/*+json). */
export function isJsonContentType(type: string | null): boolean {
  return jsonType.test(type ?? '');
}

/** The parsed JSON body of a request that must carry one. */
export async function readJsonBody(request: HttpRequest, limit: number): Promise<unknown> {
  if (!isJsonContentType(request.header('content-type'))) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
  const text = await readLimitedText(request, limit);
  if (text.trim() === '') throw new AppError('VALIDATION_ERROR', 'Request body is empty; a JSON object is expected');
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Malformed JSON in request body');
  }
  const at = nulPath(body);
  if (at !== null) throw new AppError('VALIDATION_ERROR', 'Text cannot contain NUL (\\u0000) characters', { path: at || '(body)' });
  return body;
}

/**
 * Where a NUL character is in a parsed JSON value (a key or a string), as a dotted path; null when
 * nowhere. PostgreSQL text cannot hold NUL, so it is refused at the edge; every other character,
 * control characters included, is kept as sent (JSON escapes them on the way out).
 */
export function nulPath(value: unknown): string | null {
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length) {
    const [next, path] = pending.pop()!;
    if (typeof next === 'string') {
      if (next.includes('\u0000')) return path;
    } else if (Array.isArray(next)) {
      next.forEach((item, i) => pending.push([item, path ? `${path}.${i}` : String(i)]));
    } else if (typeof next === 'object' && next !== null) {
      for (const [key, item] of Object.entries(next)) {
        const at = path ? `${path}.${key}` : key;
        if (key.includes('\u0000')) return at;
        pending.push([item, at]);
      }
    }
  }
  return null;
}
