// Hooks are typed from the definition's own fields (issue 37): `npm run typecheck` (CI) compiles this
// file, and each `@ts-expect-error` line must be an error there, so a hook naming a field that is not
// there, or a value the field cannot hold, does not compile. At run time the definition it types is
// sanitized as any other.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineEntity } from './entity-definition.js';
import { sanitizeEntities } from './sanitize-entities.js';

const definition = defineEntity({
  name: 'Bill',
  slug: 'bills',
  tableName: 'bills',
  fields: [
    { name: 'title', type: 'string', required: true },
    { name: 'count', type: 'integer' },
    { name: 'state', type: 'select', enum: ['open', 'closed'] },
    { name: 'client', type: 'relation', to: 'bills', inverse: 'billsOfClient' },
    { name: 'items', type: 'relation', to: 'bills', many: true, inverse: 'billsOfItem' },
    { name: 'dueOn', type: 'date' },
    { name: 'size', type: 'integer', virtual: true },
  ],
  hooks: {
    beforeChange({ data, previous }) {
      expectTypeOf(data.title).toEqualTypeOf<string | undefined>();
      expectTypeOf(data.count).toEqualTypeOf<number | null | undefined>();
      expectTypeOf(data.state).toEqualTypeOf<'open' | 'closed' | null | undefined>();
      expectTypeOf(data.clientId).toEqualTypeOf<string | null | undefined>();
      expectTypeOf(data.itemIds).toEqualTypeOf<string[] | null | undefined>();
      expectTypeOf(data.dueOn).toEqualTypeOf<string | null | undefined>();
      expectTypeOf(previous?.title).toEqualTypeOf<string | undefined>();
      // @ts-expect-error: no field "titel"
      void data.titel;
      // @ts-expect-error: a relation is written as its id field, clientId
      void data.client;
      // @ts-expect-error: a virtual field is never written
      void data.size;
      // @ts-expect-error: not a value of state
      const wrong: 'paid' | null | undefined = data.state;
      void wrong;
      return { ...data, count: 1 };
    },
    afterChange({ record }) {
      expectTypeOf(record.id).toEqualTypeOf<string>();
      expectTypeOf(record.teamId).toEqualTypeOf<string>();
      expectTypeOf(record.title).toEqualTypeOf<string>();
    },
    // @ts-expect-error: afterRead gives the virtual fields, typed (size is a number)
    afterRead: () => ({ size: 'big' }),
  },
});

describe('typed hooks', () => {
  it('a definition typed by defineEntity is sanitized as any other (hooks kept, virtual field apart)', () => {
    const [d] = sanitizeEntities([definition]);
    expect(typeof d!.hooks?.beforeChange).toBe('function');
    expect(d!.virtuals.map((f) => f.name)).toEqual(['size']);
  });
});
