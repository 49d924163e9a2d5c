// Media of the active team: uploads (the uploadMedia mutation, a multipart POST to /graphql by the
// GraphQL multipart request spec, all or nothing) with their progress, and the thumbnail of a media
// record (its 320-pixel WebP rendition: the route Media.renditions names, GET
// /api/v1/media/{id}/render, bytes that GraphQL does not carry). An upload goes by XMLHttpRequest,
// the one browser API that reports a request body's progress; everything else goes through the typed
// client (api.ts `run`).
import { graphql } from './generated/graphql/index.js';
import type { UploadMediaMutation } from './generated/graphql/graphql.js';

const uploadMediaMutation = graphql(`
  mutation UploadMedia($files: [Upload!]!) {
    uploadMedia(files: $files) {
      media {
        id
        url
        filename
        mimeType
      }
      duplicates {
        filename
      }
    }
  }
`);

export type UploadedMedia = UploadMediaMutation['uploadMedia']['media'][number];

/** The 320-pixel rendition of a media record (the server renders images; other files answer 4xx). */
export const thumbnailOf = (id: string) => `/api/v1/media/${encodeURIComponent(id)}/render?w=320`;

/** A GraphQL answer to the upload, as far as it is read here. */
interface UploadAnswer {
  data?: UploadMediaMutation | null;
  errors?: { message?: string; extensions?: { details?: { files?: { filename: string; reason: string }[] } } }[];
}

/** Uploads `files`, saying how far it has got; the records made and the files the team already held, or what the server refused (each refused file and why). */
export function uploadFiles(files: File[], progress: (text: string) => void): Promise<{ media: UploadedMedia[]; duplicates: { filename: string }[] } | { error: string }> {
  // The multipart request spec: `operations` (the files as nulls), `map` (part i is files.i), the files.
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: uploadMediaMutation.toString(), operationName: 'UploadMedia', variables: { files: files.map(() => null) } }));
  form.append('map', JSON.stringify(Object.fromEntries(files.map((_, i) => [String(i), [`variables.files.${i}`]]))));
  files.forEach((file, i) => form.append(String(i), file, file.name));
  const what = files.length === 1 ? files[0]!.name : `${files.length} files`;
  progress(`Uploading ${what}…`);
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open('POST', '/graphql');
    request.withCredentials = true;
    request.setRequestHeader('accept', 'application/graphql-response+json, application/json');
    // A multipart POST to /graphql carries a header no cross-site form can set (the server's CSRF rule).
    request.setRequestHeader('graphql-preflight', '1');
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) progress(`Uploading ${what}: ${Math.round((event.loaded / event.total) * 100)}%`);
    };
    request.onerror = () => resolve({ error: 'The upload could not reach the server. Try again.' });
    request.onload = () => {
      let body: UploadAnswer = {};
      try {
        body = JSON.parse(request.responseText) as UploadAnswer;
      } catch {
        // Not JSON: said below by its status.
      }
      const uploaded = body.data?.uploadMedia;
      if (uploaded && !body.errors?.length) return resolve({ media: uploaded.media, duplicates: uploaded.duplicates });
      const first = body.errors?.[0];
      const refused = first?.extensions?.details?.files?.map((f) => `${f.filename}: ${f.reason}`).join('; ');
      resolve({ error: refused ? `Refused: ${refused}` : (first?.message ?? `The upload failed (${request.status}).`) });
    };
    request.send(form);
  });
}
