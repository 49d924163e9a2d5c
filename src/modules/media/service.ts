// The media library: records (registered or uploaded), their metadata, soft delete, duplicates, the
// rendition cache's bookkeeping, and the team's tag taxonomy. The words: a caller reads the active
// records of every team they belong to; new records and tags go to the caller's active team (uploads:
// the team named by x-team-id); only members who may write (every role but viewer) change anything; a
// record that is deleted or outside the caller's teams is "Media not found". The scopes (media:read,
// media:write, media:delete) are declared on the GraphQL fields and HTTP declarations, not checked here.
import type { AuthenticatedActor } from '../../auth/actor.js';
import type { SystemDb } from '../../db/request-db.js';
import { AppError, forbidden, unauthenticated } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { isUuid } from '../../shared/validation.js';
import { tagSlug, type CheckDuplicatesInput, type CreateMediaInput, type CreateTagInput, type ListMediaQuery, type UpdateMediaInput } from './inputs.js';
import { assertCanWriteTeamData } from '../teams/service.js';
import * as repo from './repository.js';
import * as tags from './tag-repository.js';
import { mediaStorageKey, removeStoredFiles } from './storage.js';

export type MediaView = repo.MediaRow;
export type TagView = tags.TagRow;

export interface MediaPage {
  items: MediaView[];
  total: number;
  limit: number;
  offset: number;
}

export interface DuplicateMatch {
  id: string;
  url: string;
  createdAt: Date;
}

export interface NameDuplicate {
  filename: string;
  fileSize: number;
  existing: DuplicateMatch[];
}

const mediaNotFound = () => new AppError('NOT_FOUND', 'Media not found');
const tagNotFound = () => new AppError('NOT_FOUND', 'Tag not found');

/**
 * The signed-in caller. Scopes are not checked here: the fields that call in (schema.ts) and the
 * upload and rendition HTTP declarations (upload-route.ts, render-route.ts) declare theirs, and
 * scope-auth or the request pipeline enforces them before any of this runs.
 */
function caller(scope: RequestScope): AuthenticatedActor {
  const { actor } = scope;
  if (actor.kind !== 'user') throw unauthenticated();
  return actor;
}

const teamIdsOf = (actor: AuthenticatedActor) => actor.teams.map((t) => t.teamId);

/** `teamId` when the caller may write there: a member whose role is not viewer. */
function writableTeam(actor: AuthenticatedActor, teamId: string | null): string {
  const membership = teamId ? actor.teams.find((t) => t.teamId === teamId) : undefined;
  if (!membership) throw forbidden(teamId ? 'Not a member of this team' : 'No active team');
  assertCanWriteTeamData(membership.role, 'team media');
  return membership.teamId;
}

/** The team an upload goes to: the one named by x-team-id (REST) or the `teamId` argument (GraphQL), one of the caller's, else the active team. */
export function uploadTeam(scope: RequestScope, requestedTeamId: string | null, namedIn: 'x-team-id' | 'teamId' = 'x-team-id'): string {
  const actor = caller(scope);
  if (requestedTeamId && !actor.teams.some((t) => t.teamId === requestedTeamId)) throw forbidden(`Not a member of the team named in ${namedIn}`);
  return writableTeam(actor, requestedTeamId || actor.activeTeamId);
}

/** An active record in the caller's teams, or 404. */
async function visibleMedia(scope: RequestScope, actor: AuthenticatedActor, id: string): Promise<MediaView> {
  if (!isUuid(id)) throw mediaNotFound();
  const record = await repo.findActiveMedia(await scope.db.tx(), id, teamIdsOf(actor));
  if (!record) throw mediaNotFound();
  return record;
}

