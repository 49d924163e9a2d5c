// Media records and their renditions in the database, through the request's RLS transaction (a named
// system context only to serve stored files); tags are in tag-repository.ts. Every query names the teams
// it may reach and `status = 'active'`: the service's filter comes first, the policies back it up.
import { Prisma } from '../../generated/prisma/client.js';
import { isForeignKeyViolation } from '../../db/errors.js';
import type { RawQuery, SystemDb, Tx } from '../../db/request-db.js';

export const mediaView = {
  id: true,
  userId: true,
  teamId: true,
  url: true,
  filename: true,
  fileSize: true,
  mimeType: true,
  width: true,
  height: true,
  title: true,
  alt: true,
  caption: true,
  status: true,
  storageDriver: true,
  createdAt: true,
  updatedAt: true,
} as const;

export type MediaRow = Prisma.MediaGetPayload<{ select: typeof mediaView }>;

export type NewMedia = Omit<Prisma.MediaCreateManyInput, 'id' | 'status' | 'createdAt' | 'updatedAt'>;

export function findActiveMedia(tx: Tx, id: string, teamIds: string[]): Promise<MediaRow | null> {
  return tx.media.findFirst({ where: { id, teamId: { in: teamIds }, status: 'active' }, select: mediaView });
}

export function insertMedia(tx: Tx, rows: NewMedia[]): Promise<MediaRow[]> {
  return tx.media.createManyAndReturn({ data: rows, select: mediaView });
}

/** An uploaded file to record: everything but the owner, the team and the stamps. */
export type UploadRow = Omit<NewMedia, 'userId' | 'teamId'> & { sha256: string };

/** An earlier active record of the team with the same content as an upload. */
export interface ContentMatch {
  id: string;
  url: string;
  createdAt: Date;
  sha256: string;
}

/** As Prisma's raw queries give it (RequestDb.query): timestamps as Dates. */
interface UploadResultRow extends Omit<MediaListRow, 'total' | 'created_at' | 'updated_at'> {
  created_at: Date;
  updated_at: Date;
  earlier: boolean;
  sha256: string;
}

/**
 * Records uploaded files of a team and finds the team's earlier active records with the same content,
 * in one statement (the upload's whole database work: one round trip whatever the number of files).
 * The earlier records are read from the statement's snapshot, so they never include the new ones.
 */
export async function insertUploads(query: RawQuery, userId: string, teamId: string, files: UploadRow[]): Promise<{ inserted: MediaRow[]; earlier: ContentMatch[] }> {
  const column = <K extends keyof UploadRow>(key: K) => files.map((f) => f[key] ?? null);
  const rows = await query<UploadResultRow>(insertUploadsSql, [
    teamId,
    userId,
    [...new Set(column('sha256'))],
    column('url'),
    column('filename'),
    column('fileSize'),
    column('mimeType'),
    column('width'),
    column('height'),
    column('sha256'),
    column('storageDriver'),
    column('storageKey'),
  ]);
  return {
    inserted: rows.filter((r) => !r.earlier).map(mediaRowOf),
    earlier: rows.filter((r) => r.earlier).map((r) => ({ id: r.id, url: r.url, createdAt: r.created_at, sha256: r.sha256 })),
  };
}

const insertUploadsSql = `
  WITH earlier AS (
    SELECT id, url, created_at, sha256 FROM media
     WHERE team_id = $1::uuid AND status = 'active' AND sha256 = ANY($3::text[])
  ), inserted AS (
    INSERT INTO media (id, user_id, team_id, url, filename, file_size, mime_type, width, height, sha256, storage_driver, storage_key, updated_at)
    SELECT gen_random_uuid(), $2::uuid, $1::uuid, f.url, f.filename, f.file_size, f.mime_type, f.width, f.height, f.sha256,
           f.storage_driver, f.storage_key, now()
      FROM unnest($4::text[], $5::text[], $6::int[], $7::text[], $8::int[], $9::int[], $10::text[], $11::text[], $12::text[])
        AS f(url, filename, file_size, mime_type, width, height, sha256, storage_driver, storage_key)
    RETURNING *
  )
  SELECT false AS earlier, id::text, user_id::text, team_id::text, url, filename, file_size, mime_type, width, height,
         title, alt, caption, status, storage_driver, created_at, updated_at, sha256
    FROM inserted
  UNION ALL
  SELECT true, id::text, NULL, NULL, url, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, created_at, NULL, sha256
    FROM earlier
   ORDER BY earlier, created_at, id`;

/**
 * Marks an active record deleted; null when there is none (deleted meanwhile), `in use` when a media
 * field with onDelete restrict still names it (the media trigger's 23001, entities/rls.ts).
 */
