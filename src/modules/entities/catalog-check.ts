// At start-up, after the migrations (server.ts): every entity definition has its generated Prisma
// model and its table and columns in the migrated database, so that a definition added or changed
// without `npm run generate` or without its migration stops the server with one line naming the fix,
// instead of a 500 on every request that touches it (issue 37).
import type { ChildDefinition, EntityDefinition } from '../../config/entity-definition.js';
import { Prisma } from '../../generated/prisma/client.js';
import { columnName, linkTable } from './prisma-model.js';

/** What the migrated database holds: each table's columns (from information_schema). */
export type Catalog = ReadonlyMap<string, ReadonlySet<string>>;

/** The columns a definition's table must have: owners, stamps, its stored fields, and as it says (soft delete, metas). */
function columnsOf(owner: EntityDefinition | ChildDefinition, entity: boolean): string[] {
  const d = owner as EntityDefinition;
  return ['id', 'team_id', 'user_id', 'created_at', 'updated_at', ...(entity ? [] : ['parent_id']), ...owner.fields.map((f) => columnName(f.name)), ...(entity && d.softDelete ? ['deleted_at'] : []), ...(entity && d.metas ? ['metas'] : [])];
}

/** The first mistake found, as one line naming the fix; null when definitions, client and database agree. */
export function catalogProblem(definitions: readonly EntityDefinition[], catalog: Catalog, models: readonly string[] = Object.values(Prisma.ModelName)): string | null {
  for (const d of definitions) {
    for (const owner of [d, ...d.children]) {
      if (!models.includes(owner.name)) return `entity ${d.slug}: ${owner.name} has no generated Prisma model: run \`npm run db:entities -- <name>\` (generate, then the migration)`;
    }
  }
  for (const d of definitions) {
    const tables: [string, string[]][] = [[d.tableName, columnsOf(d, true)], ...d.children.map((c): [string, string[]] => [c.tableName, columnsOf(c, false)]), ...d.links.map((f): [string, string[]] => [linkTable(d, f), ['record_id', 'related_id', 'team_id']])];
    for (const [table, columns] of tables) {
      const present = catalog.get(table);
      if (!present) return `entity ${d.slug}: table "${table}" is not in the database: run \`npm run db:entities -- <name>\` and restart (migrations apply at start-up)`;
      const missing = columns.filter((c) => !present.has(c));
      if (missing.length) return `entity ${d.slug}: table "${table}" has no column ${missing.map((c) => `"${c}"`).join(', ')}: the definition changed without its migration; run \`npm run db:entities -- <name>\` (generate, then the migration) and restart`;
    }
  }
  return null;
}

/** The migrated database's tables and columns in the public schema. */
export async function readCatalog(query: <Row>(sql: string, values: unknown[]) => Promise<Row[]>): Promise<Catalog> {
  const rows = await query<{ table_name: string; column_name: string }>(`SELECT table_name::text, column_name::text FROM information_schema.columns WHERE table_schema = current_schema()`, []);
  const catalog = new Map<string, Set<string>>();
  for (const { table_name, column_name } of rows) catalog.set(table_name, (catalog.get(table_name) ?? new Set()).add(column_name));
  return catalog;
}
