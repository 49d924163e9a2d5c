// Entity records through Prisma's generated delegates (one model per definition, named by the
// definition), inside the request's RLS transaction. Field names in `where`, `orderBy` and `select`
// come from the sanitized definition, never from the request.
import type { Tx } from '../../db/request-db.js';

export type Row = Record<string, unknown> & { id: string };

/** The part of a Prisma model delegate the entities module uses. */
export interface Delegate {
  findMany(args: object): Promise<Row[]>;
  findFirst(args: object): Promise<Row | null>;
  count(args: object): Promise<number>;
  aggregate(args: object): Promise<Record<string, unknown>>;
  groupBy(args: object): Promise<Record<string, unknown>[]>;
  create(args: object): Promise<Row>;
  update(args: object): Promise<Row>;
  delete(args: object): Promise<Row>;
  deleteMany(args: object): Promise<{ count: number }>;
}

/** The delegate of a generated model (`Task` → `tx.task`). */
export function delegateOf(tx: Tx, model: string): Delegate {
  const delegate = (tx as unknown as Record<string, Delegate | undefined>)[model.charAt(0).toLowerCase() + model.slice(1)];
  if (!delegate) throw new Error(`No Prisma model ${model}: run \`npm run generate\` after changing entity definitions`);
  return delegate;
}

export { isForeignKeyViolation, isRowSecurityViolation, isUniqueViolation } from '../../db/errors.js';
export { escapeLike } from '../../db/like.js';

/** The record version of a team's rows in `table` (see totals.ts), or null when the caller is not a member of the team. */
export async function recordVersion(tx: Tx, table: string, teamId: string): Promise<bigint | null> {
  const [row] = await tx.$queryRaw<[{ version: bigint | null }]>`SELECT app_record_version(${table}, ${teamId}::uuid) AS version`;
  return row?.version ?? null;
}
