// Orders, the app's side: `payOrder`, one action that marks an order paid. Its GraphQL field declares
// the orders' update rule (scope orders:write); REST's POST /api/v1/orders/{id}/pay is a declaration
// over it. It writes through the orders' write path, so the definition's hooks (src/config/entities/
// orders.ts) set paidAt, refuse a paid order for non-managers and schedule the `order:paid` webhook.
import { entity, recordRoute, recordType, ruleOf, updateRecord } from '../../modules/entities/custom-operations.js';
import { defineModule } from '../../modules/module-description.js';

const orders = entity('orders');

export const ordersModule = defineModule({
  name: 'orders',
  registerSchema(b) {
    b.mutationField('payOrder', (t) =>
      t.field({
        type: recordType(b, orders),
        description: 'Marks an order paid (its hooks set paidAt and send the team’s order:paid webhook). Scope: orders:write.',
        authScopes: ruleOf(orders, 'update'),
        args: { id: t.arg.id({ required: true }) },
        resolve: (_root, { id }, ctx) => updateRecord(ctx, orders, String(id), { status: 'paid' }) as never,
      }),
    );
  },
  routes: [
    recordRoute(orders, {
      method: 'POST',
      path: '/api/v1/orders/{id}/pay',
      field: 'payOrder',
      kind: 'mutation',
      summary: 'Pay an order',
      description: 'Marks the order paid, as `PATCH {"status":"paid"}` would: paidAt is set and the team’s `order:paid` webhook sent; a paid order answers 422 to anyone but an owner or admin of its team.',
      rule: 'update',
    }),
  ],
});