export async function listMedia(scope: RequestScope, q: ListMediaQuery): Promise<MediaPage> {
  const actor = caller(scope);
  const tagIds = q.tagIds?.filter(isUuid);
  // Tag ids that are not UUIDs name no tag: the filter then matches nothing, it is not an error.
  if (q.tagIds && !tagIds?.length) return { items: [], total: 0, limit: q.limit, offset: q.offset };
  const { rows, total } = await repo.listMedia(await scope.db.tx(), {
    teamIds: teamIdsOf(actor),
    limit: q.limit,
    offset: q.offset,
    orderBy: q.orderBy,
    orderDir: q.orderDir,
    mimePrefix: q.type === 'all' ? null : `${q.type}/`,
    search: q.search || null,
    tagIds: tagIds ?? null,
    tagSlugs: q.tagSlugs?.map((s) => s.toLowerCase()) ?? null,
  });
  return { items: rows, total, limit: q.limit, offset: q.offset };
}

/**
 * The media of `ids` as an entity record's media fields show them (`expand=attachment`): each active
 * record the caller can see, or null. Anonymous readers (public entities) see none.
 */
export async function mediaOfRecords(scope: RequestScope, ids: readonly string[]): Promise<(MediaView | null)[]> {
  if (scope.actor.kind !== 'user' || !ids.length) return ids.map(() => null);
  const found = new Map((await repo.activeMediaAmong(await scope.db.tx(), ids)).map((m) => [m.id, m]));
  return ids.map((id) => found.get(id) ?? null);
}

/** How many of `ids` are active media of `teamId`, locked against their deletion until the write commits (entities' media fields). */
export async function lockMediaForRecord(scope: RequestScope, teamId: string, ids: string[]): Promise<number> {
  return repo.lockActiveMedia(await scope.db.tx(), teamId, ids);
}

export async function getMedia(scope: RequestScope, id: string): Promise<MediaView> {
  return visibleMedia(scope, caller(scope), id);
}

/** Registers an already-hosted file in the caller's active team. */
export async function createMedia(scope: RequestScope, input: CreateMediaInput): Promise<MediaView> {
  const actor = caller(scope);
  const teamId = writableTeam(actor, actor.activeTeamId);
  const [record] = await repo.insertMedia(await scope.db.tx(), [
    { ...input, userId: actor.userId, teamId, width: input.width ?? null, height: input.height ?? null, title: input.title ?? null, alt: input.alt ?? null, caption: input.caption ?? null },
  ]);
  return record!;
}

/** Changes title, alt or caption (the rest is immutable). */
export async function updateMedia(scope: RequestScope, id: string, input: UpdateMediaInput): Promise<MediaView> {
  const actor = caller(scope);
  const record = await visibleMedia(scope, actor, id);
  writableTeam(actor, record.teamId);
  const updated = await repo.updateActiveMedia(await scope.db.tx(), id, input);
  if (!updated) throw mediaNotFound();
  return updated;
}

/**
 * Soft delete: status `deleted`, hidden from every query; the file stays in storage, its renditions go
 * once that commits. The records whose media fields name it follow each field's onDelete (the
 * database's media trigger, entities/rls.ts): a `restrict` field still naming it refuses with 409.
 */
export async function deleteMedia(scope: RequestScope, id: string): Promise<{ id: string; message: string }> {
  const actor = caller(scope);
  const record = await visibleMedia(scope, actor, id);
  writableTeam(actor, record.teamId);
  const deleted = await repo.softDeleteMedia(await scope.db.tx(), id);
  if (deleted === 'in use') throw new AppError('CONFLICT', 'Media is still used by records that keep it (a media field with onDelete: restrict): change or delete those first');
  if (!deleted) throw mediaNotFound();
  scope.db.afterCommit(() => removeRenditions(scope, actor.userId, id));
  return { id, message: 'Media deleted successfully' };
}

/** Active records in the caller's teams with the same filename and size, per file asked about (one query). */
export async function checkDuplicates(scope: RequestScope, input: CheckDuplicatesInput): Promise<NameDuplicate[]> {
  const actor = caller(scope);
  const files = [...new Map(input.files.map((f) => [`${f.fileSize}:${f.filename}`, f])).values()];
  if (!files.length) return [];
  const rows = await repo.findByNameAndSize(await scope.db.tx(), teamIdsOf(actor), files);
  return files
    .map((f) => ({
      filename: f.filename,
      fileSize: f.fileSize,
      existing: rows.filter((r) => r.filename === f.filename && r.fileSize === f.fileSize).map(({ id, url, createdAt }) => ({ id, url, createdAt })),
    }))
    .filter((d) => d.existing.length > 0);
}

