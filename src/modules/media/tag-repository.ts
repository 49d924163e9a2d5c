// Media tags and their links to media in the database, through the request's RLS transaction. Every
// query names the teams it may reach: the service's filter comes first, the policies back it up.
import type { Prisma } from '../../generated/prisma/client.js';
import type { Tx } from '../../db/request-db.js';

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

/** The tags (not deleted) on a media record of `teamId`, by order then name. */
export async function tagsOfMedia(tx: Tx, mediaId: string, teamId: string): Promise<TagRow[]> {
  return (await tagsOfMediaIds(tx, [mediaId], [teamId])).get(mediaId) ?? [];
}

interface MediaTagListRow {
  media_id: string;
  id: string;
  team_id: string;
  type: string;
  slug: string;
  name: string;
  description: string | null;
  icon: string | null;
  color: string | null;
  sort_order: number;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

/**
 * The tags (not deleted) on each of these records, by order then name, through links of these teams
 * only; records without tags are absent. One statement (Prisma would read links and tags in two).
 */
export async function tagsOfMediaIds(tx: Tx, mediaIds: string[], teamIds: string[]): Promise<Map<string, TagRow[]>> {
  const rows = await tx.$queryRaw<MediaTagListRow[]>`
    SELECT l.media_id::text, t.id::text, t.team_id::text, t.type, t.slug, t.name, t.description, t.icon, t.color,
           t.sort_order, t.is_active, t.created_at, t.updated_at
      FROM media_tag_links l
      JOIN media_tags t ON t.id = l.tag_id AND t.team_id = l.team_id
     WHERE l.media_id = ANY(${mediaIds}::uuid[]) AND l.team_id = ANY(${teamIds}::uuid[]) AND t.deleted_at IS NULL
     ORDER BY t.sort_order, t.name, t.id`;
  const byMedia = new Map<string, TagRow[]>();
  for (const { media_id, ...r } of rows) {
    const tag: TagRow = {
      id: r.id,
      teamId: r.team_id,
      type: r.type,
      slug: r.slug,
      name: r.name,
      description: r.description,
      icon: r.icon,
      color: r.color,
      order: r.sort_order,
      isActive: r.is_active,
      createdAt: new Date(r.created_at),
      updatedAt: new Date(r.updated_at),
    };
    const tags = byMedia.get(media_id);
    if (tags) tags.push(tag);
    else byMedia.set(media_id, [tag]);
  }
  return byMedia;
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
