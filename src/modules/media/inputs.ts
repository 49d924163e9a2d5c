// Media inputs, validated at both edges with the same schemas (REST query strings and JSON bodies,
// GraphQL arguments). Limits are the contract's: filename/title 255, alt 500, caption 1000.
import { z } from 'zod';

/** Largest file size a record can hold (a 32-bit integer of bytes). */
export const maxFileSize = 2_147_483_647;

const title = z.string().trim().max(255, 'must be at most 255 characters');
const alt = z.string().trim().max(500, 'must be at most 500 characters');
const caption = z.string().trim().max(1000, 'must be at most 1000 characters');
const fileSize = z.number().int().min(0).max(maxFileSize);
const filename = z.string().trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters');

/** A tag's slug: its name lower-cased, accents dropped, every run of other characters one hyphen. */
export function tagSlug(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
}

/** A comma-separated query value (REST) or a list (GraphQL), trimmed, without empty items. */
const listOf = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v), z.array(item).min(1).max(50));

export const listMediaQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  orderBy: z.enum(['createdAt', 'filename', 'fileSize']).default('createdAt'),
  orderDir: z.enum(['asc', 'desc']).default('desc'),
  type: z.enum(['image', 'video', 'all']).default('all'),
  search: z.string().trim().max(200).optional(),
  tagIds: listOf(z.string().max(100)).optional(),
  tagSlugs: listOf(z.string().max(100)).optional(),
});
export type ListMediaQuery = z.output<typeof listMediaQuery>;

export const createMediaInput = z.strictObject({
  url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2000),
  filename,
  fileSize,
  mimeType: z.string().trim().toLowerCase().max(255).regex(/^[a-z]+\/[a-z0-9.+-]+$/, 'must be a MIME type such as image/png'),
  width: z.number().int().min(1).max(1_000_000).nullish(),
  height: z.number().int().min(1).max(1_000_000).nullish(),
  title: title.nullish(),
  alt: alt.nullish(),
  caption: caption.nullish(),
});
export type CreateMediaInput = z.output<typeof createMediaInput>;

export const updateMediaInput = z
  .strictObject({ title: title.nullable().optional(), alt: alt.nullable().optional(), caption: caption.nullable().optional() })
  .refine((v) => Object.keys(v).length > 0, 'at least one of title, alt, caption is required');
export type UpdateMediaInput = z.output<typeof updateMediaInput>;

export const checkDuplicatesInput = z.strictObject({
  files: z.array(z.strictObject({ filename, fileSize })).max(100, 'at most 100 files per check'),
});
export type CheckDuplicatesInput = z.output<typeof checkDuplicatesInput>;

export const createTagInput = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .refine((name) => tagSlug(name) !== '', 'must contain a letter or a digit (the slug is made from it)'),
  description: z.string().trim().max(500).nullish(),
  icon: z.string().trim().max(100).nullish(),
  color: z.string().regex(/^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i, 'must be a hex color such as #ff8800').nullish(),
  order: z.number().int().min(-1_000_000).max(1_000_000).optional(),
  isActive: z.boolean().optional(),
});
export type CreateTagInput = z.output<typeof createTagInput>;

export const addTagInput = z.strictObject({ tagId: z.string().trim().min(1).max(100) });
export const setTagsInput = z.strictObject({ tagIds: z.array(z.string().trim().min(1).max(100)).max(100) });
export const removeTagQuery = z.strictObject({ tagId: z.string().trim().min(1, 'is required').max(100) });

