// GraphQL face of the media library: `mediaList`, `media(id)` (with its `tags`), `mediaDuplicates`,
// `mediaTags`; `createMedia`, `updateMedia`, `deleteMedia`, `createMediaTag`, `addMediaTag`,
// `setMediaTags`, `removeMediaTag`; `uploadMedia` (files of a multipart request, upload-route.ts).
// Each field declares the scope it requires (media:read, media:write, media:delete): scope-auth answers
// 401 to nobody and 403 "Insufficient permissions - <scope> scope required" to a key without it.
import type { Builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import { parseInput } from '../../shared/validation.js';
import { checkDuplicatesInput, createMediaInput, createTagInput, listMediaQuery, updateMediaInput } from './inputs.js';
import * as media from './service.js';
import type { ContentDuplicate, MediaPage, MediaView, NameDuplicate, TagView } from './service.js';
import type { FileVerdict } from './upload.js';
import { uploadMediaFiles, type UploadAnswer } from './upload-route.js';
import { renditionLinks, renditionWidths } from './render.js';

const read = { scope: 'media:read' } as const;
/** Reading media (its fields' rule), also where another module shows media (entities' media fields). */
export const mediaReadRule = read;
const write = { scope: 'media:write' } as const;
const remove = { scope: 'media:delete' } as const;

/** GraphQL passes absent optional arguments as null; zod defaults want them absent. */
const given = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));

/** A record as the Media type resolves it; `tags` when they are known already (uploadMedia's records have none yet). */
type MediaRecord = MediaView & { tags?: readonly TagView[] };

/** The tags of each record, in order: one query for those whose tags are not known already. */
async function tagsOfRecords(ctx: Context, records: readonly MediaRecord[]): Promise<TagView[][]> {
  const unknown = records.filter((m) => !m.tags);
  const tags = unknown.length ? await media.tagsOfHeldMedia(ctx, unknown.map((m) => m.id)) : [];
  const byRecord = new Map(unknown.map((m, i) => [m, tags[i]!]));
  return records.map((m) => (m.tags ? [...m.tags] : byRecord.get(m)!));
}

/**
 * The media record's types (Media, its tags, its rendition links) on a builder, made once per builder:
 * the media library's own fields use them, and so do the entities' media fields (`Order.attachment`),
 * also on a builder of their own (tests).
 */
const madeTypes = new WeakMap<Builder, ReturnType<typeof makeMediaTypes>>();
export function mediaTypes(b: Builder) {
  if (!madeTypes.has(b)) madeTypes.set(b, makeMediaTypes(b));
  return madeTypes.get(b)!;
}

