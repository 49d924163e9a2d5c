// What a backup reads from the database's own catalog rather than from a list in the code: the tables
// of the public schema with their columns, the sequences, and the migrations recorded as applied. New
// tables (a module's, an app's entities) are in every backup without anyone naming them.
import type { Prisma } from '../generated/prisma/client.js';

/** Raw statements of Prisma (a transaction client: a backup and a restore each run in one). */
export type Sql = Pick<Prisma.TransactionClient, '$queryRawUnsafe' | '$executeRawUnsafe'>;

/** A table of the public schema and the columns a backup carries (generated columns are computed again). */
export interface TableShape {
  name: string;
  columns: { name: string; type: string }[];
}

/** Prisma's bookkeeping of applied migrations: written by the migrations a restore applies, then replaced by the backup's rows. */
export const migrationsTable = '_prisma_migrations';

/** `name` as an SQL identifier, quoted. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Session settings under which every value's text form reads back to the same value (pg_dump's):
 * ISO dates in UTC, floats with every digit, bytea in hex. Set for one transaction.
 */
export async function setTextSettings(sql: Sql): Promise<void> {
  for (const [name, value] of [['DateStyle', 'ISO, YMD'], ['IntervalStyle', 'postgres'], ['TimeZone', 'UTC'], ['extra_float_digits', '3'], ['bytea_output', 'hex']]) {
    await sql.$queryRawUnsafe(`SELECT set_config($1, $2, true)`, name, value);
  }
}

/** The public schema's tables (partitions through their parent), in name order, with their stored columns in column order. */
export async function readTables(sql: Sql): Promise<TableShape[]> {
  const rows = await sql.$queryRawUnsafe<{ table: string; column: string; type: string }[]>(`
    SELECT c.relname AS "table", a.attname AS "column", format_type(a.atttypid, a.atttypmod) AS "type"
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
    ORDER BY c.relname, a.attnum`);
  const tables = new Map<string, TableShape>();
  for (const row of rows) {
    let table = tables.get(row.table);
    if (!table) tables.set(row.table, (table = { name: row.table, columns: [] }));
    table.columns.push({ name: row.column, type: row.type });
  }
  return [...tables.values()];
}

/** The public schema's sequences with where each stands. */
export async function readSequences(sql: Sql): Promise<{ name: string; lastValue: string; isCalled: boolean }[]> {
  const names = await sql.$queryRawUnsafe<{ name: string }[]>(`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'S' ORDER BY c.relname`);
  const sequences = [];
  for (const { name } of names) {
    const [state] = await sql.$queryRawUnsafe<{ lastValue: string; isCalled: boolean }[]>(`SELECT last_value::text AS "lastValue", is_called AS "isCalled" FROM public.${ident(name)}`);
    sequences.push({ name, ...state! });
  }
  return sequences;
}

/** Sets a sequence where the backup found it. */
export async function setSequence(sql: Sql, sequence: { name: string; lastValue: string; isCalled: boolean }): Promise<void> {
  await sql.$queryRawUnsafe(`SELECT setval(format('public.%I', $1::text)::regclass, $2::bigint, $3::boolean)::text`, sequence.name, sequence.lastValue, sequence.isCalled);
}

/** The names of the migrations recorded as applied (none when Prisma's table is absent), in order. */
export async function readAppliedMigrations(sql: Sql): Promise<string[]> {
  const [{ present }] = (await sql.$queryRawUnsafe<{ present: boolean }[]>(`SELECT to_regclass('public.${migrationsTable}') IS NOT NULL AS present`)) as [{ present: boolean }];
  if (!present) return [];
  const rows = await sql.$queryRawUnsafe<{ name: string }[]>(`SELECT migration_name AS name FROM public.${migrationsTable} WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`);
  return rows.map((r) => r.name);
}

/** The tables (besides Prisma's bookkeeping) holding at least one row. */
export async function tablesWithRows(sql: Sql, tables: TableShape[]): Promise<string[]> {
  const held = [];
  for (const { name } of tables) {
    if (name === migrationsTable) continue;
    const [row] = await sql.$queryRawUnsafe<{ any: boolean }[]>(`SELECT EXISTS (SELECT 1 FROM public.${ident(name)}) AS "any"`);
    if (row?.any) held.push(name);
  }
  return held;
}
