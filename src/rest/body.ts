// Reading a JSON request body: content type checked, size bounded while streaming, syntax errors as 400.
import { AppError } from '../shared/errors.js';

/** Reads the body as text, failing with 413 as soon as it exceeds `limit` bytes. */
export async function readLimitedText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? 'NaN');
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(limit: number) {
  return new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${limit} bytes`);
}

/** The parsed JSON body of a request that must carry one. */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
  const text = await readLimitedText(request, limit);
  if (text.trim() === '') throw new AppError('VALIDATION_ERROR', 'Request body is empty; a JSON object is expected');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Malformed JSON in request body');
  }
}
