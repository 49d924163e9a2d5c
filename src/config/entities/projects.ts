// Projects: shared by the whole team, and the example of relations (docs/api/entities.md, "Relations"). Each project
// may name its customer (a customer with projects cannot be deleted: restrict), a parent project (`parentProject`: its
// sub-projects are deleted with it: cascade) and the task marking its next milestone (a task is its
// creator's alone: others see null there; deleting the task clears it: setNull), and its tasks, many
// to many (written as `taskIds`; each sees those of the tasks that are theirs). Each relation's reverse
// side lists the projects naming a record: Customer.projects, Project.subProjects,
// Task.milestoneOfProjects, Task.projects.
import { defineEntity } from '../entity-definition.js';

export default defineEntity({
  name: 'Project',
  slug: 'projects',
  tableName: 'projects',
  fields: [
    { name: 'name', type: 'string', required: true, searchable: true, sortable: true, validation: { min: 1, max: 200 } },
    { name: 'status', type: 'select', enum: ['planned', 'active', 'done'], default: 'planned', sortable: true, filterable: true },
    { name: 'budget', type: 'number', sortable: true, filterable: true, validation: { min: 0 } },
    { name: 'customer', type: 'relation', to: 'customers', onDelete: 'restrict', filterable: true },
    { name: 'parentProject', type: 'relation', to: 'projects', onDelete: 'cascade', filterable: true, inverse: 'subProjects' },
    { name: 'milestone', type: 'relation', to: 'tasks', onDelete: 'setNull', inverse: 'milestoneOfProjects' },
    { name: 'tasks', type: 'relation', to: 'tasks', many: true, filterable: true },
    // Media of the team in the order given (`fileIds`); a deleted media leaves the list.
    { name: 'files', type: 'media', many: true },
  ],
  permissions: { list: ['projects:read'], read: ['projects:read'], create: ['projects:write'], update: ['projects:write'], delete: ['projects:delete'] },
  access: { public: false, shared: true },
});