export async function softDeleteMedia(tx: Tx, id: string): Promise<MediaRow | null | 'in use'> {
  return updateActiveMedia(tx, id, { status: 'deleted' }).catch((error: unknown) => {
    if (isForeignKeyViolation(error)) return 'in use' as const;
    throw error;
  });
}

/** Updates an active record; null when there is none (deleted meanwhile). */
export async function updateActiveMedia(tx: Tx, id: string, data: Prisma.MediaUpdateManyMutationInput): Promise<MediaRow | null> {
  const rows = await tx.media.updateManyAndReturn({ where: { id, status: 'active' }, data, select: mediaView });
  return rows[0] ?? null;
}

export interface MediaQuery {
  teamIds: string[];
  limit: number;
  offset: number;
  orderBy: 'createdAt' | 'filename' | 'fileSize';
  orderDir: 'asc' | 'desc';
  mimePrefix: string | null;
  search: string | null;
  tagIds: string[] | null;
  tagSlugs: string[] | null;
}

const orderColumns = { createdAt: Prisma.raw('m.created_at'), filename: Prisma.raw('m.filename'), fileSize: Prisma.raw('m.file_size') };

/** Conditions of a media list; the search goes through the GIN index on media_search_document() (app_media_search). */
function listConditions(q: MediaQuery): Prisma.Sql[] {
  const where = [Prisma.sql`m.team_id = ANY(${q.teamIds}::uuid[])`, Prisma.sql`m.status = 'active'`];
  if (q.mimePrefix) where.push(Prisma.sql`m.mime_type LIKE ${`${q.mimePrefix}%`}`);
  // Through app_media_search (its index), not `document @@ query` here: under RLS that match would run row by row.
  if (q.search) where.push(Prisma.sql`m.id IN (SELECT app_media_search(${q.teamIds}::uuid[], ${q.search}))`);
  if (q.tagIds) {
    where.push(Prisma.sql`EXISTS (SELECT 1 FROM media_tag_links l JOIN media_tags t ON t.id = l.tag_id
                                   WHERE l.media_id = m.id AND t.deleted_at IS NULL AND l.tag_id = ANY(${q.tagIds}::uuid[]))`);
  }
  if (q.tagSlugs) {
    where.push(Prisma.sql`EXISTS (SELECT 1 FROM media_tag_links l JOIN media_tags t ON t.id = l.tag_id
                                   WHERE l.media_id = m.id AND t.deleted_at IS NULL AND t.slug = ANY(${q.tagSlugs}::text[]))`);
  }
  return where;
}

interface MediaListRow {
  id: string;
  user_id: string;
  team_id: string;
  url: string;
  filename: string;
  file_size: number;
  mime_type: string;
  width: number | null;
  height: number | null;
  title: string | null;
  alt: string | null;
  caption: string | null;
  status: string;
  storage_driver: string | null;
  created_at: Date;
  updated_at: Date;
  total: number;
}

