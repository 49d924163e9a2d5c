// S8's data: customers of the bench user's team, each with metas and notes (the customers' child
// entity), seeded straight in SQL like the tasks. LIST with `child=all&metas=all` at two page sizes
// must cost the same number of SQL statements (children in one query per page, not one per record);
// here are those requests and the answers they must give, read in SQL without RLS.
import type pg from 'pg';
import { withClient } from './database.js';
import type { RecordOwner } from './tasks.js';

export const customerCount = 200;
export const notesPerCustomer = 3;
/** The page sizes S8 compares. */
export const childPageSizes = [20, 100] as const;
export type ChildPageSize = (typeof childPageSizes)[number];

export const customersWithChildrenPath = (limit: number) => `/api/v1/customers?child=all&metas=all&limit=${limit}`;

/** Ids derived from the row numbers: the same rows on every run. */
const seedSql = `
WITH inserted AS (
  INSERT INTO customers (id, team_id, user_id, name, account, office, phone, sales_rep, visit_days, contact_days, metas, created_at, updated_at)
  SELECT md5('bench-customer-' || n)::uuid, $1::uuid, $2::uuid, 'Customer ' || n, 10000 + n,
         (ARRAY['Madrid', 'Sevilla', 'Valencia', 'Bilbao'])[1 + n % 4], '+34 600 000 ' || lpad(n::text, 3, '0'),
         (ARRAY['Ana', 'Luis', 'Marta'])[1 + n % 3],
         CASE n % 3 WHEN 0 THEN ARRAY['lun', 'mie'] WHEN 1 THEN ARRAY['mar', 'jue'] ELSE ARRAY['vie'] END,
         ARRAY[(ARRAY['lun', 'mar', 'mie', 'jue', 'vie'])[1 + n % 5]],
         jsonb_build_object('segment', (ARRAY['retail', 'wholesale'])[1 + n % 2], 'source', 'bench'),
         timestamptz '2025-06-01 00:00:00+00' + n * interval '1 hour',
         timestamptz '2025-06-01 00:00:00+00' + n * interval '1 hour'
    FROM generate_series(1, $3::int) AS n
  RETURNING id, created_at
)
INSERT INTO customer_notes (id, team_id, user_id, parent_id, body, created_at, updated_at)
SELECT md5(c.id::text || '-note-' || k)::uuid, $1::uuid, $2::uuid, c.id, 'Note ' || k || ': called, follow up next week.',
       c.created_at + k * interval '1 minute', c.created_at + k * interval '1 minute'
  FROM inserted c, generate_series(1, $4::int) AS k`;

/** Inserts the customers and their notes in `owner`'s team. */
export function seedCustomers(url: string, owner: RecordOwner): Promise<void> {
  return withClient(url, async (c) => {
    await c.query(seedSql, [owner.teamId, owner.userId, customerCount, notesPerCustomer]);
  });
}

export type Json = Record<string, unknown>;

/** A row's stamps as the API shows them. */
export const instants = <T extends Json>(row: T): T => ({ ...row, createdAt: (row.createdAt as Date).toISOString(), updatedAt: (row.updatedAt as Date).toISOString() });

/** A customer's columns as REST answers them (with its metas), for a table aliased `c`. */
export const customerColumns = `c.id::text AS id, c.name, c.account, c.office, c.phone, c.sales_rep AS "salesRep", c.visit_days AS "visitDays",
  c.contact_days AS "contactDays", c.logo_id::text AS "logoId", c.created_at AS "createdAt", c.updated_at AS "updatedAt", c.user_id::text AS "userId",
  c.team_id::text AS "teamId", c.metas`;

/** The answer to customersWithChildrenPath(limit): the newest customers first, each with its metas and notes (oldest first). */
/** A LIST answer as the bench expects it (scenarios.ts answeringList). */
export type CustomerPage = { success: true; data: Json[]; pagination: { page: number; limit: number; total: number; totalPages: number } };

async function expectedPage(c: pg.Client, owner: RecordOwner, limit: number): Promise<CustomerPage> {
  const customers = await c.query<Json>(
    `SELECT ${customerColumns} FROM customers c WHERE c.team_id = $1 ORDER BY c.created_at DESC, c.id DESC LIMIT $2`,
    [owner.teamId, limit],
  );
  const notes = await c.query<Json>(
    `SELECT id::text AS id, body, created_at AS "createdAt", updated_at AS "updatedAt", user_id::text AS "userId", team_id::text AS "teamId",
            parent_id::text AS "parentId"
       FROM customer_notes WHERE parent_id = ANY($1::uuid[]) ORDER BY created_at ASC, id ASC`,
    [customers.rows.map((r) => r.id)],
  );
  const data = customers.rows.map((customer) => ({ ...instants(customer), notes: notes.rows.filter((n) => n.parentId === customer.id).map(instants) }));
  const total = (await c.query<{ total: number }>('SELECT count(*)::int AS total FROM customers WHERE team_id = $1', [owner.teamId])).rows[0]?.total ?? 0;
  return { success: true, data, pagination: { page: 1, limit, total, totalPages: Math.ceil(total / limit) } };
}

/** The answer of each page size, read as the database owner. */
export function expectedCustomerPages(url: string, owner: RecordOwner): Promise<Record<ChildPageSize, CustomerPage>> {
  return withClient(url, async (c) => {
    return { 20: await expectedPage(c, owner, 20), 100: await expectedPage(c, owner, 100) };
  });
}
