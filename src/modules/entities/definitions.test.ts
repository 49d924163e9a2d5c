// Definitions are checked once, at start-up, and drive the generators: a fixture definition becomes
// a Prisma model with its indexes and the RLS of its table; bad definitions stop with every reason.
import { readFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { entityDefinitions } from '../../config/entities/index.js';
import { reservedTableNames, reservedTypeNames } from '../../config/entity-names.js';
import { inversesOf, mediaFields } from '../../config/entity-relations.js';
import { sanitizeEntities } from '../../config/sanitize-entities.js';
import { createBuilder } from '../../graphql/builder.js';
import { composition } from '../../module-list.js';
import { entitiesPrisma } from './prisma-model.js';
import { mediaTrigger, rlsForCreatedTables } from './rls.js';
import { registerEntities } from './schema.js';

const fixture = {
  name: 'Receipt',
  slug: 'receipts',
  tableName: 'receipts',
  fields: [
    { name: 'number', type: 'string', required: true, unique: true, searchable: true },
    { name: 'amount', type: 'number', sortable: true, filterable: true, validation: { min: 0 } },
    { name: 'labels', type: 'multiselect', filterable: true },
    { name: 'issuedOn', type: 'date', sortable: true },
  ],
  permissions: { list: ['receipts:read'], read: ['receipts:read'] },
  access: { shared: true },
  softDelete: true,
  indexes: [{ fields: ['amount', 'issuedOn'] }],
};

describe('entity definitions', () => {
  it('sanitizes a definition: defaults filled, missing permissions are empty (deny)', () => {
    const [d] = sanitizeEntities([fixture]);
    expect(d!.permissions).toEqual({ list: ['receipts:read'], read: ['receipts:read'], create: [], update: [], delete: [] });
    expect(d!.operations).toEqual({ list: true, create: true, read: true, update: true, delete: true });
    expect(d!.access).toEqual({ public: false, shared: true });
    expect(d!.fields[1]).toMatchObject({ required: false, searchable: false, sortable: true, filterable: true });
  });

  it('generates the Prisma model with owner, indexes and per-team uniqueness', () => {
    const prisma = entitiesPrisma(sanitizeEntities([fixture]));
    expect(prisma).toContain('model Receipt {');
    expect(prisma).toContain('  issuedOn DateTime? @db.Date @map("issued_on")');
    expect(prisma).toContain('  labels String[] @default([])');
    expect(prisma).toContain('  deletedAt DateTime? @map("deleted_at") @db.Timestamptz(3)');
    expect(prisma).toContain('  @@index([teamId, createdAt])');
    // Soft-deleting: unique among the live records (a deleted record's number is free again).
    expect(prisma).toContain('  @@unique([teamId, number], where: { deletedAt: null })');
    expect(prisma).toContain('  @@index([teamId, amount])');
    expect(prisma).toContain('  @@index([labels], type: Gin)');
    expect(prisma).toContain('  @@index([teamId, amount, issuedOn, id])');
    expect(prisma).toContain('  @@map("receipts")');
  });

  const sdlOf = (definition: object) => {
    const b = createBuilder();
    registerEntities(b, sanitizeEntities([definition]));
    return printSchema(b.toSchema());
  };
  const blockOf = (sdl: string, head: string) => sdl.slice(sdl.indexOf(head), sdl.indexOf('}', sdl.indexOf(head)));
  const linesOf = (sdl: string, head: string) => blockOf(sdl, head).split('\n').slice(1).map((l) => l.trim()).filter((l) => l && !l.startsWith('"'));

  it('builds the GraphQL type, inputs, filter, list arguments, queries and mutations from a fixture definition', () => {
    const sdl = sdlOf({ ...fixture, fields: [...fixture.fields, { name: 'state', type: 'select', enum: ['open', 'in-review', '2nd-pass'], filterable: true, sortable: true }, { name: 'paidAt', type: 'datetime' }, { name: 'extra', type: 'json' }] });
    for (const line of ['number: String!', 'amount: Float', 'labels: [String!]!', 'issuedOn: Date', 'state: ReceiptState', 'paidAt: DateTime', 'extra: JSON', 'deletedAt: DateTime', 'createdAt: DateTime!', 'teamId: ID']) {
      expect(blockOf(sdl, 'type Receipt {')).toContain(`  ${line}\n`);
    }
    expect(linesOf(sdl, 'enum ReceiptState {')).toEqual(['IN_REVIEW', 'OPEN', '_2ND_PASS']);
    expect(linesOf(sdl, 'input CreateReceiptInput {')).toEqual(['amount: Float', 'extra: JSON', 'issuedOn: Date', 'labels: [String!]', 'number: String!', 'paidAt: DateTime', 'state: ReceiptState']);
    expect(linesOf(sdl, 'input UpdateReceiptInput {')).toContain('number: String');
    expect(linesOf(sdl, 'input ReceiptFilter {')).toEqual(['amount: Float', 'amount_max: Float', 'amount_min: Float', 'labels: String', 'state: ReceiptState']);
    expect(linesOf(sdl, 'enum ReceiptSortField {')).toEqual(['amount', 'createdAt', 'issuedOn', 'state', 'updatedAt']);
    expect(linesOf(sdl, 'enum ReceiptDateField {')).toEqual(['createdAt', 'issuedOn', 'paidAt', 'updatedAt']);
    const list = sdl.slice(sdl.indexOf('  receipts('), sdl.indexOf('): ReceiptPage!', sdl.indexOf('  receipts(')));
    for (const arg of ['first: Int', 'after: String', 'filter: ReceiptFilter', 'sortBy: ReceiptSortField', 'sortOrder: SortOrder', 'dateField: ReceiptDateField', 'from: Date', 'distinct: ReceiptFieldName', 'search: String']) expect(list).toContain(arg);
    expect(linesOf(sdl, 'type ReceiptPage {')).toEqual(['edges: [ReceiptEdge!]!', 'endCursor: String', 'items: [Receipt!]!', 'limit: Int!', 'page: Int', 'pageInfo: PageInfo!', 'total: Int!', 'totalPages: Int!', 'values: [DistinctValue!]!']);
    expect(sdl).toContain('receipt(id: ID!): Receipt!');
    expect(sdl).toContain('createReceipt(input: CreateReceiptInput!): Receipt!');
    expect(sdl).toContain('updateReceipt(id: ID!, input: UpdateReceiptInput!): Receipt!');
    expect(sdl).toMatch(/deleteReceipt\(\s*id: ID!\s*"""[^"]*"""\s*purge: Boolean\s*\): ReceiptDeletion!/);
    expect(sdl).toContain('restoreReceipt(id: ID!): Receipt!');
    expect(sdl).toContain('restoreReceiptVersion(id: ID!, version: Int!): Receipt!');
    expect(sdl).toMatch(/trashedReceipts\(/);
    expect(sdl).not.toMatch(/receipt[^\n]*JSONObject/i);
  });

  it('leaves a disabled operation out of the schema, with the types only it would use', () => {
    const sdl = sdlOf({ ...fixture, operations: { list: false, create: false, read: true, update: true, delete: false } });
    expect(sdl).toContain('receipt(id: ID!): Receipt!');
    expect(sdl).toContain('updateReceipt(id: ID!, input: UpdateReceiptInput!): Receipt!');
    for (const absent of ['receipts(', 'createReceipt', 'deleteReceipt', 'CreateReceiptInput', 'ReceiptPage', 'ReceiptDeletion', 'ReceiptFilter']) expect(sdl).not.toContain(absent);
  });

  it('generates RLS for the tables a migration creates, and only for those', () => {
    const defs = sanitizeEntities([fixture]);
    const sql = rlsForCreatedTables(defs, 'CREATE TABLE "receipts" (…);');
    expect(sql).toContain('HAND-WRITTEN');
    expect(sql).toContain('ALTER TABLE "receipts" FORCE ROW LEVEL SECURITY;');
    expect(sql).toContain('CREATE POLICY receipts_select ON "receipts" FOR SELECT USING ((team_id = ANY (ARRAY(SELECT app_user_team_ids()))));');
    expect(sql).toContain('app_user_writable_team_ids()');
    // Its writes keep its record versions and counts (the rows before an update too); a TRUNCATE forgets them.
    const kind = defs[0]!.softDelete ? 'soft' : 'hard';
    expect(sql).toContain(`CREATE TRIGGER receipts_versions_update AFTER UPDATE ON "receipts" REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions('${kind}');`);
    expect(sql).toContain('CREATE TRIGGER receipts_versions_truncate AFTER TRUNCATE ON "receipts" FOR EACH STATEMENT EXECUTE FUNCTION app_forget_record_counts();');
    // A migration that creates no table has no policies, but rewrites the media trigger (a media field may have come or gone).
    const altered = rlsForCreatedTables(defs, 'ALTER TABLE "receipts" ADD COLUMN "x" TEXT;');
    expect(altered).not.toContain('CREATE POLICY');
    expect(altered).toContain('CREATE OR REPLACE FUNCTION app_media_deleted()');
    expect(rlsForCreatedTables(defs, '')).toBe('');
  });

  it('turns media fields into their ids, and each onDelete into the media trigger’s action', () => {
    const [d] = sanitizeEntities([
      {
        ...fixture,
        fields: [
          ...fixture.fields,
          { name: 'scan', type: 'media', required: true },
          { name: 'photos', type: 'media', many: true },
          { name: 'proof', type: 'media', onDelete: 'cascade' },
        ],
      },
    ]);
    const media = mediaFields(d!);
    expect(media.map((f) => [f.name, f.relation, f.onDelete])).toEqual([['scanId', 'scan', 'restrict'], ['photoIds', 'photos', 'setNull'], ['proofId', 'proof', 'cascade']]);
    const sql = mediaTrigger([d!]).join('\n');
    // Receipts soft-delete: a deleted receipt does not hold its media, and cascading marks receipts deleted.
    expect(sql).toContain(`IF EXISTS (SELECT 1 FROM "receipts" WHERE "scan_id" = OLD.id AND deleted_at IS NULL) THEN RAISE EXCEPTION`);
    expect(sql).toContain(`UPDATE "receipts" SET "photo_ids" = array_remove("photo_ids", OLD.id), updated_at = now() WHERE "photo_ids" @> ARRAY[OLD.id];`);
    expect(sql).toContain(`UPDATE "receipts" SET deleted_at = now() WHERE "proof_id" = OLD.id AND deleted_at IS NULL;`);
    // The refusal comes before any change.
    expect(sql.indexOf('RAISE')).toBeLessThan(sql.indexOf('array_remove'));
  });

  it.each([
    [{ ...fixture, extra: true }, /Unrecognized key/],
    [{ ...fixture, fields: [...fixture.fields, { name: 'amount', type: 'number' }] }, /duplicate field "amount"/],
    [{ ...fixture, fields: [{ name: 'teamId', type: 'string' }] }, /"teamId" is a reserved name/],
    [{ ...fixture, fields: [{ name: 'Bad Name', type: 'string' }] }, /camelCase identifier/],
    [{ ...fixture, tableName: 'receipts; DROP TABLE users' }, /SQL identifier/],
    [{ ...fixture, tableName: 'users' }, /belongs to the platform/],
    [{ ...fixture, fields: [{ name: 'state', type: 'select' }] }, /needs "enum"/],
    [{ ...fixture, fields: [{ name: 'state', type: 'select', enum: ['a'], default: 'b' }] }, /default "b" does not fit/],
    [{ ...fixture, fields: [{ name: 'code', type: 'string', validation: { pattern: '(' } }] }, /not a valid regular expression/],
    [{ ...fixture, fields: [{ name: 'size', type: 'float' }] }, /Invalid option/],
    [{ ...fixture, fields: [{ name: 'price', type: 'decimal', precision: 4, scale: 6 }] }, /scale \(6\) cannot exceed precision \(4\)/],
    [{ ...fixture, fields: [{ name: 'price', type: 'number', scale: 2 }] }, /"precision" and "scale" apply to decimal fields only/],
    [{ ...fixture, fields: [{ name: 'price', type: 'decimal', default: '1.234' }] }, /default "1.234" does not fit type decimal/],
    [{ ...fixture, indexes: [{ fields: ['amount', 'nope'] }] }, /indexes\[0\]: unknown field "nope"/],
    [{ ...fixture, indexes: [{ fields: ['labels'] }] }, /a multiselect field cannot be in a composite index/],
    [{ ...fixture, indexes: [{ fields: ['amount', 'amount'] }] }, /field "amount" is listed twice/],
    [{ ...fixture, listColumns: ['number', 'nope'] }, /listColumns names unknown field "nope"/],
    [{ ...fixture, listColumns: ['number', 'number'] }, /listColumns names "number" twice/],
    [{ ...fixture, titleField: 'amount' }, /titleField must name a text field/],
    [{ ...fixture, titleField: 'nope' }, /titleField must name a text field/],
  ])('refuses a bad definition (%#) with a clear message', (bad, message) => {
    expect(() => sanitizeEntities([bad])).toThrow(message);
  });

  it("keeps the console's presentation hints, naming fields as the definition writes them", () => {
    const client = { name: 'Client', slug: 'clients', tableName: 'clients', fields: [{ name: 'name', type: 'string' }], permissions: {} };
    const [d] = sanitizeEntities([{ ...fixture, label: 'Till receipts', listColumns: ['number', 'payer', 'amount'], titleField: 'number', fields: [...fixture.fields, { name: 'payer', type: 'relation', to: 'clients' }] }, client]);
    expect([d!.label, d!.listColumns, d!.titleField]).toEqual(['Till receipts', ['number', 'payer', 'amount'], 'number']);
  });

  it('refuses two entities with the same slug or table', () => {
    expect(() => sanitizeEntities([fixture, { ...fixture, name: 'Bill' }])).toThrow(/duplicate entity slug "receipts"[\s\S]*duplicate table name "receipts"/);
  });
});

describe('relations', () => {
  const client = { name: 'Client', slug: 'clients', tableName: 'clients', fields: [{ name: 'name', type: 'string', required: true }], permissions: { read: ['clients:read'] }, access: { shared: true } };
  const withRelation = (field: object) => ({ ...fixture, fields: [...fixture.fields, { name: 'client', type: 'relation', to: 'clients', ...field }] });

  it('stores a relation as the related id, with its onDelete rule, foreign key and index', () => {
    const definitions = sanitizeEntities([withRelation({ filterable: true }), client]);
    expect(definitions[0]!.fields.at(-1)).toMatchObject({ name: 'clientId', relation: 'client', to: 'clients', onDelete: 'setNull' });
    expect(sanitizeEntities([withRelation({ required: true }), client])[0]!.fields.at(-1)!.onDelete).toBe('restrict');
    const prisma = entitiesPrisma(definitions);
    expect(prisma).toContain('  clientId String? @db.Uuid @map("client_id")');
    expect(prisma).toContain('  client Client? @relation("ReceiptClient", fields: [clientId], references: [id], onDelete: SetNull)');
    expect(prisma).toContain('  receiptsByClient Receipt[] @relation("ReceiptClient")');
    expect(prisma).toContain('  @@index([clientId])');
  });

  it.each([
    [{ to: 'nowhere' }, /"to" names no entity \("nowhere"\)/],
    [{ to: undefined }, /a relation needs "to"/],
    [{ required: true, onDelete: 'setNull' }, /a required relation cannot be cleared/],
    [{ sortable: true }, /a relation cannot be sortable/],
    [{ name: 'team' }, /"team" is already a name of Receipt/],
  ])('refuses a relation %j', (field, message) => {
    expect(() => sanitizeEntities([withRelation(field), client])).toThrow(message);
  });

  it('names the reverse side on the target after the referring entity, or as "inverse" says; two alike are refused', () => {
    const [receipts, clients] = sanitizeEntities([withRelation({}), client]);
    expect(inversesOf(clients!)).toEqual([{ source: receipts, field: receipts!.fields.at(-1), name: 'receipts' }]);
    const twice = { ...fixture, fields: [...fixture.fields, { name: 'client', type: 'relation', to: 'clients' }, { name: 'payer', type: 'relation', to: 'clients' }] };
    expect(() => sanitizeEntities([twice, client])).toThrow(/entity receipts.fields.payer: its reverse side "receipts" is already a name of Client \(name it with "inverse"\)/);
    const named = { ...twice, fields: [...fixture.fields, { name: 'client', type: 'relation', to: 'clients' }, { name: 'payer', type: 'relation', to: 'clients', inverse: 'paidReceipts' }] };
    expect(inversesOf(sanitizeEntities([named, client])[1]!).map((i) => i.name)).toEqual(['receipts', 'paidReceipts']);
    expect(() => sanitizeEntities([withRelation({ inverse: 'name' }), client])).toThrow(/its reverse side "name" is already a name of Client/);
  });

  it('refuses "to" on other fields and relations in children', () => {
    expect(() => sanitizeEntities([{ ...fixture, fields: [...fixture.fields, { name: 'x', type: 'string', to: 'clients' }] }, client])).toThrow(/"to", "onDelete", "inverse" and "many" apply to relation and media fields only/);
    const child = { name: 'Line', slug: 'lines', tableName: 'receipt_lines', fields: [{ name: 'client', type: 'relation', to: 'clients' }] };
    expect(() => sanitizeEntities([{ ...fixture, children: [child] }, client])).toThrow(/relations belong to entities, not to children/);
  });
});

describe('one name for REST, GraphQL and the client', () => {
  const named = (name: string, slug: string, pluralName?: string) => ({ ...fixture, name, slug, tableName: slug.replace(/-/g, '_'), ...(pluralName ? { pluralName } : {}) });

  it('gives English plurals (Category: categories) and takes pluralName where they are wrong (Person: people)', () => {
    const [categories, boxes, people, sales] = sanitizeEntities([named('Category', 'categories'), named('Box', 'boxes'), named('Person', 'people', 'People'), named('SalesInvoice', 'sales-invoices')]);
    expect([categories, boxes, people, sales].map((d) => d!.pluralName)).toEqual(['Categories', 'Boxes', 'People', 'SalesInvoices']);
    const b = createBuilder();
    registerEntities(b, [categories!, people!, sales!]);
    const printed = printSchema(b.toSchema());
    for (const field of ['categories(', 'people(', 'salesInvoices(']) expect(printed).toContain(field);
  });

  it('refuses a slug and a type whose names differ, saying how to make them one', () => {
    expect(() => sanitizeEntities([named('SalesInvoice', 'invoices')])).toThrow(
      'entity invoices: REST names it /api/v1/invoices but GraphQL and the client "salesInvoices" (from name "SalesInvoice"): make them one, with slug "sales-invoices" or a name (or pluralName) that gives "invoices"',
    );
    expect(() => sanitizeEntities([named('Person', 'people')])).toThrow(/REST names it \/api\/v1\/people but GraphQL and the client "persons"/);
  });
});

describe('the platform’s own names', () => {
  it('are every Prisma model, table and GraphQL type the platform has, and leave Invoice, Order, Plan and Product to apps', () => {
    const prisma = readFileSync(new URL('../../../prisma/schema.prisma', import.meta.url), 'utf8');
    const models = [...prisma.matchAll(/^model (\w+) \{/gm)].map((m) => m[1]!);
    const tables = [...prisma.matchAll(/@@map\("(\w+)"\)/g)].map((m) => m[1]!);
    expect(models.length).toBeGreaterThan(20);
    expect(models.filter((m) => !reservedTypeNames.includes(m))).toEqual([]);
    expect(tables.filter((t) => !reservedTableNames.includes(t))).toEqual([]);
    // The GraphQL types no entity made: the served schema's, less those the definitions make alone.
    const b = createBuilder();
    b.queryType({});
    b.mutationType({});
    registerEntities(b, entityDefinitions);
    const madeByEntities = new Set(Object.keys(b.toSchema().getTypeMap()));
    const platform = Object.keys(composition.schema.getTypeMap()).filter((n) => !n.startsWith('__') && !madeByEntities.has(n) && !/^[A-Z]\w*Events?$/.test(n) && n !== 'EntityChangeType');
    expect(platform.filter((n) => !reservedTypeNames.includes(n))).toEqual([]);
    const [invoices, ...free] = sanitizeEntities(['Invoice', 'Plan', 'Product', 'Setting'].map((name) => ({ ...fixture, name, slug: `${name.toLowerCase()}s`, tableName: `${name.toLowerCase()}s` })));
    expect([invoices, ...free].map((d) => d!.name)).toEqual(['Invoice', 'Plan', 'Product', 'Setting']);
    expect(() => sanitizeEntities([{ ...fixture, name: 'Media', slug: 'media', tableName: 'media_items', pluralName: 'Media' }])).toThrow('entity media: type name "Media" belongs to the platform');
  });
});

describe('virtual fields and hooks', () => {
  const withVirtual = (field: object, hooks: object | null = { afterRead: () => ({}) }) => ({ ...fixture, fields: [...fixture.fields, { name: 'total', type: 'number', virtual: true, ...field }], ...(hooks ? { hooks } : {}) });

  it('keeps a virtual field apart: no column, in the GraphQL type (output only)', () => {
    const [d] = sanitizeEntities([withVirtual({})]);
    expect(d!.fields.map((f) => f.name)).not.toContain('total');
    expect(d!.virtuals.map((f) => f.name)).toEqual(['total']);
    expect(entitiesPrisma([d!])).not.toMatch(/\btotal\b/);
    const b = createBuilder();
    registerEntities(b, [d!]);
    const printed = printSchema(b.toSchema());
    expect(printed).toMatch(/type Receipt \{[^}]*\btotal: Float\n/);
    expect(printed).not.toMatch(/input CreateReceiptInput \{[^}]*\btotal\b/);
    expect(printed).not.toMatch(/input ReceiptWhere \{[^}]*\btotal\b/);
  });

  it('refuses a virtual field without afterRead, or with stored settings, or a relation; a hook that is no function', () => {
    expect(() => sanitizeEntities([withVirtual({}, null)])).toThrow(/virtual fields \(total\) need hooks.afterRead to compute them/);
    expect(() => sanitizeEntities([withVirtual({ filterable: true })])).toThrow(/fields.total: a virtual field is computed by hooks.afterRead: it takes no required, unique/);
    expect(() => sanitizeEntities([withVirtual({ name: 'buyer', type: 'relation', to: 'receipts' })])).toThrow(/a relation cannot be virtual/);
    expect(() => sanitizeEntities([{ ...fixture, hooks: { beforeChange: 'no' } }])).toThrow(/hooks.beforeChange: must be a function/);
    expect(() => sanitizeEntities([{ ...fixture, hooks: { beforeSave: () => {} } }])).toThrow(/hooks: Unrecognized key: "beforeSave"/);
  });
});

describe('disabled operations', () => {
  it('answers 405 METHOD_NOT_ALLOWED before anything else when the definition disables an operation', async () => {
    const { list } = await import('./service.js');
    const { remove, create } = await import('./writes.js');
    const [d] = sanitizeEntities([{ ...fixture, operations: { delete: false, create: false, list: true, read: true, update: true } }]);
    const scope = { actor: { kind: 'anonymous' } } as unknown as Parameters<typeof remove>[0];
    await expect(remove(scope, d!, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'METHOD_NOT_ALLOWED', status: 405 });
    await expect(create(scope, d!, {})).rejects.toMatchObject({ code: 'METHOD_NOT_ALLOWED', status: 405 });
    // An enabled operation goes on to authentication (anonymous, not public → 401).
    await expect(list(scope, d!, {})).rejects.toMatchObject({ code: 'AUTHENTICATION_FAILED', status: 401 });
  });
});