// ---- uploads -------------------------------------------------------------------------------------

/** A file received and stored by the upload route, ready to be recorded. */
export interface StoredUpload {
  filename: string;
  fileSize: number;
  mimeType: string;
  width: number | null;
  height: number | null;
  sha256: string;
  url: string;
  storageDriver: string;
  storageKey: string;
}

export interface ContentDuplicate {
  filename: string;
  sha256: string;
  existing: DuplicateMatch[];
}

/**
 * Records stored uploads in `teamId` (one record per file, in one statement) and reports content
 * duplicates: active records of the team with the same SHA-256, earlier files of the batch included.
 */
export async function recordUploads(scope: RequestScope, teamId: string, files: StoredUpload[]): Promise<{ media: MediaView[]; duplicates: ContentDuplicate[] }> {
  const actor = caller(scope);
  writableTeam(actor, teamId);
  const { inserted, earlier } = await repo.insertUploads(scope.db.query, actor.userId, teamId, files);
  // In the order of the files (each stored file has its own URL).
  const byUrl = new Map(inserted.map((m) => [m.url, m]));
  const media = files.map((f) => byUrl.get(f.url)!);
  const match = ({ id, url, createdAt }: DuplicateMatch) => ({ id, url, createdAt });
  const duplicates = files.flatMap(({ sha256, filename }, i) => {
    const before = [...earlier.filter((e) => e.sha256 === sha256), ...media.slice(0, i).filter((_, j) => files[j]!.sha256 === sha256)];
    return before.length ? [{ filename, sha256, existing: before.map(match) }] : [];
  });
  return { media, duplicates };
}

/** The content type of a stored file of an active record, or null: what serving a file needs to know. */
export function servedFileType(system: SystemDb, driver: string, key: string): Promise<string | null> {
  return repo.servedFileType(system, driver, key);
}

/** An active record with what rendering it needs. */
export type RenditionSource = repo.RenditionSourceRow;

/** An active record in the caller's teams (media:read) with what rendering it needs, or 404. */
export async function renditionSource(scope: RequestScope, id: string): Promise<RenditionSource> {
  const actor = caller(scope);
  if (!isUuid(id)) throw mediaNotFound();
  const record = await repo.findRenditionSource(await scope.db.tx(), id, teamIdsOf(actor));
  if (!record) throw mediaNotFound();
  return record;
}

// ---- renditions ----------------------------------------------------------------------------------
// The rendition cache's bookkeeping (render.ts): a row per stored rendition, at most `keep` per record.
// Its transactions run as the caller through RLS (runAs), not with system access: the caller may read
// the record, the policies confine them to their own teams' rows, and that is all this needs. They are
// short transactions of their own, after the request's: storage and sharp work happen between.

/** A rendition just written to storage. */
export interface WrittenRendition {
  key: string;
  mediaId: string;
  bytes: number;
}

/**
 * Records a written rendition and evicts its record's oldest beyond `keep`, holding the record's lock,
 * so that concurrent renders never leave more than `keep`. Returns the keys whose files must go: those
 * evicted, or this one when the record is no longer active (deleted since the request began).
 */
export async function recordRendition(scope: RequestScope, rendition: WrittenRendition, keep: number): Promise<string[]> {
  const actor = caller(scope);
  return scope.runAs(actor.userId, async (tx) => {
    await repo.lockRenditions(tx, rendition.mediaId);
    const teamId = await repo.activeMediaTeam(tx, rendition.mediaId);
    if (!teamId) return [rendition.key];
    await repo.insertRendition(tx, { ...rendition, teamId });
    return repo.evictRenditions(tx, rendition.mediaId, keep);
  });
}