/** A page of media and the total, in one statement (a second one only past the last page). */
export async function listMedia(tx: Tx, q: MediaQuery): Promise<{ rows: MediaRow[]; total: number }> {
  const where = Prisma.join(listConditions(q), ' AND ');
  const direction = Prisma.raw(q.orderDir === 'asc' ? 'ASC' : 'DESC');
  const rows = await tx.$queryRaw<MediaListRow[]>`
    SELECT m.id::text, m.user_id::text, m.team_id::text, m.url, m.filename, m.file_size, m.mime_type, m.width, m.height,
           m.title, m.alt, m.caption, m.status, m.storage_driver, m.created_at, m.updated_at, count(*) OVER ()::int AS total
      FROM media m
     WHERE ${where}
     ORDER BY ${orderColumns[q.orderBy]} ${direction}, m.id ${direction}
     LIMIT ${q.limit} OFFSET ${q.offset}`;
  let total = rows[0]?.total ?? 0;
  if (!rows.length && q.offset > 0) {
    total = (await tx.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM media m WHERE ${where}`)[0]?.total ?? 0;
  }
  return { total, rows: rows.map(mediaRowOf) };
}

/** A record as SQL gives it (snake case, ids as text), as Prisma would. */
function mediaRowOf(r: Omit<MediaListRow, 'total' | 'created_at' | 'updated_at'> & { created_at: Date | string; updated_at: Date | string }): MediaRow {
  return {
    id: r.id,
    userId: r.user_id,
    teamId: r.team_id,
    url: r.url,
    filename: r.filename,
    fileSize: r.file_size,
    mimeType: r.mime_type,
    width: r.width,
    height: r.height,
    title: r.title,
    alt: r.alt,
    caption: r.caption,
    status: r.status,
    storageDriver: r.storage_driver,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** Active records of these teams matching any of the (filename, fileSize) pairs: one query. */
export function findByNameAndSize(tx: Tx, teamIds: string[], files: { filename: string; fileSize: number }[]) {
  return tx.media.findMany({
    where: { teamId: { in: teamIds }, status: 'active', OR: files.map((f) => ({ filename: f.filename, fileSize: f.fileSize })) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, url: true, createdAt: true, filename: true, fileSize: true },
  });
}

/** The content type of a stored, active file, for serving it (no caller: the URL is the capability). */
export async function servedFileType(system: SystemDb, driver: string, key: string): Promise<string | null> {
  const rows = await system.hotQuery<{ mime_type: string }>(
    'media_served_file',
    `SELECT mime_type FROM media WHERE storage_key = $1 AND storage_driver = $2 AND status = 'active'`,
    [key, driver],
  );
  return rows[0]?.mime_type ?? null;
}

/**
 * Which of `keys` a media record (of any status: a deleted record keeps its file) or a rendition
 * refers to, whatever their driver: the orphan sweep removes the others (named system work).
 */
export async function referencedStorageKeys(system: SystemDb, keys: string[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const rows = await system.prisma.$queryRaw<{ key: string }[]>`
    SELECT storage_key AS key FROM media WHERE storage_key = ANY(${keys}::text[])
    UNION SELECT storage_key FROM media_renditions WHERE storage_key = ANY(${keys}::text[])`;
  return new Set(rows.map((r) => r.key));
}

/** What rendering an image needs of a record: its type, size, content hash and where storage keeps it. */
export const renditionSourceView = { id: true, mimeType: true, width: true, height: true, sha256: true, storageDriver: true, storageKey: true } as const;

export type RenditionSourceRow = Prisma.MediaGetPayload<{ select: typeof renditionSourceView }>;

/** An active record of these teams, as rendering needs it. */
export function findRenditionSource(tx: Tx, id: string, teamIds: string[]): Promise<RenditionSourceRow | null> {
  return tx.media.findFirst({ where: { id, teamId: { in: teamIds }, status: 'active' }, select: renditionSourceView });
}

// ---- renditions --------------------------------------------------------------------------------

/**
 * Serializes the rendition bookkeeping of one record until the transaction ends: recording (with its
 * eviction) and removal. An advisory lock, not FOR UPDATE on the record: viewers render too, and
 * locking a row needs the UPDATE privilege and policy, which they do not have.
 */
export async function lockRenditions(tx: Tx, mediaId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`media_renditions:${mediaId}`}, 0))`;
}

/**
 * How many of `ids` are active records of `teamId`, each locked (FOR SHARE) until the transaction ends:
 * a deletion running at the same moment waits for it, then its trigger sees the record that names them.
 */
export async function lockActiveMedia(tx: Tx, teamId: string, ids: string[]): Promise<number> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM media WHERE id = ANY(${ids}::uuid[]) AND team_id = ${teamId}::uuid AND status = 'active' FOR SHARE`;
  return rows.length;
}

/** The active records among `ids` that the caller can see (RLS: its teams), in no order. */
export function activeMediaAmong(tx: Tx, ids: readonly string[]): Promise<MediaRow[]> {
  return tx.media.findMany({ where: { id: { in: [...ids] }, status: 'active' }, select: mediaView });
}

/** The team of an active record, or null (deleted, missing or invisible). */
export async function activeMediaTeam(tx: Tx, mediaId: string): Promise<string | null> {
  const row = await tx.media.findFirst({ where: { id: mediaId, status: 'active' }, select: { teamId: true } });
  return row?.teamId ?? null;
}

/**
 * Records a stored rendition as the newest of its record (clock_timestamp(): the time of recording,
 * under the lock, not the transaction's start); one already recorded stays as it is.
 */
export async function insertRendition(tx: Tx, r: { key: string; mediaId: string; teamId: string; bytes: number }): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO media_renditions (storage_key, media_id, team_id, bytes, created_at)
    VALUES (${r.key}, ${r.mediaId}::uuid, ${r.teamId}::uuid, ${r.bytes}, clock_timestamp())
    ON CONFLICT (storage_key) DO NOTHING`;
}

/** Deletes a record's renditions beyond the newest `keep`; returns their storage keys. */
export async function evictRenditions(tx: Tx, mediaId: string, keep: number): Promise<string[]> {
  const rows = await tx.$queryRaw<{ storage_key: string }[]>`
    DELETE FROM media_renditions
     WHERE storage_key IN (SELECT storage_key FROM media_renditions WHERE media_id = ${mediaId}::uuid
                            ORDER BY created_at DESC, storage_key DESC OFFSET ${keep})
    RETURNING storage_key`;
  return rows.map((r) => r.storage_key);
}

/** Deletes every rendition of a record; returns their storage keys. */
export async function deleteRenditions(tx: Tx, mediaId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ storage_key: string }[]>`DELETE FROM media_renditions WHERE media_id = ${mediaId}::uuid RETURNING storage_key`;
  return rows.map((r) => r.storage_key);
}
