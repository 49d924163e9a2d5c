// The media library as the entities' media fields reach it (`Order.attachment`, `expand=attachment`):
// its record type on the builder the entities are registered on, the scope reading it needs, and the
// media of a page's records in one query, as the caller sees them.
import type { Builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import { mediaReadRule, mediaTypes } from '../media/schema.js';
import { mediaOfRecords } from '../media/service.js';
import type { Relations } from './graphql-relations.js';

export const mediaOfFields = (b: Builder): Relations['media'] => ({
  type: () => mediaTypes(b).media,
  authScopes: mediaReadRule,
  load: (ids, ctx) => mediaOfRecords(ctx as Context, ids),
});
