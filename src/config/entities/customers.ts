// Customers: shared by the whole team, with notes as a child entity.
import { defineEntity } from '../entity-definition.js';

const days = ['lun', 'mar', 'mie', 'jue', 'vie'];

export default defineEntity({
  name: 'Customer',
  slug: 'customers',
  tableName: 'customers',
  planLimit: 'customers',
  fields: [
    { name: 'name', type: 'string', required: true, searchable: true, sortable: true, validation: { min: 1, max: 200 } },
    { name: 'account', type: 'integer', required: true, unique: true, sortable: true, filterable: true, validation: { min: 0 } },
    { name: 'office', type: 'string', required: true, filterable: true, sortable: true, validation: { max: 200 } },
    { name: 'phone', type: 'string', validation: { max: 50 } },
    { name: 'salesRep', type: 'string', filterable: true, sortable: true, validation: { max: 200 } },
    { name: 'visitDays', type: 'multiselect', enum: days, filterable: true },
    { name: 'contactDays', type: 'multiselect', enum: days, filterable: true },
    // A media record of the team that cannot be deleted while a customer shows it.
    { name: 'logo', type: 'media', onDelete: 'restrict', filterable: true },
  ],
  permissions: { list: ['customers:read'], read: ['customers:read'], create: ['customers:write'], update: ['customers:write'], delete: ['customers:delete'] },
  access: { public: false, shared: true },
  metas: true,
  children: [{ name: 'Note', slug: 'notes', tableName: 'customer_notes', fields: [{ name: 'body', type: 'text', required: true, validation: { min: 1, max: 10_000 } }] }],
});
