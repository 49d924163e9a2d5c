// OpenAPI operations of the media routes that are not JSON route declarations (the upload is
// multipart and streamed, see upload-route.ts; a rendition answers image bytes, see render.ts),
// merged into /api/v1/openapi.json beside the declared ones.
import { maxRenderDimension } from './render.js';
const errors = {
  '4XX': { description: 'Client error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
  '500': { description: 'Unexpected error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
};

const uploadAnswer = {
  type: 'object',
  properties: {
    success: { const: true },
    data: {
      type: 'object',
      required: ['message', 'urls', 'media', 'count', 'storage'],
      properties: {
        message: { type: 'string' },
        urls: { type: 'array', items: { type: 'string' } },
        media: { type: 'array', items: { type: 'object', description: 'A media record' } },
        count: { type: 'integer' },
        storage: { type: 'string', enum: ['local', 'hosted-blob', 's3', 'mixed'], description: 'The driver holding every file; mixed when the blob service failed partway through the batch (each url shows where its file is).' },
        duplicates: { type: 'array', items: { type: 'object' }, description: 'Earlier files of the team (or of this batch) with the same content (SHA-256).' },
        skipped: { type: 'array', items: { type: 'object', properties: { filename: { type: 'string' }, reason: { type: 'string' } } }, description: 'Empty files, not stored.' },
      },
    },
  },
};

export const mediaOpenApiPaths: Record<string, Record<string, unknown>> = {
  '/api/v1/media/upload': {
    post: {
      operationId: 'uploadMediaFiles',
      summary: 'Upload files (multipart field `files`, one or more): type from content, all or nothing',
      tags: ['Media'],
      security: [{ session: [] }, { bearer: [] }, { apiKey: [] }],
      parameters: [{ name: 'x-team-id', in: 'header', required: false, schema: { type: 'string', format: 'uuid' }, description: 'A team of the caller (default: the active team).' }],
      requestBody: {
        required: true,
        content: { 'multipart/form-data': { schema: { type: 'object', properties: { files: { type: 'array', items: { type: 'string', format: 'binary' } } }, required: ['files'] } } },
      },
      responses: {
        '200': { description: 'Every file stored and recorded', content: { 'application/json': { schema: uploadAnswer } } },
        '400': { description: '`Upload rejected`: nothing stored; `details.files[{filename, reason}]` names every refused file', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        '413': { description: 'The request is larger than every file at the largest size allows', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        ...errors,
      },
    },
  },
  '/api/v1/media/{id}/render': {
    get: {
      operationId: 'renderMedia',
      summary: 'A resized copy of an uploaded image (sharp), cached on storage (the newest MEDIA_RENDITIONS_PER_SOURCE per image); ETag and If-None-Match (304)',
      tags: ['Media'],
      security: [{ session: [] }, { bearer: [] }, { apiKey: [] }],
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
        { name: 'w', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: maxRenderDimension }, description: 'Width; w or h is required.' },
        { name: 'h', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: maxRenderDimension }, description: 'Height; w or h is required.' },
        { name: 'fit', in: 'query', required: false, schema: { type: 'string', enum: ['cover', 'contain', 'fill', 'inside', 'outside'], default: 'inside' } },
        { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['webp', 'avif', 'jpeg', 'png'], default: 'webp' } },
      ],
      responses: {
        '200': { description: 'The image (never larger than the original, except `contain` padding)', content: { 'image/webp': {}, 'image/avif': {}, 'image/jpeg': {}, 'image/png': {} } },
        '304': { description: 'If-None-Match matched the ETag' },
        '422': { description: 'Not a renderable uploaded image (a video, a registered record, a source too large)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        '503': { description: 'Too many renders waiting; Retry-After says when to try again' },
        ...errors,
      },
    },
  },
};
