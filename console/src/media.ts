// Media of the active team: uploads (POST /api/v1/media/upload, multipart field `files`, all or
// nothing) with their progress, and the thumbnail of a media record (its 320-pixel WebP rendition,
// GET /api/v1/media/{id}/render). An upload goes by XMLHttpRequest, the one browser API that reports a
// request body's progress; everything else goes through the typed client.

export interface UploadedMedia {
  id: string;
  url: string;
  filename: string;
  mimeType: string;
}

/** The 320-pixel rendition of a media record (the server renders images; other files answer 4xx). */
export const thumbnailOf = (id: string) => `/api/v1/media/${encodeURIComponent(id)}/render?w=320`;

/** Uploads `files`, saying how far it has got; the records made and the files the team already held, or what the server refused (each refused file and why). */
export function uploadFiles(files: File[], progress: (text: string) => void): Promise<{ media: UploadedMedia[]; duplicates: { filename: string }[] } | { error: string }> {
  const form = new FormData();
  for (const file of files) form.append('files', file, file.name);
  const what = files.length === 1 ? files[0]!.name : `${files.length} files`;
  progress(`Uploading ${what}…`);
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open('POST', '/api/v1/media/upload');
    request.withCredentials = true;
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) progress(`Uploading ${what}: ${Math.round((event.loaded / event.total) * 100)}%`);
    };
    request.onerror = () => resolve({ error: 'The upload could not reach the server. Try again.' });
    request.onload = () => {
      let body: { data?: { media?: UploadedMedia[]; duplicates?: { filename: string }[] }; error?: string; details?: { files?: { filename: string; reason: string }[] } } = {};
      try {
        body = JSON.parse(request.responseText) as typeof body;
      } catch {
        // Not JSON: said below by its status.
      }
      if (request.status >= 200 && request.status < 300 && body.data?.media) return resolve({ media: body.data.media, duplicates: body.data.duplicates ?? [] });
      const refused = body.details?.files?.map((f) => `${f.filename}: ${f.reason}`).join('; ');
      resolve({ error: refused ? `Refused: ${refused}` : (body.error ?? `The upload failed (${request.status}).`) });
    };
    request.send(form);
  });
}
