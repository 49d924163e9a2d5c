// The GraphQL multipart request spec (file uploads): a POST of multipart/form-data whose fields are
// `operations` (the GraphQL request as JSON), `map` (which file part goes to which variable) and then
// the files. graphql-upload-minimal's processRequest reads it: it answers the operations as soon as the
// map is read, with an Upload in each mapped place whose promise gives the file's stream when its part
// begins; the files are read by resolvers as they arrive, never held whole. What endpoint.ts needs
// around it is here: feeding it the app's request, cutting the body off at the upload limit, finding
// the Uploads, dropping files no resolver reads, and the CSRF rule for bodies a cross-site form can send.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { getNamedType, isInputObjectType, isScalarType, Kind, typeFromAST, type DocumentNode, type GraphQLInputType, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { processRequest, Upload } from 'graphql-upload-minimal';
import type { HttpRequest } from '../http/exchange.js';
import { AppError } from '../shared/errors.js';

export interface MultipartLimits {
  /** The largest body (the upload limit). */
  bodyLimitBytes: number;
  /** The largest `operations` or `map` field (BODY_LIMIT_BYTES, as a JSON request). */
  fieldLimitBytes: number;
  maxFiles: number;
}

/** A request refused before it runs, as a GraphQL error's parts. */
export interface Refusal {
  message: string;
  code: string;
  status: number;
}

