// docs/scaling.md's table of tables (how the schema shards by team on Citus) checked against the
// migrated database's catalog, so that the page cannot drift from the schema: every table of the
// public schema but Prisma's own is listed exactly once; distributed tables have a NOT NULL team_id
// and keep it in their primary key, unique constraints and foreign keys between them; the primary
// keys and unique constraints stated as today's are the catalog's; and no table that is not
// distributed references one that is (Citus refuses such keys).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testkit/database.js';

const kinds = ['distributed', 'reference', 'local'] as const;
type Kind = (typeof kinds)[number];

interface Row {
  table: string;
  kind: Kind;
  distributionColumn: string | null;
  primaryKey: string[];
  uniques: string[][];
  citusPrimaryKey: string[];
  citusUniques: string[][];
  citusForeignKeys: string;
}

/** The column lists written `(a, b)` in a cell, in order. */
function columnLists(cell: string): string[][] {
  return [...cell.matchAll(/`\(([^)`]*)\)/g)].map((m) => m[1]!.split(',').map((c) => c.trim()));
}

function readTableOfTables(): Row[] {
  const page = readFileSync(new URL('../../docs/scaling.md', import.meta.url), 'utf8');
  const lines = page.split('\n');
  const header = lines.findIndex((l) => /^\| table \| kind \| distribution column \| primary key today \| unique today \|/.test(l));
  if (header === -1) throw new Error('docs/scaling.md has no table of tables (| table | kind | distribution column | primary key today | unique today | …)');
  const rows: Row[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const [table, kind, distribution, pk, uniques, citusPk, citusUniques, citusFks] = cells;
    const name = /^`([a-z_]+)`$/.exec(table ?? '')?.[1];
    if (!name || !kinds.includes(kind as Kind)) throw new Error(`docs/scaling.md: cannot read the row ${line}`);
    const primaryKey = columnLists(pk ?? '')[0] ?? [];
    const today = columnLists(uniques ?? '');
    rows.push({
      table: name,
      kind: kind as Kind,
      distributionColumn: /^`([a-z_]+)`$/.exec(distribution ?? '')?.[1] ?? null,
      primaryKey,
      uniques: today,
      citusPrimaryKey: citusPk === 'as today' ? primaryKey : (columnLists(citusPk ?? '')[0] ?? []),
      citusUniques: citusUniques === 'as today' ? today : columnLists(citusUniques ?? ''),
      citusForeignKeys: citusFks ?? '',
    });
  }
  return rows;
}

interface CatalogKey {
  table: string;
  columns: string[];
}
interface CatalogForeignKey extends CatalogKey {
  name: string;
  references: string;
  referencedColumns: string[];
}

const listText = (lists: string[][]) => lists.map((l) => `(${l.join(', ')})`).sort();

describe('docs/scaling.md: the table of tables, against the migrated schema', () => {
  let db: TestDatabase;
  let rows: Row[];
  let tables: string[];
  let teamIdColumns: Map<string, boolean>;
  let primaryKeys: CatalogKey[];
  let uniques: CatalogKey[];
  let foreignKeys: CatalogForeignKey[];

  beforeAll(async () => {
    rows = readTableOfTables();
    db = await createTestDatabase();
    const query = <T>(sql: string) => db.database.prisma.$queryRawUnsafe<T[]>(sql);
    tables = (await query<{ name: string }>(`SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> '_prisma_migrations' ORDER BY 1`)).map((r) => r.name);
    teamIdColumns = new Map((await query<{ name: string; nullable: string }>(`SELECT table_name AS name, is_nullable AS nullable FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'team_id'`)).map((r) => [r.name, r.nullable === 'NO']));
    // Column names of a constraint's or index's keys, in key order.
    const keyColumns = (rel: string, keys: string) => `ARRAY(SELECT a.attname::text FROM unnest(${keys}) WITH ORDINALITY k(att, ord)
      JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.att ORDER BY k.ord)`;
    primaryKeys = await query<CatalogKey>(`SELECT c.relname AS table, ${keyColumns('p.conrelid', 'p.conkey')} AS columns
      FROM pg_constraint p JOIN pg_class c ON c.oid = p.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND p.contype = 'p'`);
    // Unique constraints and unique indexes alike (partial ones too), the primary keys' indexes left out.
    uniques = await query<CatalogKey>(`SELECT c.relname AS table, ${keyColumns('i.indrelid', 'i.indkey::int2[]')} AS columns
      FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND i.indisunique AND NOT i.indisprimary`);
    foreignKeys = await query<CatalogForeignKey>(`SELECT p.conname AS name, c.relname AS table, r.relname AS references,
        ${keyColumns('p.conrelid', 'p.conkey')} AS columns, ${keyColumns('p.confrelid', 'p.confkey')} AS "referencedColumns"
      FROM pg_constraint p JOIN pg_class c ON c.oid = p.conrelid JOIN pg_class r ON r.oid = p.confrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND p.contype = 'f'`);
  });
  afterAll(() => db?.drop());

  const row = (table: string) => rows.find((r) => r.table === table)!;

  it('lists every table of the public schema (but _prisma_migrations) exactly once, and nothing else', () => {
    const listed = rows.map((r) => r.table);
    expect(listed.filter((t, i) => listed.indexOf(t) !== i), 'listed twice').toEqual([]);
    expect([...listed].sort()).toEqual(tables);
  });

  it('distributes by a NOT NULL team_id, and states no distribution column for the other kinds', () => {
    for (const r of rows) {
      if (r.kind === 'distributed') {
        expect(r.distributionColumn, r.table).toBe('team_id');
        expect(teamIdColumns.get(r.table), `${r.table}.team_id exists and is NOT NULL`).toBe(true);
      } else {
        expect(r.distributionColumn, r.table).toBeNull();
      }
    }
  });

  it("states today's primary keys and unique constraints as the catalog has them", () => {
    for (const r of rows) {
      const pk = primaryKeys.find((k) => k.table === r.table);
      expect(r.primaryKey, `${r.table}: primary key`).toEqual(pk?.columns ?? []);
      const catalogUniques = uniques.filter((k) => k.table === r.table).map((k) => k.columns);
      expect(listText(r.uniques), `${r.table}: unique constraints`).toEqual(listText(catalogUniques));
    }
  });

  it('keeps team_id in every primary key and unique constraint of the distributed tables on Citus', () => {
    for (const r of rows.filter((x) => x.kind === 'distributed')) {
      expect(r.citusPrimaryKey, `${r.table}: primary key on Citus`).toContain('team_id');
      for (const columns of r.citusUniques) expect(columns, `${r.table}: unique on Citus`).toContain('team_id');
    }
  });

  it('gives every foreign key between distributed tables team_id on both sides, and has nothing else reference a distributed table', () => {
    for (const fk of foreignKeys) {
      const from = row(fk.table);
      const to = row(fk.references);
      if (to.kind !== 'distributed') {
        // To a reference table: allowed from any kind; to a local one: only from local tables.
        if (to.kind === 'local') expect(from.kind, `${fk.name}: only local tables reference local ones`).toBe('local');
        continue;
      }
      expect(from.kind, `${fk.name}: a ${from.kind} table cannot reference the distributed ${to.table}`).toBe('distributed');
      if (fk.columns.includes('team_id') && fk.referencedColumns.includes('team_id')) continue; // already co-located
      const others = fk.columns.join(', ');
      expect(from.citusForeignKeys, `${fk.name}: docs/scaling.md states (team_id, ${others}) → ${to.table}`).toContain(`(team_id, ${others}) → ${to.table}`);
    }
  });
});
