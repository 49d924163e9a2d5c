// Posts: readable by anyone once published (access.public), soft-deleted.
import { defineEntity } from '../entity-definition.js';

export default defineEntity({
  name: 'Post',
  slug: 'posts',
  tableName: 'posts',
  fields: [
    { name: 'title', type: 'string', required: true, searchable: true, sortable: true, validation: { min: 1, max: 200 } },
    { name: 'slug', type: 'string', required: true, unique: true, filterable: true, validation: { pattern: '^[a-z0-9-]+$', max: 200 } },
    { name: 'status', type: 'select', enum: ['draft', 'published', 'archived'], default: 'draft', filterable: true, sortable: true },
    { name: 'excerpt', type: 'text', searchable: true, validation: { max: 1000 } },
    { name: 'publishedAt', type: 'datetime', sortable: true, filterable: true },
    // Deleting the cover deletes the post along (marks it deleted: posts soft-delete).
    { name: 'cover', type: 'media', onDelete: 'cascade' },
  ],
  permissions: { list: ['posts:read'], read: ['posts:read'], create: ['posts:write'], update: ['posts:write'], delete: ['posts:delete'] },
  access: { public: true, shared: true },
  publicFilter: { status: 'published' },
  softDelete: true,
});
