// The media library of the caller's teams: a grid of thumbnails (the 320-pixel renditions), searched
// (full text over filename, title, alt and caption), filtered by type and tag, paged; files dropped on
// it (or chosen) are uploaded with their progress, and files the team already held are named; a
// picked file's details: its metadata, title, alt text and caption edited, its tags set, deletion.
// All of it on the GraphQL API (mediaList, mediaTags, media, updateMedia, setMediaTags, deleteMedia;
// uploads: media.ts); the thumbnails' bytes come from the rendition route Media.renditions names.
import { useEffect, useState } from 'preact/hooks';
import { messageOf, run } from './api.js';
import { Problem } from './forms.js';
import { graphql } from './generated/graphql/index.js';
import type { MediaListQuery, MediaTagsQuery } from './generated/graphql/graphql.js';
import { thumbnailOf, uploadFiles } from './media.js';

const mediaListQuery = graphql(`
  query MediaList($limit: Int, $offset: Int, $type: MediaTypeFilter, $search: String, $tagIds: [String!]) {
    mediaList(limit: $limit, offset: $offset, type: $type, search: $search, tagIds: $tagIds) {
      total
      items {
        id
        filename
        mimeType
        fileSize
        width
        height
        createdAt
        url
        title
        alt
        caption
        renditions {
          width
          url
        }
      }
    }
  }
`);

const mediaTagsQuery = graphql(`
  query MediaTags {
    mediaTags {
      id
      name
    }
  }
`);

const mediaTagIdsQuery = graphql(`
  query MediaTagIds($id: ID!) {
    media(id: $id) {
      id
      tags {
        id
      }
    }
  }
`);

const updateMediaMutation = graphql(`
  mutation UpdateMedia($id: ID!, $input: UpdateMediaInput!) {
    updateMedia(id: $id, input: $input) {
      id
    }
  }
`);

const setMediaTagsMutation = graphql(`
  mutation SetMediaTags($mediaId: ID!, $tagIds: [ID!]!) {
    setMediaTags(mediaId: $mediaId, tagIds: $tagIds) {
      id
    }
  }
`);

const deleteMediaMutation = graphql(`
  mutation DeleteMedia($id: ID!) {
    deleteMedia(id: $id) {
      id
    }
  }
`);

type Media = MediaListQuery['mediaList']['items'][number];
type Tag = MediaTagsQuery['mediaTags'][number];

/** The 320-pixel rendition the server names for `m` (thumbnailOf's route where it names none). */
const thumbnail = (m: Media) => m.renditions.find((r) => r.width === 320)?.url ?? thumbnailOf(m.id);

const pageSize = 24;