/**
 * Removes a deleted record's renditions: rows, then files (every one tried; rejects naming failures).
 * Under the record's lock, so a render recording meanwhile either sees the record deleted or is seen here.
 */
async function removeRenditions(scope: RequestScope, userId: string, mediaId: string): Promise<void> {
  const keys = await scope.runAs(userId, async (tx) => {
    await repo.lockRenditions(tx, mediaId);
    return repo.deleteRenditions(tx, mediaId);
  });
  await removeStoredFiles(scope.services.get(mediaStorageKey), keys);
}

// ---- tags ----------------------------------------------------------------------------------------

export async function listTags(scope: RequestScope): Promise<TagView[]> {
  const actor = caller(scope);
  return tags.listTags(await scope.db.tx(), teamIdsOf(actor));
}

/** Creates a tag in the caller's active team, or updates the team's tag with the same slug. */
export async function createTag(scope: RequestScope, input: CreateTagInput): Promise<TagView> {
  const actor = caller(scope);
  const teamId = writableTeam(actor, actor.activeTeamId);
  const { order, isActive, ...rest } = input;
  const fields: tags.TagFields = { ...rest, ...(order === undefined ? {} : { order }), ...(isActive === undefined ? {} : { isActive }) };
  return tags.upsertTag(await scope.db.tx(), teamId, tagSlug(input.name), fields);
}

/**
 * The tags of records the request already holds as visible to its caller (listed, read, created or
 * changed), in the order of `mediaIds`, in one query: no visibility check per record, but only links
 * of the caller's teams, in the request's transaction (RLS applies). Media.tags loads through this
 * (schema.ts), so a list's tags cost one query.
 */
export async function tagsOfHeldMedia(scope: RequestScope, mediaIds: readonly string[]): Promise<TagView[][]> {
  if (!mediaIds.length) return [];
  const byMedia = await tags.tagsOfMediaIds(await scope.db.tx(), [...new Set(mediaIds)], teamIdsOf(caller(scope)));
  return mediaIds.map((id) => byMedia.get(id) ?? []);
}

/** The record to change tags on and the team's tags among `tagIds`; any tag that is not the team's → 404. */
async function taggable(scope: RequestScope, mediaId: string, tagIds: string[]) {
  const actor = caller(scope);
  const record = await visibleMedia(scope, actor, mediaId);
  writableTeam(actor, record.teamId);
  const wanted = [...new Set(tagIds)];
  if (wanted.some((id) => !isUuid(id))) throw tagNotFound();
  const found = wanted.length ? await tags.findTeamTags(await scope.db.tx(), record.teamId, wanted) : [];
  if (found.length !== wanted.length) throw tagNotFound();
  return { record, tagIds: wanted };
}

/** Adds a tag (idempotent); returns the record's tags. */
export async function addTag(scope: RequestScope, mediaId: string, tagId: string): Promise<TagView[]> {
  const { record, tagIds } = await taggable(scope, mediaId, [tagId]);
  const tx = await scope.db.tx();
  await tags.linkTags(tx, record.id, record.teamId, tagIds);
  return tags.tagsOfMedia(tx, record.id, record.teamId);
}

/** Replaces the record's tags with exactly `tagIds`; returns them. */
export async function setTags(scope: RequestScope, mediaId: string, tagIds: string[]): Promise<TagView[]> {
  const { record, tagIds: wanted } = await taggable(scope, mediaId, tagIds);
  const tx = await scope.db.tx();
  await tags.unlinkTagsExcept(tx, record.id, wanted);
  await tags.linkTags(tx, record.id, record.teamId, wanted);
  return tags.tagsOfMedia(tx, record.id, record.teamId);
}

/** Removes a tag from a record (a tag of the team that is not on it: nothing to do). */
export async function removeTag(scope: RequestScope, mediaId: string, tagId: string): Promise<boolean> {
  const { record } = await taggable(scope, mediaId, [tagId]);
  await tags.unlinkTag(await scope.db.tx(), record.id, tagId);
  return true;
}
