// OpenAPI operations of the media routes that are not JSON route declarations (the upload is
// multipart and streamed; see upload-route.ts), merged into /api/v1/openapi.json beside the declared ones.
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
        storage: { type: 'string', enum: ['local', 'hosted-blob', 's3'] },
        duplicates: { type: 'array', items: { type: 'object' }, description: 'Earlier files of the team (or of this batch) with the same content (SHA-256).' },
        skipped: { type: 'array', items: { type: 'object', properties: { filename: { type: 'string' }, reason: { type: 'string' } } }, description: 'Empty files, not stored.' },
      },
    },
  },
};

export const mediaOpenApiPaths: Record<string, Record<string, unknown>> = {
  '/api/v1/media/upload': {
    post: {
      summary: 'Upload files (multipart field `files`, one or more): type from content, all or nothing',
      tags: ['media'],
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
};
