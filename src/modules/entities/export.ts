// Export of an entity's records (GET /api/v1/{entity}/export): LIST's filters, read in keyset batches
// in LIST's order (cursor.ts `after`, through the sort's index), each batch in a short transaction of
// its own through RLS as the caller, and written out as it is read (ndjson or csv), so that memory
// stays what one batch takes whatever the count. A record is exported as READ shows it (decorate):
// relations and media as ids, many-to-many as lists of ids, decimals as exact text, instants as ISO
// 8601; its metas too when the entity has them. The batches are not one snapshot: a record changed
// between two batches is exported as the batch that reads it sees it, and none is read twice.
import { coerceInputValue, type GraphQLSchema } from 'graphql';
import type { EntityDefinition } from '../../config/entity-definition.js';
import type { Tx } from '../../db/request-db.js';
import { refusalOf } from '../../auth/rules.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { after, type Cursor } from './cursor.js';
import { csvCell, csvRow } from './csv.js';
import { graphqlNames } from './graphql-names.js';
import { listVariables } from './list-params.js';
import { checkListQuery, invalidQuery, type ListQuery, type ParsedQuery, type View } from './query.js';
import { delegateOf } from './repository.js';
import { listRule } from './rules.js';
import { callerFor, decorate, filterWhere, includeOf, orderOf, sortField, baseWhere, type Caller } from './service.js';

type Values = Record<string, unknown>;
type Problems = { path: string; message: string }[];

export const exportFormats = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof exportFormats)[number];

/** Records read per batch (one short transaction each): 100k records are 100 transactions. */
export const exportBatchSize = 1000;

/** LIST parameters about pages and what a record carries: an export takes every record, whole. */
const notForExport = ['page', 'limit', 'cursor', 'distinct', 'fields', 'metas', 'child', 'expand'];

/** What an export reads: the format, and LIST's query checked for the definition. */
export interface ExportPlan {
  format: ExportFormat;
  caller: Caller;
  query: ParsedQuery;
}

/**
 * The LIST document's variables (list-params.ts, REST's one parser of LIST's query string) as the
 * typed arguments of the LIST field, coerced by its GraphQL types as /graphql would coerce them.
 */
function listArguments(schema: GraphQLSchema, d: EntityDefinition, vars: Values): ListQuery {
  const field = schema.getQueryType()?.getFields()[graphqlNames(d).list];
  if (!field) throw new Error(`export of ${d.slug}: the schema has no query ${graphqlNames(d).list}`);
  const out: Values = {};
  const problems: Problems = [];
  for (const arg of field.args) {
    if (vars[arg.name] === undefined) continue;
    out[arg.name] = coerceInputValue(vars[arg.name], arg.type, (path, _invalid, error) => problems.push({ path: [arg.name, ...path].join('.'), message: error.message }));
  }
  if (problems.length) throw invalidQuery(problems);
  return out as ListQuery;
}

/**
 * An export's plan from its query string: `format` (ndjson, the default, or csv), LIST's filters and
 * sort (oldest first unless `sortBy`/`sortOrder` say otherwise); 400 listing every problem. The caller
 * must pass LIST's rule for the filters (the read rule of every entity a `filter` reaches).
 */
export function exportPlan(scope: RequestScope, schema: GraphQLSchema, d: EntityDefinition, params: Record<string, string>): ExportPlan {
  const { format = 'ndjson', ...rest } = params;
  const problems: Problems = notForExport.filter((name) => rest[name] !== undefined).map((path) => ({ path, message: 'is not a parameter of export (an export holds every matching record, whole)' }));
  if (!(exportFormats as readonly string[]).includes(format)) problems.push({ path: 'format', message: `must be one of ${exportFormats.join(', ')}` });
  if (problems.length) throw invalidQuery(problems);
  const args = listArguments(schema, d, listVariables(d, { sortBy: 'createdAt', sortOrder: 'asc', ...rest }));
  const refusal = refusalOf(listRule(d, args.where), scope.actor);
  if (refusal) throw refusal;
  const view: View = { fields: null, metas: d.metas, children: [] };
  return { format: format as ExportFormat, caller: callerFor(scope, d, 'list'), query: checkListQuery(d, args, view) };
}

/** Runs one batch's read in a short transaction through RLS as the export's caller. */
export type BatchReader = <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;

/** The plan's records, a batch at a time, each batch read when the one before it has been taken. */
export async function* exportedBatches(read: BatchReader, d: EntityDefinition, plan: ExportPlan): AsyncGenerator<Values[]> {
  const { caller, query } = plan;
  const sort = { field: sortField(d, query.sortBy), order: query.sortOrder };
  const where = [...baseWhere(d, caller), ...filterWhere(d, query)];
  const include = includeOf(d, caller, []);
  let cursor: Cursor | null = null;
  for (;;) {
    const from: Values[] = cursor ? [after(sort, cursor)] : [];
    const rows = await read((tx) => delegateOf(tx, d.name).findMany({ where: { AND: [...where, ...from] }, orderBy: orderOf(sort), take: exportBatchSize, ...include }));
    if (rows.length) yield rows.map((row) => decorate(d, row, caller, query));
    if (rows.length < exportBatchSize) return;
    const last = rows.at(-1)!;
    cursor = { value: last[sort.field.name] ?? null, id: last.id };
  }
}

/** The columns of a csv export, in READ's order: id, fields, many-to-many ids, virtual fields, metas, stamps. */
export function exportColumns(d: EntityDefinition, caller: Caller): string[] {
  return [
    'id',
    ...d.fields.map((f) => f.name),
    ...d.links.map((f) => f.name),
    ...d.virtuals.map((f) => f.name),
    ...(d.metas ? ['metas'] : []),
    'createdAt',
    'updatedAt',
    ...(caller.kind === 'user' ? ['userId', 'teamId'] : []),
    ...(d.softDelete ? ['deletedAt'] : []),
  ];
}

/** Records per chunk written: the response is paced by the client a few kilobytes at a time, not by a batch's half megabyte. */
const chunkRecords = 50;

/** The export's bytes as text chunks of `chunkRecords` records (csv: its header first, even with no record). */
export async function* exportText(batches: AsyncIterable<Values[]>, format: ExportFormat, columns: string[]): AsyncGenerator<string> {
  if (format === 'csv') yield csvRow(columns);
  const line = format === 'csv' ? (r: Values) => csvRow(columns.map((c) => csvCell(r[c]))) : (r: Values) => `${JSON.stringify(r)}\n`;
  for await (const records of batches) {
    for (let at = 0; at < records.length; at += chunkRecords) yield records.slice(at, at + chunkRecords).map(line).join('');
  }
}
