// Tasks: private to their creator within the team (shared: false).
import { defineEntity } from '../entity-definition.js';

export default defineEntity({
  name: 'Task',
  slug: 'tasks',
  tableName: 'tasks',
  planLimit: 'tasks',
  fields: [
    { name: 'title', type: 'string', required: true, searchable: true, sortable: true, validation: { min: 1, max: 200 } },
    { name: 'description', type: 'text', searchable: true, validation: { max: 10_000 } },
    { name: 'status', type: 'select', enum: ['todo', 'in-progress', 'review', 'done', 'blocked'], default: 'todo', sortable: true, filterable: true },
    { name: 'priority', type: 'select', enum: ['low', 'medium', 'high', 'urgent'], default: 'medium', sortable: true, filterable: true },
    { name: 'tags', type: 'multiselect', filterable: true },
    { name: 'dueDate', type: 'date', sortable: true, filterable: true },
    { name: 'estimatedHours', type: 'number', validation: { min: 0, max: 999 }, sortable: true, filterable: true },
    { name: 'completed', type: 'boolean', default: false, filterable: true },
  ],
  permissions: { list: ['tasks:read'], read: ['tasks:read'], create: ['tasks:write'], update: ['tasks:write'], delete: ['tasks:delete'] },
  access: { public: false, shared: false },
  // The board's column: one status, soonest due first.
  indexes: [{ fields: ['status', 'dueDate'] }],
  metas: true,
  // The console's list and record titles (docs/console.md).
  listColumns: ['title', 'status', 'priority', 'dueDate', 'completed'],
  titleField: 'title',
});
