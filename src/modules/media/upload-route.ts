// POST /api/v1/media/upload: multipart, so not a route declaration (src/app.ts calls this inside the
// request's context). All or nothing: every file is received and checked first (upload.ts); if any is
// refused, nothing is stored and the answer is 400 `Upload rejected` with `details.files[{filename,
// reason}]`. Otherwise the files are moved into storage, then recorded in one statement, and the
// transaction is committed before answering; a failure on the way removes what was stored, so there
// is never a record without a file nor a stored file without a record.
import { randomUUID } from 'node:crypto';
import type { MediaConfig } from '../../config/media.js';
import type { Context } from '../../graphql/context.js';
import type { HttpRequest, HttpResponse } from '../../http/exchange.js';
import { success } from '../../rest/envelope.js';
import { AppError } from '../../shared/errors.js';
import { recordUploads, uploadTeam, type StoredUpload } from './service.js';
import type { MediaStorage, StoredFile } from './storage.js';
import { discard, receiveUploads, type ReceivedFile } from './upload.js';

/** Handles one upload request as the context's caller. */
export async function handleUpload(request: HttpRequest, ctx: Context, config: MediaConfig, storage: MediaStorage): Promise<HttpResponse> {
  // Who may upload where is known from the caller alone: refused before a byte of the body is read.
  const teamId = uploadTeam(ctx, request.header('x-team-id'));
  const received = await receiveUploads(config, request.header('content-type'), request.body, await storage.spoolDir());
  if (received.rejected.length) {
    await discard(received.files);
    throw new AppError('VALIDATION_ERROR', 'Upload rejected', { files: received.rejected });
  }
  if (!received.files.length) {
    throw new AppError('VALIDATION_ERROR', 'No files to upload: send one or more non-empty files in the multipart field "files"', { files: received.skipped });
  }
  const stored = await store(storage, received.files);
  try {
    const { media, duplicates } = await recordUploads(ctx, teamId, stored.map(({ file, object }) => toUpload(file, object)));
    await ctx.db.finish(true);
    const count = media.length;
    return success(200, {
      message: `${count} file${count === 1 ? '' : 's'} uploaded successfully`,
      urls: media.map((m) => m.url),
      media,
      count,
      // Where the files went: the configured driver, or local when a hosted-blob upload fell back.
      storage: stored[0]!.object.driver,
      duplicates,
      skipped: received.skipped,
    });
  } catch (error) {
    await Promise.all(stored.map(({ object }) => storage.remove(object.key).catch(() => {})));
    throw error;
  }
}

/** Moves every received file into storage under a generated key; on a failure, undoes them all. */
async function store(storage: MediaStorage, files: ReceivedFile[]): Promise<{ file: ReceivedFile; object: StoredFile }[]> {
  const stored: { file: ReceivedFile; object: StoredFile }[] = [];
  try {
    for (const file of files) stored.push({ file, object: await storage.put(file.spoolPath, `${randomUUID()}.${file.ext}`, file.mimeType) });
    return stored;
  } catch (error) {
    await Promise.all(stored.map(({ object }) => storage.remove(object.key).catch(() => {})));
    await discard(files);
    throw error;
  }
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
