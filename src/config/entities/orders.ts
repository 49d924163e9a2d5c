// Orders: the example of an app's rules written as hooks (docs/api/hooks.md). Shared by the team.
// - `number` is given by beforeChange on create, `ORD-0001`, `ORD-0002`… per team: the team's orders
//   are counted under a transaction lock of the team, so concurrent creates never share a number (the
//   unique index is the backstop);
// - `paidAt` is set by beforeChange when the status becomes `paid`;
// - a paid order cannot be changed or deleted, except by an owner or admin of the team;
// - afterChange schedules the team's `order:paid` webhook event when an order is paid;
// - `lineCount` is virtual: afterRead counts `lines`;
// - `amount` is an exact decimal (numeric(12,2), a string in JSON: "12.30"), never negative;
// - `attachment` is a media record of the team (`attachmentId`; `expand=attachment`), cleared when that media is deleted.
import { defineEntity } from '../entity-definition.js';

/** Roles that may still change or delete a paid order. */
const managers = ['owner', 'admin'];

export default defineEntity({
  name: 'Order',
  slug: 'orders',
  tableName: 'orders',
  fields: [
    { name: 'number', type: 'string', unique: true, sortable: true, filterable: true, searchable: true, validation: { max: 20 } },
    { name: 'customer', type: 'relation', to: 'customers', required: true, onDelete: 'restrict', filterable: true },
    { name: 'amount', type: 'decimal', precision: 12, scale: 2, default: '0.00', validation: { min: 0 }, sortable: true, filterable: true },
    { name: 'status', type: 'select', enum: ['draft', 'placed', 'paid'], default: 'draft', sortable: true, filterable: true },
    { name: 'paidAt', type: 'datetime', sortable: true },
    { name: 'lines', type: 'json' },
    { name: 'attachment', type: 'media' },
    { name: 'lineCount', type: 'integer', virtual: true },
  ],
  permissions: { list: ['orders:read'], read: ['orders:read'], create: ['orders:write'], update: ['orders:write'], delete: ['orders:delete'] },
  access: { public: false, shared: true },
  hooks: {
    async beforeChange({ operation, data, previous, context }) {
      const manager = managers.includes(context.caller.role ?? '');
      if (previous?.status === 'paid' && !manager) throw context.invalid({ status: 'a paid order cannot be changed (only an owner or admin of the team may)' });
      const next = { ...data };
      if (operation === 'create') {
        // The team's last number, read under a lock of the team held until the write commits.
        const last = await context.system('order numbers: the highest of the team, under its lock', async (tx) => {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('orders:number'), hashtext(${context.caller.teamId}))`;
          const [row] = await tx.$queryRaw<{ n: number | null }[]>`SELECT max(substring(number from 5)::int) AS n FROM orders WHERE team_id = ${context.caller.teamId}::uuid AND number ~ '^ORD-[0-9]+$'`;
          return row?.n ?? 0;
        });
        next.number = `ORD-${String(last + 1).padStart(4, '0')}`;
      } else if (data.number !== undefined && data.number !== previous?.number) {
        throw context.invalid({ number: 'is given when the order is created and cannot change' });
      }
      if (data.status === 'paid' && previous?.status !== 'paid') next.paidAt = context.now().toISOString();
      if (data.status !== undefined && data.status !== 'paid' && previous?.status === 'paid') next.paidAt = null;
      return next;
    },
    async afterChange({ record, previous, context }) {
      if (record.status !== 'paid' || previous?.status === 'paid') return;
      await context.schedule('webhook:send', { eventType: 'order:paid', entityType: 'orders', entityId: record.id, data: { id: record.id, number: record.number, customerId: record.customerId, paidAt: record.paidAt } });
    },
    beforeDelete({ record, context }) {
      if (record.status === 'paid' && !managers.includes(context.caller.role ?? '')) throw context.conflict('A paid order cannot be deleted (only an owner or admin of the team may)');
    },
    afterRead({ record }) {
      return { lineCount: Array.isArray(record.lines) ? record.lines.length : 0 };
    },
  },
  listColumns: ['number', 'customer', 'amount', 'status', 'paidAt'],
  titleField: 'number',
});
