// Media records, tags and tag links in the database, through the request's RLS transaction (a named
// system context only to serve stored files). Every query names the teams it may reach and, for media,
// `status = 'active'`: the service's filter comes first, the policies back it up.
import { Prisma } from '../../generated/prisma/client.js';
import type { SystemDb, Tx } from '../../db/request-db.js';

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
           m.title, m.alt, m.caption, m.status, m.created_at, m.updated_at, count(*) OVER ()::int AS total
      FROM media m
     WHERE ${where}
     ORDER BY ${orderColumns[q.orderBy]} ${direction}, m.id ${direction}
     LIMIT ${q.limit} OFFSET ${q.offset}`;
  let total = rows[0]?.total ?? 0;
  if (!rows.length && q.offset > 0) {
    total = (await tx.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM media m WHERE ${where}`)[0]?.total ?? 0;
  }
  return {
    total,
    rows: rows.map((r) => ({
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
      createdAt: new Date(r.created_at),
      updatedAt: new Date(r.updated_at),
    })),
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

/** Active records of a team whose content has one of these SHA-256 hashes. */
export function findByContentHash(tx: Tx, teamId: string, hashes: string[]) {
  return tx.media.findMany({
    where: { teamId, status: 'active', sha256: { in: hashes } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, url: true, createdAt: true, sha256: true },
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

/** What rendering an image needs of a record: its type, size, content hash and where storage keeps it. */
export const renditionSourceView = { id: true, mimeType: true, width: true, height: true, sha256: true, storageDriver: true, storageKey: true } as const;

export type RenditionSourceRow = Prisma.MediaGetPayload<{ select: typeof renditionSourceView }>;

/** An active record of these teams, as rendering needs it. */
export function findRenditionSource(tx: Tx, id: string, teamIds: string[]): Promise<RenditionSourceRow | null> {
  return tx.media.findFirst({ where: { id, teamId: { in: teamIds }, status: 'active' }, select: renditionSourceView });
}

// ---- tags --------------------------------------------------------------------------------------

export const tagView = {
  id: true,
  teamId: true,
  type: true,
  slug: true,
  name: true,
  description: true,
  icon: true,
  color: true,
  order: true,
  isActive: true,
  createdAt: true,
  updatedAt: true,
} as const;

export type TagRow = Prisma.MediaTagGetPayload<{ select: typeof tagView }>;

const tagOrder = [{ order: 'asc' }, { name: 'asc' }, { id: 'asc' }] as const satisfies Prisma.MediaTagOrderByWithRelationInput[];

/** Active, not deleted tags of these teams, by order then name. */
export function listTags(tx: Tx, teamIds: string[]): Promise<TagRow[]> {
  return tx.mediaTag.findMany({ where: { teamId: { in: teamIds }, isActive: true, deletedAt: null }, orderBy: [...tagOrder], select: tagView });
}

export interface TagFields {
  name: string;
  description?: string | null;
  icon?: string | null;
  color?: string | null;
  order?: number;
  isActive?: boolean;
}

/** Creates the team's tag with this slug, or updates it (a soft-deleted one comes back). One statement. */
export function upsertTag(tx: Tx, teamId: string, slug: string, fields: TagFields): Promise<TagRow> {
  return tx.mediaTag.upsert({
    where: { teamId_slug: { teamId, slug } },
    create: { teamId, slug, ...fields },
    update: { ...fields, deletedAt: null },
    select: tagView,
  });
}

/** The team's tags (not deleted) among these ids. */
export function findTeamTags(tx: Tx, teamId: string, ids: string[]): Promise<{ id: string }[]> {
  return tx.mediaTag.findMany({ where: { id: { in: ids }, teamId, deletedAt: null }, select: { id: true } });
}

/** The tags (not deleted) on a media record, by order then name. */
export async function tagsOfMedia(tx: Tx, mediaId: string): Promise<TagRow[]> {
  return tx.mediaTag.findMany({ where: { deletedAt: null, mediaLinks: { some: { mediaId } } }, orderBy: [...tagOrder], select: tagView });
}

/** Attaches tags to a record; tags already on it stay as they are. */
export async function linkTags(tx: Tx, mediaId: string, teamId: string, tagIds: string[]): Promise<void> {
  if (tagIds.length) await tx.mediaTagLink.createMany({ data: tagIds.map((tagId) => ({ mediaId, tagId, teamId })), skipDuplicates: true });
}

/** Detaches every tag of a record not in `keep`. */
export async function unlinkTagsExcept(tx: Tx, mediaId: string, keep: string[]): Promise<void> {
  await tx.mediaTagLink.deleteMany({ where: { mediaId, tagId: { notIn: keep } } });
}

export async function unlinkTag(tx: Tx, mediaId: string, tagId: string): Promise<void> {
  await tx.mediaTagLink.deleteMany({ where: { mediaId, tagId } });
}
