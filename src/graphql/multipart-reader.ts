// Reading a GraphQL multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec)
// with busboy: `operations` (JSON), then `map` (file part name → places in the operations), then the
// files. The operations are answered as soon as the map is read, with an Upload in each mapped place
// whose promise gives the file's stream when its part begins. This replaces graphql-upload-minimal's
// processRequest (its Upload class stays: the Upload scalar takes it), which one anonymous request could
// break: it listened once for parser errors (busboy emits a second one when destroyed mid-part, and
// the process died of it), and it placed Uploads along map paths through inherited members
// (`variables.hasOwnProperty.call` replaced Function.prototype.call for the whole process).
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { Upload, type FileUpload } from 'graphql-upload-minimal';
import { feedParser } from '../http/multipart-feed.js';
import { AppError } from '../shared/errors.js';

export interface MultipartReadLimits {
  bodyLimitBytes: number;
  /** The largest `operations` or `map` field. */
  fieldLimitBytes: number;
  maxFiles: number;
  /** A body that sends nothing for this long is abandoned. */
  idleMs: number;
}

/** An Upload as graphql-upload-minimal builds it (its typings leave these out). */
type SettledUpload = Upload & { resolve(file: FileUpload): void; reject(error: Error): void };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Names no path step may take: they reach prototypes, not data. */
const unsafeKeys = new Set(['__proto__', 'constructor', 'prototype']);

const malformed = (reason: string) => new AppError('BAD_REQUEST', `Malformed multipart request: ${reason}`);

/**
 * Puts `upload` at `path` (dot-separated) in the operations: each step must be an own member of a
 * plain object or an existing index of an array (a client sends null where a file goes), so a path
 * can neither reach a prototype nor grow an array.
 */
function placeUpload(operations: unknown, path: string, upload: Upload): void {
  const steps = path.split('.');
  let at: unknown = operations;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (unsafeKeys.has(step)) throw malformed(`the map path "${path}" is not a place in the operations`);
    const last = i === steps.length - 1;
    if (Array.isArray(at)) {
      const index = /^\d{1,9}$/.test(step) ? Number(step) : -1;
      if (index < 0 || index >= at.length) throw malformed(`the map path "${path}" is not a place in the operations`);
      if (last) at[index] = upload;
      else at = at[index];
    } else if (isObject(at) && (last || Object.hasOwn(at, step))) {
      if (last) at[step] = upload;
      else at = at[step];
    } else {
      throw malformed(`the map path "${path}" is not a place in the operations`);
    }
  }
}

/** The map field: part name → Upload, each placed in the operations. */
function readMap(value: string, operations: unknown, maxFiles: number): Map<string, SettledUpload> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw malformed("the 'map' field is not JSON");
  }
  if (!isObject(parsed)) throw malformed("the 'map' field must be a JSON object");
  const entries = Object.entries(parsed);
  if (entries.length > maxFiles) throw new AppError('VALIDATION_ERROR', `Too many files: at most ${maxFiles} per request`);
  const map = new Map<string, SettledUpload>();
  for (const [name, paths] of entries) {
    if (!Array.isArray(paths) || !paths.every((p): p is string => typeof p === 'string' && p.trim() !== '')) throw malformed(`the map entry "${name}" must be an array of paths`);
    const upload = new Upload() as SettledUpload;
    map.set(name, upload);
    for (const path of paths) placeUpload(operations, path, upload);
  }
  return map;
}

/** A multipart request being read: the operations once the map is in, and the rest of the body. */
export interface MultipartRead {
  /** The operations with their Uploads (rejects with an AppError: malformed, too large, stalled). */
  operations: Promise<{ operations: unknown; uploads: Map<string, Upload> }>;
  /** Settles when the body was read to its end, failed (with why), or was stopped. */
  ended: Promise<AppError | undefined>;
  /** Reads no more of it (the answer then closes the connection). */
  stop(): void;
  /** The 413 the body got past its limit, if it did. */
  tooLarge(): AppError | undefined;
}