/** Headers that only a script can set (a form cannot): one of them lets a multipart or url-encoded POST through. */
const preflightHeaders = ['graphql-preflight', 'apollo-require-preflight', 'x-apollo-operation-name'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether this is a multipart POST (a GraphQL request with files): its body limit is the upload limit. */
export function isMultipartRequest(request: HttpRequest): boolean {
  return request.method === 'POST' && /^multipart\/form-data\b/i.test(request.header('content-type') ?? '');
}

/**
 * Whether this POST has a body a cross-site HTML form can send (multipart, url-encoded) without a
 * header that proves a script sent it (a JSON body cannot be sent cross-site without a CORS preflight).
 */
export function isFormPostWithoutPreflight(request: HttpRequest): boolean {
  const formBody = isMultipartRequest(request) || (request.method === 'POST' && /^application\/x-www-form-urlencoded\b/i.test(request.header('content-type') ?? ''));
  return formBody && !preflightHeaders.some((name) => request.header(name));
}

/** A multipart request's body as processRequest reads it, cut off past the upload limit. */
export interface MultipartBody {
  /** Settles when the body was read to its end, failed, or was stopped. */
  ended: Promise<void>;
  /** The 413 when the body went past the limit (processRequest itself reports it as a disconnect). */
  readonly tooLarge: AppError | undefined;
  /** Reads no more of it (the answer then closes the connection). */
  stop(): void;
}

/**
 * Reads `operations` and `map` (the files follow, read by resolvers): the operations with an Upload in
 * each mapped place and every Upload placed, or why the request is refused. A body over the limit is a 413.
 */
export async function readOperations(
  request: HttpRequest,
  limits: MultipartLimits,
): Promise<{ operations: unknown; uploads: Set<Upload>; body: MultipartBody } | { refusal: Refusal }> {
  // processRequest wants node's IncomingMessage but uses only a Readable with `headers` (pipe,
  // unpipe, once, resume, readableEnded): Readable.from over the app's body gives that.
  const stream = Object.assign(Readable.from(byteLimited(request.body, limits.bodyLimitBytes)), { headers: { 'content-type': request.header('content-type') ?? '' } });
  let tooLarge: AppError | undefined;
  stream.on('error', (error) => {
    if (error instanceof AppError) tooLarge = error;
  });
  const body: MultipartBody = {
    ended: new Promise<void>((resolve) => stream.once('close', () => resolve())),
    get tooLarge() {
      return tooLarge;
    },
    stop: () => void stream.destroy(),
  };
  try {
    const operations = await processRequest(stream as unknown as IncomingMessage, undefined as unknown as ServerResponse, {
      maxFieldSize: limits.fieldLimitBytes,
      maxFiles: limits.maxFiles,
    });
    return { operations, uploads: uploadsIn(operations), body };
  } catch (error) {
    body.stop();
    if (tooLarge) throw tooLarge;
    return { refusal: refusalOf(error, limits.maxFiles) };
  }
}

async function* byteLimited(body: AsyncIterable<Uint8Array>, limit: number): AsyncGenerator<Uint8Array> {
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.byteLength;
    if (seen > limit) throw new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${limit} bytes`);
    yield chunk;
  }
}

/** processRequest's refusal (its errors carry an HTTP status), as the endpoint answers it. */
function refusalOf(error: unknown, maxFiles: number): Refusal {
  const status = (error as { status?: unknown } | null)?.status;
  const message = error instanceof Error ? error.message : String(error);
  if (status === 413 && /max file uploads exceeded/.test(message)) return { message: `Too many files: at most ${maxFiles} per request`, code: 'VALIDATION_ERROR', status: 400 };
  if (status === 413) return { message, code: 'PAYLOAD_TOO_LARGE', status: 413 };
  // 500: no field at all, which it takes for another middleware having read the body.
  const reason = status === 500 ? "Missing multipart field 'operations'" : message;
  return { message: `Malformed multipart request: ${reason}`, code: 'BAD_REQUEST', status: 400 };
}

/** Every Upload in `value` (without recursion: operations may nest deeply). */
export function uploadsIn(value: unknown): Set<Upload> {
  const found = new Set<Upload>();
  const pending = [value];
  while (pending.length) {
    const next = pending.pop();
    if (next instanceof Upload) found.add(next);
    else if (Array.isArray(next)) for (const item of next) pending.push(item);
    else if (isObject(next)) for (const key in next) pending.push(next[key]);
  }
  return found;
}

/** Reads and drops a file no resolver took (or does nothing: it was taken, or never came). */
export function drain(upload: Upload): void {
  upload.promise.then(
    (file) => {
      let stream: Readable;
      try {
        stream = file.createReadStream();
      } catch {
        return; // already taken
      }
      stream.on('error', () => {});
      stream.resume();
    },
    () => {},
  );
}

/** The Uploads a resolver may read: those in the operation's variables whose type can hold one. */
export function claimedUploads(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined): Set<Upload> {
  const holdsUpload = (type: GraphQLInputType | undefined, seen = new Set<string>()): boolean => {
    const named = type && getNamedType(type);
    if (!named || seen.has(named.name)) return false;
    seen.add(named.name);
    if (isScalarType(named)) return named.name === 'Upload';
    return isInputObjectType(named) && Object.values(named.getFields()).some((field) => holdsUpload(field.type, seen));
  };
  const names = (operation.variableDefinitions ?? []).filter((d) => holdsUpload(typeFromAST(schema, d.type) as GraphQLInputType | undefined)).map((d) => d.variable.name.value);
  return uploadsIn(names.map((name) => variables?.[name]));
}

/** How many root fields the operation selects (through fragments; __typename aside). */
export function rootFieldCount(document: DocumentNode, selectionSet: SelectionSetNode, spread = new Set<string>()): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) count += selection.name.value === '__typename' ? 0 : 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += rootFieldCount(document, selection.selectionSet, spread);
    else if (!spread.has(selection.name.value)) {
      spread.add(selection.name.value);
      const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value);
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) count += rootFieldCount(document, fragment.selectionSet, spread);
    }
  }
  return count;
}

/** The operations as a JSON request body (files as null): for yoga to answer operations the endpoint will not run. */
export function asJsonRequest(request: HttpRequest, operations: unknown): { request: HttpRequest; body: string } {
  const replaced = (name: string) => name === 'content-type' || name === 'content-length';
  return {
    request: {
      ...request,
      header: (name) => (name === 'content-type' ? 'application/json' : replaced(name) ? null : request.header(name)),
      headerEntries: () => [...request.headerEntries().filter(([name]) => !replaced(name)), ['content-type', 'application/json']],
    },
    body: JSON.stringify(operations, (_key, value: unknown) => (value instanceof Upload ? null : value)),
  };
}
