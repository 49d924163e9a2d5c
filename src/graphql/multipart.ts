// The GraphQL multipart request spec (file uploads): a POST of multipart/form-data whose fields are
// `operations` (the GraphQL request as JSON), `map` (which file part goes to which variable) and then
// the files. The operations are answered as soon as the map is read, with an Upload in each mapped
// place whose promise gives the file's stream when its part begins; the files are read by resolvers as they arrive, never held whole (multipart-reader.ts reads
// the parts). What endpoint.ts needs around it is here: the Uploads found, files no resolver reads
// dropped, and the CSRF rule for bodies a cross-site form can send.
import type { Readable } from 'node:stream';
import { getNamedType, isInputObjectType, isScalarType, Kind, typeFromAST, type DocumentNode, type GraphQLInputType, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { Upload } from 'graphql-upload-minimal';
import type { HttpRequest } from '../http/exchange.js';
import { AppError } from '../shared/errors.js';
import { readMultipart } from './multipart-reader.js';

export interface MultipartLimits {
  /** The largest body (the upload limit). */
  bodyLimitBytes: number;
  /** The largest `operations` or `map` field (BODY_LIMIT_BYTES, as a JSON request). */
  fieldLimitBytes: number;
  maxFiles: number;
  /** A body that sends nothing for this long is abandoned (a file the map names that never comes). */
  idleMs: number;
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

/**
 * Whether this is a multipart POST (a GraphQL request with files): its body limit is the upload limit.
 * Any multipart type counts (read here, refused unless form-data), so none is left to yoga's bodiless 415.
 */
export function isMultipartRequest(request: HttpRequest): boolean {
  return request.method === 'POST' && /^multipart\//i.test(request.header('content-type') ?? '');
}

/**
 * Whether this POST has a body a cross-site HTML form can send (multipart, url-encoded) without a
 * header that proves a script sent it (a JSON body cannot be sent cross-site without a CORS preflight).
 */
export function isFormPostWithoutPreflight(request: HttpRequest): boolean {
  const formBody = isMultipartRequest(request) || (request.method === 'POST' && /^application\/x-www-form-urlencoded\b/i.test(request.header('content-type') ?? ''));
  return formBody && !preflightHeaders.some((name) => request.header(name));
}

/** A multipart request's body after its operations were read. */
export interface MultipartBody {
  /** Settles when the body was read to its end, failed, or was stopped. */
  ended: Promise<void>;
  /** The 413 when the body went past the limit. */
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
  const reading = readMultipart(request.header('content-type') ?? '', request.body, limits);
  let failure: AppError | undefined;
  const body: MultipartBody = {
    ended: reading.ended.then((why) => void (failure = why)),
    get tooLarge() {
      return failure === reading.tooLarge() ? failure : undefined;
    },
    stop: reading.stop,
  };
  try {
    const { operations, uploads } = await reading.operations;
    return { operations, uploads: new Set(uploads.values()), body };
  } catch (error) {
    reading.stop();
    const refused = error instanceof AppError ? error : new AppError('BAD_REQUEST', 'Malformed multipart request');
    if (refused === reading.tooLarge()) throw refused;
    return { refusal: { message: refused.message, code: refused.code, status: refused.status } };
  }
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
