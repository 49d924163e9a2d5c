// Uploads, REST and GraphQL alike. POST /api/v1/media/upload is multipart, so an HTTP declaration (run
// in the request pipeline, which checks uploadMedia's rule (media:write) and the upload body limit first); GraphQL's
// uploadMedia takes the files of a multipart /graphql request (graphql/endpoint.ts) and calls
// uploadMediaFiles. Both receive and judge every file first (upload.ts), then store the batch and record it: all or nothing.
// If any file is refused, nothing is stored and the answer is 400 `Upload rejected` with
// `details.files[{filename, reason}]`. Otherwise the files are moved into storage before the request's
// transaction opens (the route declares its network I/O `first`: no connection is held meanwhile), then
// recorded in one statement; the pipeline commits. If the request fails after storing, its commit
// included, the stored files are removed (db.onRollback), so there is never a record without a file
// nor a stored file without a record.
import { randomUUID } from 'node:crypto';
import type { FileUpload } from 'graphql-upload-minimal';
import type { Context } from '../../graphql/context.js';
import type { HttpRequest, HttpResponse } from '../../http/exchange.js';
import { success } from '../../rest/envelope.js';
import { defineHttpRoute } from '../../rest/http-route.js';
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { recordUploads, uploadTeam, type ContentDuplicate, type MediaView, type StoredUpload } from './service.js';
import { mediaStorageKey, removeStoredFiles, type MediaStorage, type StoredFile } from './storage.js';
import { mediaOpenApiPaths } from './openapi.js';
import { discard, receiveFiles, receiveUploads, uploadRequestLimit, type FileVerdict, type IncomingFile, type Received, type ReceivedFile } from './upload.js';

/** What a successful upload answers: REST's `data`, GraphQL's MediaUpload. */
export interface UploadAnswer {
  message: string;
  urls: string[];
  media: MediaView[];
  count: number;
  /** The storage driver holding the files. */
  storage: string;
  duplicates: ContentDuplicate[];
  skipped: FileVerdict[];
}

/** POST /api/v1/media/upload: multipart, streamed to storage, then recorded. */
export const uploadRoute = defineHttpRoute({
  methods: ['POST'],
  path: '/api/v1/media/upload',
  pipeline: true,
  ruleOf: 'Mutation.uploadMedia',
  errorCodes: false,
  bodyLimitBytes: (config) => uploadRequestLimit(config.media),
  // Receiving and storing the files come before the transaction; recording them is the database phase.
  networkIo: 'first',
  openApi: mediaOpenApiPaths['/api/v1/media/upload'],
  start: () => handleUpload,
});

/** The network phase of one upload request, as the context's caller: receives and stores the files; returns the phase that records them. */
export async function handleUpload(request: HttpRequest, ctx: Context): Promise<() => Promise<HttpResponse>> {
  // Who may upload where is known from the caller alone: refused before a byte of the body is read.
  const teamId = uploadTeam(ctx, request.header('x-team-id'));
  const storage = ctx.services.get(mediaStorageKey);
  const received = await receiveUploads(ctx.config.media, request.header('content-type'), request.body, await storage.spoolDir(), ctx.config.uploadIdleTimeoutMs);
  const stored = await storeReceived(ctx, received, storage, 'the multipart field "files"');
  return async () => success(200, await recordStored(ctx, teamId, received, stored));
}

// ---- GraphQL ---------------------------------------------------------------------------------------

/** uploadMedia(files, teamId): the Upload values of a multipart GraphQL request, as POST /media/upload takes them. */
export async function uploadMediaFiles(ctx: Context, files: Promise<FileUpload>[], teamId: string | null): Promise<UploadAnswer> {
  // As with x-team-id: refused before a byte of a file is read.
  const team = uploadTeam(ctx, teamId, 'teamId');
  // Upload values exist only in multipart requests (the Upload scalar takes nothing else).
  const storage = ctx.services.get(mediaStorageKey);
  const spoolDir = await storage.spoolDir();
  const received = await receiveFiles(ctx.config.media, incomingFiles(files), spoolDir);
  return recordStored(ctx, team, received, await storeReceived(ctx, received, storage, 'the argument files'));
}