function makeMediaTypes(b: Builder) {
  const tag = b.objectRef<TagView>('MediaTag').implement({
    description: 'A tag of a team’s media taxonomy (type media_tag).',
    fields: (t) => ({
      id: t.exposeID('id'),
      teamId: t.exposeID('teamId'),
      type: t.exposeString('type'),
      slug: t.exposeString('slug', { description: 'Made from the name; unique within the team.' }),
      name: t.exposeString('name'),
      description: t.exposeString('description', { nullable: true }),
      icon: t.exposeString('icon', { nullable: true }),
      color: t.exposeString('color', { nullable: true, description: 'A hex color string.' }),
      order: t.exposeInt('order'),
      isActive: t.exposeBoolean('isActive'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    }),
  });

  const renditionLink = b.objectRef<{ width: number; url: string }>('MediaRenditionLink').implement({
    description: 'A resized copy of an uploaded image: GET it (media:read) for WebP bytes at most `width` pixels wide (never larger than the original).',
    fields: (t) => ({ width: t.exposeInt('width'), url: t.exposeString('url', { description: 'Relative to this server: /api/v1/media/{id}/render?w=…; add h, fit and format as the route takes them.' }) }),
  });

  const media = b.objectRef<MediaRecord>('Media').implement({
    description: 'A media file of a team. url, filename, fileSize, mimeType, width and height never change.',
    fields: (t) => ({
      id: t.exposeID('id'),
      userId: t.exposeID('userId'),
      teamId: t.exposeID('teamId'),
      url: t.exposeString('url'),
      filename: t.exposeString('filename'),
      fileSize: t.exposeInt('fileSize', { description: 'Bytes.' }),
      mimeType: t.exposeString('mimeType'),
      width: t.exposeInt('width', { nullable: true }),
      height: t.exposeInt('height', { nullable: true }),
      title: t.exposeString('title', { nullable: true }),
      alt: t.exposeString('alt', { nullable: true }),
      caption: t.exposeString('caption', { nullable: true }),
      status: t.exposeString('status'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
      renditions: t.field({
        type: [renditionLink],
        description: `Resized copies of an uploaded image, ${renditionWidths.join(', ')} pixels wide; empty for videos, registered (hosted elsewhere) files and types that cannot be rendered.`,
        // Three links made from the record in memory: no cost (graphql/limits.ts).
        extensions: { computed: true },
        resolve: (m) => renditionLinks(m),
      }),
      tags: t.loadableList({
        type: tag,
        description: 'By order, then name.',
        // Reading tags needs media:read, also under a write's answer; tags known already (none, for a record just uploaded) reveal nothing.
        authScopes: (m) => (m.tags ? { authenticated: true } : read),
        // The record is its own key: the tags of every record the request resolves together (a list) are
        // read in one query, in the request's context and transaction. No cache: a tag change made earlier
        // in the same request (mutations run in turn) is seen by a later read.
        loaderOptions: { cache: false },
        resolve: (m) => m,
        load: (records: MediaRecord[], ctx) => tagsOfRecords(ctx, records),
      }),
    }),
  });
  return { tag, media };
}

/** Registers the module's GraphQL types and fields on `b` (its module description's registerSchema). */
export function registerMediaSchema(b: Builder): void {
  const { tag: MediaTagRef, media: MediaRef } = mediaTypes(b);

  const MediaPageRef = b.objectRef<MediaPage>('MediaPage').implement({
    fields: (t) => ({
      items: t.field({ type: [MediaRef], resolve: (p) => p.items }),
      total: t.exposeInt('total'),
      limit: t.exposeInt('limit'),
      offset: t.exposeInt('offset'),
    }),
  });

  const DuplicateMatchRef = b.objectRef<NameDuplicate['existing'][number]>('MediaDuplicateMatch').implement({
    fields: (t) => ({ id: t.exposeID('id'), url: t.exposeString('url'), createdAt: t.expose('createdAt', { type: 'DateTime' }) }),
  });

  const NameDuplicateRef = b.objectRef<NameDuplicate>('MediaDuplicate').implement({
    fields: (t) => ({
      filename: t.exposeString('filename'),
      fileSize: t.exposeInt('fileSize'),
      existing: t.field({ type: [DuplicateMatchRef], resolve: (d) => d.existing }),
    }),
  });

  const FileVerdictRef = b.objectRef<FileVerdict>('MediaFileVerdict').implement({
    description: 'A file of an upload that was skipped (empty), or refused, and why.',
    fields: (t) => ({ filename: t.exposeString('filename'), reason: t.exposeString('reason') }),
  });

  const ContentDuplicateRef = b.objectRef<ContentDuplicate>('MediaContentDuplicate').implement({
    description: 'An uploaded file whose content (SHA-256) the team already held, earlier files of the same upload included.',
    fields: (t) => ({
      filename: t.exposeString('filename'),
      sha256: t.exposeString('sha256'),
      existing: t.field({ type: [DuplicateMatchRef], resolve: (d) => d.existing }),
    }),
  });

  const MediaUploadRef = b.objectRef<UploadAnswer>('MediaUpload').implement({
    description: 'An upload that was stored and recorded: what POST /api/v1/media/upload answers in data.',
    fields: (t) => ({
      message: t.exposeString('message'),
      urls: t.exposeStringList('urls'),
      media: t.field({ type: [MediaRef], description: 'One record per file, in the order of files.', resolve: (u) => u.media }),
      count: t.exposeInt('count'),
      storage: t.exposeString('storage', { description: 'The storage driver holding the files: local, hosted-blob, s3 (mixed: see each url).' }),
      duplicates: t.field({ type: [ContentDuplicateRef], resolve: (u) => u.duplicates }),
      skipped: t.field({ type: [FileVerdictRef], description: 'Empty files, not stored.', resolve: (u) => u.skipped }),
    }),
  });

  const DeletedMediaRef = b.objectRef<{ id: string; message: string }>('DeletedMedia').implement({
    fields: (t) => ({ id: t.exposeID('id'), message: t.exposeString('message') }),
  });

  const MediaOrderBy = b.enumType('MediaOrderBy', { values: ['createdAt', 'filename', 'fileSize'] as const });
  const MediaOrderDir = b.enumType('MediaOrderDir', { values: ['asc', 'desc'] as const });
  const MediaTypeFilter = b.enumType('MediaTypeFilter', { values: ['image', 'video', 'all'] as const, description: 'By MIME type prefix.' });

  const CreateMediaInput = b.inputType('CreateMediaInput', {
    fields: (t) => ({
      url: t.string({ required: true, description: 'An http(s) URL.' }),
      filename: t.string({ required: true }),
      fileSize: t.int({ required: true }),
      mimeType: t.string({ required: true }),
      width: t.int(),
      height: t.int(),
      title: t.string(),
      alt: t.string(),
      caption: t.string(),
    }),
  });

  const UpdateMediaInput = b.inputType('UpdateMediaInput', {
    description: 'title, alt, caption: a string, or null to clear it; at least one.',
    fields: (t) => ({ title: t.string(), alt: t.string(), caption: t.string() }),
  });

  const MediaFileInput = b.inputType('MediaFileInput', {
    fields: (t) => ({ filename: t.string({ required: true }), fileSize: t.int({ required: true }) }),
  });

  const CreateMediaTagInput = b.inputType('CreateMediaTagInput', {
    fields: (t) => ({
      name: t.string({ required: true }),
      description: t.string(),
      icon: t.string(),
      color: t.string(),
      order: t.int(),
      isActive: t.boolean(),
    }),
  });

  b.queryFields((t) => ({
    mediaList: t.field({
      type: MediaPageRef,
      description: 'Active media of the caller’s teams: filters, full-text search (filename, title, alt, caption), paging.',
      authScopes: read,
      args: {
        limit: t.arg.int({ description: '1-100, default 20' }),
        offset: t.arg.int(),
        orderBy: t.arg({ type: MediaOrderBy }),
        orderDir: t.arg({ type: MediaOrderDir }),
        type: t.arg({ type: MediaTypeFilter }),
        search: t.arg.string(),
        tagIds: t.arg.stringList({ description: 'Records with any of these tags.' }),
        tagSlugs: t.arg.stringList({ description: 'Records with a tag of any of these slugs.' }),
      },
      resolve: (_root, args, ctx) => media.listMedia(ctx, parseInput(listMediaQuery, given(args))),
    }),
    media: t.field({
      type: MediaRef,
      description: 'One active record of the caller’s teams.',
      authScopes: read,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => media.getMedia(ctx, String(id)),
    }),
    mediaDuplicates: t.field({
      type: [NameDuplicateRef],
      description: 'Files (filename and size) the caller’s teams already hold; only those that match.',
      authScopes: read,
      args: { files: t.arg({ type: [MediaFileInput], required: true }) },
      resolve: (_root, { files }, ctx) => media.checkDuplicates(ctx, parseInput(checkDuplicatesInput, { files })),
    }),
    mediaTags: t.field({
      type: [MediaTagRef],
      description: 'Active tags of the caller’s teams, by order then name.',
      authScopes: read,
      resolve: (_root, _args, ctx) => media.listTags(ctx),
    }),
  }));

  b.mutationFields((t) => ({
    createMedia: t.field({
      type: MediaRef,
      description: 'Registers an already-hosted file in the caller’s active team.',
      authScopes: write,
      args: { input: t.arg({ type: CreateMediaInput, required: true }) },
      resolve: (_root, { input }, ctx) => media.createMedia(ctx, parseInput(createMediaInput, given(input))),
    }),
    updateMedia: t.field({
      type: MediaRef,
      authScopes: write,
      args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateMediaInput, required: true }) },
      resolve: (_root, { id, input }, ctx) => media.updateMedia(ctx, String(id), parseInput(updateMediaInput, input)),
    }),
    deleteMedia: t.field({
      type: DeletedMediaRef,
      description: 'Soft delete: hidden from every query; the file stays in storage. Records naming it follow their media field’s onDelete (CONFLICT while a `restrict` one does).',
      authScopes: remove,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => media.deleteMedia(ctx, String(id)),
    }),
    uploadMedia: t.field({
      type: MediaUploadRef,
      description:
        'Uploads files (POST /graphql as multipart form data, GraphQL multipart request spec) into the team `teamId` (one of the caller’s; default: the active team), like POST /api/v1/media/upload: types from content, limits from MEDIA_CONFIG, empty files skipped, all or nothing. A refused file refuses the batch: error "Upload rejected" with extensions.details.files [{filename, reason}].',
      authScopes: write,
      args: { files: t.arg({ type: ['Upload'], required: true }), teamId: t.arg.id() },
      resolve: async (_root, { files, teamId }, ctx) => {
        const answer = await uploadMediaFiles(ctx, files, teamId == null ? null : String(teamId));
        // Records just made have no tags yet: known, not read.
        return { ...answer, media: answer.media.map((m) => ({ ...m, tags: [] })) };
      },
    }),
    createMediaTag: t.field({
      type: MediaTagRef,
      description: 'Creates a tag in the caller’s active team, or updates the tag with the same slug.',
      authScopes: write,
      args: { input: t.arg({ type: CreateMediaTagInput, required: true }) },
      resolve: (_root, { input }, ctx) => media.createTag(ctx, parseInput(createTagInput, given(input))),
    }),
    addMediaTag: t.field({
      type: [MediaTagRef],
      description: 'Idempotent; the record’s tags after the change.',
      authScopes: write,
      args: { mediaId: t.arg.id({ required: true }), tagId: t.arg.id({ required: true }) },
      resolve: (_root, { mediaId, tagId }, ctx) => media.addTag(ctx, String(mediaId), String(tagId)),
    }),
    setMediaTags: t.field({
      type: [MediaTagRef],
      description: 'Replaces the record’s tags.',
      authScopes: write,
      args: { mediaId: t.arg.id({ required: true }), tagIds: t.arg.idList({ required: true }) },
      resolve: (_root, { mediaId, tagIds }, ctx) => media.setTags(ctx, String(mediaId), tagIds.map(String)),
    }),
    removeMediaTag: t.field({
      type: 'Boolean',
      authScopes: remove,
      args: { mediaId: t.arg.id({ required: true }), tagId: t.arg.id({ required: true }) },
      resolve: (_root, { mediaId, tagId }, ctx) => media.removeTag(ctx, String(mediaId), String(tagId)),
    }),
  }));
}
