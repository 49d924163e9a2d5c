// The victim's rows, read straight from the database (as its owner, past RLS): every row of every
// table that names one of the victim's teams, the victim, or one of the victim's keys, found from
// the catalog, so a table added later is watched without a change here. Two snapshots that differ
// mean someone else changed what the victim owns.
import type { Database } from '../db/database.js';

export interface Victim {
  userId: string;
  teamIds: string[];
  keyIds: string[];
}

/** Owner columns and the victim's values they are compared with. */
const ownerColumns: Record<string, (v: Victim) => string[]> = {
  team_id: (v) => v.teamIds,
  user_id: (v) => [v.userId],
  owner_id: (v) => [v.userId],
  key_id: (v) => v.keyIds,
};

const statements = new WeakMap<Database, Promise<string>>();

/** One statement that reads every owned row as JSON text: ($1 teams, $2 user, $3 keys). */
async function snapshotStatement(database: Database): Promise<string> {
  const columns = await database.prisma.$queryRawUnsafe<{ table_name: string; column_name: string }[]>(
    `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = ANY($1::text[]) ORDER BY table_name, column_name`,
    Object.keys(ownerColumns),
  );
  const byTable = new Map<string, string[]>();
  for (const { table_name, column_name } of columns) byTable.set(table_name, [...(byTable.get(table_name) ?? []), column_name]);
  const parameter: Record<string, string> = { team_id: '$1', user_id: '$2', owner_id: '$2', key_id: '$3' };
  const selects = [...byTable].map(([table, cols]) => {
    const where = cols.map((c) => `"${c}"::text = ANY(${parameter[c]}::text[])`).join(' OR ');
    return `SELECT '${table}' AS t, row_to_json(x)::text AS r FROM "${table}" x WHERE ${where}`;
  });
  selects.push(`SELECT 'users' AS t, row_to_json(x)::text AS r FROM users x WHERE id::text = ANY($2::text[])`);
  selects.push(`SELECT 'teams' AS t, row_to_json(x)::text AS r FROM teams x WHERE id::text = ANY($1::text[])`);
  return `${selects.join('\nUNION ALL\n')}\nORDER BY 1, 2`;
}

/** The victim's rows now, one line per row (`table row-json`), in a stable order. */
export async function victimSnapshot(database: Database, victim: Victim): Promise<string[]> {
  let statement = statements.get(database);
  if (!statement) statements.set(database, (statement = snapshotStatement(database)));
  const rows = await database.prisma.$queryRawUnsafe<{ t: string; r: string }[]>(await statement, victim.teamIds, [victim.userId], victim.keyIds);
  return rows.map((row) => `${row.t} ${row.r}`);
}

/** The lines of `after` not in `before` (+) and of `before` not in `after` (-). */
export function snapshotDiff(before: string[], after: string[]): string[] {
  const was = new Set(before);
  const now = new Set(after);
  return [...before.filter((line) => !now.has(line)).map((line) => `- ${line}`), ...after.filter((line) => !was.has(line)).map((line) => `+ ${line}`)];
}