/** Starts reading a multipart GraphQL request; every error ends as a rejected promise above, never an uncaught one. */
export function readMultipart(contentType: string, body: AsyncIterable<Uint8Array>, limits: MultipartReadLimits): MultipartRead {
  let parser: busboy.Busboy;
  try {
    if (!/^multipart\/form-data\b/i.test(contentType)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'A multipart GraphQL request must be multipart/form-data (the GraphQL multipart request spec)');
    parser = busboy({
      headers: { 'content-type': contentType },
      defParamCharset: 'utf8',
      limits: { fieldSize: limits.fieldLimitBytes, fields: 2, files: limits.maxFiles, parts: limits.maxFiles + 2 },
    });
  } catch (error) {
    const refused = error instanceof AppError ? error : malformed(error instanceof Error ? error.message : 'unreadable Content-Type');
    const operations = Promise.reject(refused);
    operations.catch(() => {});
    return { operations, ended: Promise.resolve(refused), stop: () => {}, tooLarge: () => undefined };
  }
  let operations: unknown;
  let map: Map<string, SettledUpload> | undefined;
  let failure: AppError | undefined;
  let answer!: { resolve: (value: { operations: unknown; uploads: Map<string, Upload> }) => void; reject: (error: AppError) => void };
  const read = new Promise<{ operations: unknown; uploads: Map<string, Upload> }>((resolve, reject) => (answer = { resolve, reject }));
  read.catch(() => {});
  const stopper = new AbortController();
  let tooLarge: AppError | undefined;

  /** The first failure wins: the operations are refused, or the files still awaited fail with it. */
  const fail = (error: AppError) => {
    failure ??= error;
    answer.reject(failure);
    for (const upload of map?.values() ?? []) if (!upload.file) upload.reject(failure);
  };
  const guarded = (work: () => void) => {
    try {
      work();
    } catch (error) {
      fail(error instanceof AppError ? error : malformed(String(error)));
    }
  };

  parser.on('field', (name, value, info) =>
    guarded(() => {
      if (failure) return;
      if (info.valueTruncated) throw new AppError('PAYLOAD_TOO_LARGE', `The '${name}' multipart field exceeds ${limits.fieldLimitBytes} bytes`);
      if (name === 'operations') {
        if (operations !== undefined) throw malformed("the 'operations' field is given twice");
        try {
          operations = JSON.parse(value);
        } catch {
          throw malformed("the 'operations' field is not JSON");
        }
        if (typeof operations !== 'object' || operations === null) throw malformed("the 'operations' field must be a JSON object or array");
      } else if (name === 'map') {
        if (operations === undefined) throw malformed("the 'map' field must follow 'operations'");
        if (map) throw malformed("the 'map' field is given twice");
        map = readMap(value, operations, limits.maxFiles);
        answer.resolve({ operations, uploads: map });
      }
    }),
  );
  parser.on('file', (name, stream: Readable, info) => {
    stream.on('error', () => {}); // a reader sees it through its own iteration; nobody else must crash on it
    const upload = map?.get(name);
    if (!map && !failure) fail(malformed("files must follow the 'map' field"));
    // A part no map entry names, or named twice: read and dropped.
    if (!upload || upload.file || failure) {
      stream.resume();
      return;
    }
    let taken = false;
    upload.resolve({
      fieldName: name,
      filename: info.filename ?? '',
      mimetype: info.mimeType,
      encoding: info.encoding,
      createReadStream() {
        if (taken) throw new AppError('VALIDATION_ERROR', `The file part "${name}" is read more than once`);
        taken = true;
        return stream as ReturnType<FileUpload['createReadStream']>;
      },
    });
  });
  parser.on('filesLimit', () => fail(new AppError('VALIDATION_ERROR', `Too many files: at most ${limits.maxFiles} per request`)));
  parser.on('partsLimit', () => fail(malformed(`too many parts: at most ${limits.maxFiles} files and the two fields`)));

  const ended = feedParser(parser, body, { limitBytes: limits.bodyLimitBytes, idleMs: limits.idleMs }, stopper.signal).then(
    () => {
      // The whole body is in: what it lacked is refused.
      if (operations === undefined) fail(malformed("missing the 'operations' field"));
      else if (!map) fail(malformed("missing the 'map' field"));
      else for (const [name, upload] of map) if (!upload.file) upload.reject(malformed(`the file part "${name}" named in the map is not in the request`));
      return failure;
    },
    (error: unknown) => {
      if (error instanceof AppError && error.code === 'PAYLOAD_TOO_LARGE') tooLarge = error;
      fail(error instanceof AppError ? error : malformed(error instanceof Error ? error.message : String(error)));
      return failure;
    },
  );
  return { operations: read, ended, stop: () => stopper.abort(), tooLarge: () => tooLarge };
}