/** Uploads files given in process (the operators' CLI's demo data) as the scope's caller, exactly as an upload request would: judged, stored, recorded (the scope's unit of work commits). */
export async function uploadFiles(scope: RequestScope, files: IncomingFile[], teamId: string | null): Promise<UploadAnswer> {
  const team = uploadTeam(scope, teamId, 'teamId');
  const storage = scope.services.get(mediaStorageKey);
  const received = await receiveFiles(scope.config.media, files.map((file) => Promise.resolve(file)), await storage.spoolDir());
  return recordStored(scope, team, received, await storeReceived(scope, received, storage, 'the files given'));
}

/** Upload values as files to receive. graphql-upload-minimal streams each file once: a file given twice is refused. */
function incomingFiles(files: Promise<FileUpload>[]): Promise<IncomingFile>[] {
  const taken = new Set<FileUpload>();
  return files.map((upload) => {
    const incoming = upload.then((file) => {
      if (taken.has(file)) throw new AppError('VALIDATION_ERROR', `The file "${file.filename}" is given more than once: each file of a request goes to one place`);
      taken.add(file);
      return { filename: file.filename, mimeType: file.mimetype, stream: file.createReadStream() };
    });
    incoming.catch(() => {}); // reported by receiveFiles (which may refuse the batch before waiting for it)
    return incoming;
  });
}

// ---- the two steps after receiving ----------------------------------------------------------------

type Stored = { file: ReceivedFile; object: StoredFile }[];

/**
 * All or nothing: a refused file refuses the batch (400 `Upload rejected`); else every file is moved
 * into storage, before any statement of the request (an upload to S3 or a blob service may take
 * seconds: no connection is held meanwhile), and removed again if the request then fails, its commit
 * included. `field` names where files go, for the answer to an empty batch.
 */
async function storeReceived(ctx: RequestScope, received: Received, storage: MediaStorage, field: string): Promise<Stored> {
  if (received.rejected.length) {
    await discard(received.files);
    throw new AppError('VALIDATION_ERROR', 'Upload rejected', { files: received.rejected });
  }
  if (!received.files.length) {
    throw new AppError('VALIDATION_ERROR', `No files to upload: send one or more non-empty files in ${field}`, { files: received.skipped });
  }
  const stored = await store(storage, received.files);
  ctx.db.onRollback(() => unstore(storage, stored));
  return stored;
}

/** Records stored files in `teamId`, in one statement (the request's transaction opens there), and answers for them. */
async function recordStored(ctx: RequestScope, teamId: string, received: Received, stored: Stored): Promise<UploadAnswer> {
  const { media, duplicates } = await recordUploads(ctx, teamId, stored.map(({ file, object }) => toUpload(file, object)));
  const count = media.length;
  return {
    message: `${count} file${count === 1 ? '' : 's'} uploaded successfully`,
    urls: media.map((m) => m.url),
    media,
    count,
    // Where the files went: the driver holding all of them (local when a hosted-blob upload fell
    // back); `mixed` when the blob service failed partway through the batch (each url says where).
    storage: stored.every(({ object }) => object.driver === stored[0]!.object.driver) ? stored[0]!.object.driver : 'mixed',
    duplicates,
    skipped: received.skipped,
  };
}

/** Moves every received file into storage under a generated key; on a failure, undoes them all. */
async function store(storage: MediaStorage, files: ReceivedFile[]): Promise<Stored> {
  const stored: Stored = [];
  try {
    for (const file of files) stored.push({ file, object: await storage.put(file.spoolPath, `${randomUUID()}.${file.ext}`, file.mimeType) });
    return stored;
  } catch (error) {
    await unstore(storage, stored);
    await discard(files);
    throw error;
  }
}

/** Undoes stored files whose batch failed, or whose request did; the failure is the one reported. */
async function unstore(storage: MediaStorage, stored: { object: StoredFile }[]): Promise<void> {
  await removeStoredFiles(storage, stored.map(({ object }) => object.key)).catch(() => {});
}

function toUpload(file: ReceivedFile, object: StoredFile): StoredUpload {
  return {
    filename: file.filename,
    fileSize: file.size,
    mimeType: file.mimeType,
    width: file.width,
    height: file.height,
    sha256: file.sha256,
    url: object.url,
    storageDriver: object.driver,
    storageKey: object.key,
  };
}