const sizeOf = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1_048_576 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1_048_576).toFixed(1)} MB`);

function Details({ media, tags, readOnly, onChanged, onClose }: { media: Media; tags: Tag[]; readOnly: string | null; onChanged: () => void; onClose: () => void }) {
  const [own, setOwn] = useState<string[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    void run(mediaTagIdsQuery, { id: media.id }).then(({ data }) => setOwn((data?.media.tags ?? []).map((t) => t.id)));
  }, [media.id]);
  const save = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => (String(form.get(name) ?? '').trim() ? String(form.get(name)).trim() : null);
    const { error } = await run(updateMediaMutation, { id: media.id, input: { title: text('title'), alt: text('alt'), caption: text('caption') } });
    const tagged = error ? null : (await run(setMediaTagsMutation, { mediaId: media.id, tagIds: form.getAll('tags').map(String) })).error;
    setProblem(error || tagged ? messageOf(error ?? tagged) : null);
    setSaved(error || tagged ? null : 'Saved.');
    onChanged();
  };
  const remove = async () => {
    if (!confirm(`Delete ${media.filename}?`)) return;
    const { error } = await run(deleteMediaMutation, { id: media.id });
    if (error) return setProblem(messageOf(error));
    onChanged();
    onClose();
  };
  const image = media.mimeType.startsWith('image/');
  return (
    <section class="media-details" aria-labelledby="details-heading">
      <h2 id="details-heading">{media.filename}</h2>
      {image && <img src={thumbnail(media)} alt={media.alt ?? ''} width={320} />}
      <dl>
        <dt>Type</dt>
        <dd>{media.mimeType}</dd>
        <dt>Size</dt>
        <dd>{sizeOf(media.fileSize)}</dd>
        {media.width && media.height && (
          <>
            <dt>Dimensions</dt>
            <dd>
              {media.width} × {media.height}
            </dd>
          </>
        )}
        <dt>Uploaded</dt>
        <dd>{new Date(media.createdAt).toLocaleString()}</dd>
        <dt>Address</dt>
        <dd class="secret">
          <a href={media.url}>{media.url}</a>
        </dd>
      </dl>
      <form onSubmit={(e) => void save(e)}>
        <label>
          Title
          <input name="title" defaultValue={media.title ?? ''} maxLength={255} disabled={readOnly !== null} />
        </label>
        <label>
          Alternative text
          <input name="alt" defaultValue={media.alt ?? ''} maxLength={500} disabled={readOnly !== null} />
        </label>
        <label>
          Caption
          <textarea name="caption" defaultValue={media.caption ?? ''} maxLength={1000} disabled={readOnly !== null} />
        </label>
        {tags.length > 0 && own && (
          <fieldset>
            <legend>Tags</legend>
            {tags.map((t) => (
              <label key={t.id} class="inline">
                <input type="checkbox" name="tags" value={t.id} defaultChecked={own.includes(t.id)} disabled={readOnly !== null} />
                {t.name}
              </label>
            ))}
          </fieldset>
        )}
        <div class="actions">
          <button type="submit" disabled={readOnly !== null} title={readOnly ?? undefined}>
            Save
          </button>
          <button type="button" class="danger" disabled={readOnly !== null} title={readOnly ?? undefined} onClick={() => void remove()}>
            Delete
          </button>
          <button type="button" class="secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </form>
      {saved && <p role="status">{saved}</p>}
      <Problem text={problem} />
    </section>
  );
}

export function MediaLibrary({ readOnly }: { readOnly: string | null }) {
  const [items, setItems] = useState<Media[] | null>(null);
  const [total, setTotal] = useState(0);
  const [offset, setOffset] = useState(0);
  const [search, setSearch] = useState('');
  const [type, setType] = useState<'all' | 'image' | 'video'>('all');
  const [tag, setTag] = useState('');
  const [tags, setTags] = useState<Tag[]>([]);
  const [version, setVersion] = useState(0);
  const [progress, setProgress] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [picked, setPicked] = useState<Media | null>(null);
  const [dragging, setDragging] = useState(false);
  useEffect(() => void run(mediaTagsQuery).then(({ data }) => setTags(data?.mediaTags ?? [])), []);
  useEffect(() => {
    const variables = { limit: pageSize, offset, type, ...(search.trim() ? { search: search.trim() } : {}), ...(tag ? { tagIds: [tag] } : {}) };
    // An answer overtaken by a newer query (typing in Search) is dropped, not shown over the newer one.
    let current = true;
    void run(mediaListQuery, variables).then(({ data, error }) => {
      if (!current) return;
      setProblem(error ? messageOf(error) : null);
      setItems(data?.mediaList.items ?? []);
      setTotal(data?.mediaList.total ?? 0);
    });
    return () => void (current = false);
  }, [offset, type, search, tag, version]);

  const upload = async (files: File[]) => {
    if (!files.length) return;
    setNotice(null);
    if (readOnly) return setProblem(`${readOnly}: nothing was uploaded.`);
    setProblem(null);
    const uploaded = await uploadFiles(files, setProgress);
    setProgress(null);
    if ('error' in uploaded) return setProblem(uploaded.error);
    const held = uploaded.duplicates.map((d) => d.filename);
    setNotice(`Uploaded ${uploaded.media.length} file${uploaded.media.length === 1 ? '' : 's'}.${held.length ? ` Already in the library: ${held.join(', ')}.` : ''}`);
    setOffset(0);
    setVersion((v) => v + 1);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void upload([...(event.dataTransfer?.files ?? [])]);
  };

  return (
    <main class="wide">
      <h1>Media</h1>
      <div
        class={`dropzone${dragging ? ' dragging' : ''}`}
        data-testid="dropzone"
        onDragOver={(e) => (e.preventDefault(), setDragging(readOnly === null))}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <p>{readOnly ?? 'Drop files here to upload them, or'}</p>
        <label class={`button${readOnly ? ' disabled' : ''}`}>
          Choose files
          <input type="file" multiple class="visually-hidden" disabled={readOnly !== null} onChange={(e) => void upload([...((e.currentTarget as HTMLInputElement).files ?? [])])} />
        </label>
        {progress && <p role="status">{progress}</p>}
      </div>
      {notice && <p role="status">{notice}</p>}
      <Problem text={problem} />
      <form class="toolbar" role="search" onSubmit={(e) => e.preventDefault()}>
        <label class="inline">
          Search
          <input type="search" value={search} onInput={(e) => (setSearch((e.currentTarget as HTMLInputElement).value), setOffset(0))} />
        </label>
        <label class="inline">
          Type
          <select value={type} onChange={(e) => (setType((e.currentTarget as HTMLSelectElement).value as typeof type), setOffset(0))}>
            <option value="all">all</option>
            <option value="image">images</option>
            <option value="video">videos</option>
          </select>
        </label>
        {tags.length > 0 && (
          <label class="inline">
            Tag
            <select value={tag} onChange={(e) => (setTag((e.currentTarget as HTMLSelectElement).value), setOffset(0))}>
              <option value="">any</option>
              {tags.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </form>
      {picked && <Details key={picked.id} media={picked} tags={tags} readOnly={readOnly} onChanged={() => setVersion((v) => v + 1)} onClose={() => setPicked(null)} />}
      {items === null ? (
        <p aria-busy="true">Loading…</p>
      ) : items.length ? (
        <ul class="media-grid">
          {items.map((m) => (
            <li key={m.id}>
              <button type="button" class="tile" aria-label={`Details of ${m.filename}`} aria-pressed={picked?.id === m.id} onClick={() => setPicked(m)}>
                {m.mimeType.startsWith('image/') ? <img src={thumbnail(m)} alt="" width={160} height={160} loading="lazy" /> : <span class="file-type">{m.mimeType}</span>}
                <span class="filename">{m.filename}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p>No media{search || tag || type !== 'all' ? ' match' : ' yet'}.</p>
      )}
      <nav class="actions" aria-label="Pages">
        <button type="button" class="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - pageSize))}>
          Previous page
        </button>
        <button type="button" class="secondary" disabled={offset + pageSize >= total} onClick={() => setOffset(offset + pageSize)}>
          Next page
        </button>
        <span class="hint">{total} in all</span>
      </nav>
    </main>
  );
}
