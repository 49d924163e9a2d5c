// GET|HEAD /api/v1/media/{id}/render: resized images, bytes not an envelope, cached on storage
// (render.ts). In the request pipeline with the rule of `media(id)` (media:read); one render queue per app.
// Its network I/O (storage, sharp) runs after the request's transaction has ended (networkIo `last`).
import { defineHttpRoute } from '../../rest/http-route.js';
import { mediaOpenApiPaths } from './openapi.js';
import { createRenditions } from './render.js';

export const renditionRoute = defineHttpRoute({
  methods: ['GET', 'HEAD'],
  path: '/api/v1/media/{id}/render',
  pipeline: true,
  ruleOf: 'Query.media',
  errorCodes: false,
  // Reading the record is the database phase; storage and sharp work run after the commit.
  networkIo: 'last',
  openApi: mediaOpenApiPaths['/api/v1/media/{id}/render'],
  start({ renderLimits }) {
    const renditions = createRenditions(renderLimits);
    return (request, ctx, params) => renditions.handle(request, ctx, params.id!);
  },
});
