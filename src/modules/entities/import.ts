// Import of records into an entity (POST /api/v1/{entity}/import): each line goes through the one
// write path of creates (writes.ts create: validation, the definition's hooks, relation ids the caller
// may name, the plan limit, the record's event), as the caller, in the request's transaction. Each line
// runs inside a savepoint of its own, so that a line the database refuses (a unique value taken) is
// undone alone and the lines after it still run. Modes:
// - `all` (the default): every line or none; any refused line answers 422 with every line's errors.
// - `lines`: the good lines are kept, the refused ones reported.
// - a dry run (either mode): the real write path runs for every line, then the whole request rolls back
//   (the caller's `fail`), work queued for after the commit (hook mail) included: it reports exactly
//   what an import would create or refuse, and writes nothing.
// What a line may not write (id, stamps, teamId, userId, virtual fields) is dropped, so that an export
// imports as new records in the caller's team.
import type { EntityDefinition } from '../../config/entity-definition.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { AppError } from '../../shared/errors.js';
import { callerFor } from './service.js';
import { create } from './writes.js';

type Values = Record<string, unknown>;

/** One record of an import, with its line number; `problem` when the line is not a record at all. */
export type ImportLine = { line: number; values: Values } | { line: number; problem: string };

export type ImportMode = 'all' | 'lines';

/** A refused line: the error a CREATE of it would answer (status, code, message, details per field). */
export interface LineError {
  line: number;
  status: number;
  code: string;
  error: string;
  details?: Record<string, unknown>;
}

export interface ImportReport {
  dryRun: boolean;
  mode: ImportMode;
  /** Records read (empty lines apart). */
  lines: number;
  /** Created (a dry run: would be created). */
  created: number;
  refused: number;
  /** The created records' ids by line (none in a dry run: nothing was kept). */
  records: { line: number; id: string }[];
  errors: LineError[];
}

/** Fields an export carries that no create writes: the record's own stamps and ids. */
const notWritten = new Set(['id', 'createdAt', 'updatedAt', 'userId', 'teamId', 'deletedAt', 'parentId']);

/** A line's values without what a create does not take (an export's ids, stamps and virtual fields). */
function writable(d: EntityDefinition, values: Values): Values {
  const virtual = new Set(d.virtuals.map((f) => f.name));
  return Object.fromEntries(Object.entries(values).filter(([name]) => !notWritten.has(name) && !virtual.has(name)));
}

const refusal = (line: number, error: AppError): LineError => ({ line, status: error.status, code: error.code, error: error.message, ...(error.details ? { details: error.details } : {}) });

/**
 * Creates a record for each line as the scope's caller, each in a savepoint; returns what was created
 * and refused. Not an AppError (the database gone, a bug) fails the whole import. In mode `all`, any
 * refused line throws 422 with the report (the request then rolls back). The caller rolls a dry run back.
 */
export async function importRecords(scope: RequestScope, d: EntityDefinition, lines: AsyncIterable<ImportLine>, options: { dryRun: boolean; mode: ImportMode }): Promise<ImportReport> {
  // Who may create at all is the caller's, not a line's: refused once, before any line.
  callerFor(scope, d, 'create');
  const report: ImportReport = { ...options, lines: 0, created: 0, refused: 0, records: [], errors: [] };
  for await (const one of lines) {
    report.lines++;
    if ('problem' in one) {
      report.errors.push({ line: one.line, status: 422, code: 'VALIDATION_FAILED', error: 'Validation failed', details: { line: one.problem } });
      continue;
    }
    await scope.db.query('SAVEPOINT import_line', []);
    try {
      const record = await create(scope, d, writable(d, one.values));
      await scope.db.query('RELEASE SAVEPOINT import_line', []);
      report.created++;
      if (!options.dryRun) report.records.push({ line: one.line, id: record.id as string });
    } catch (error) {
      await scope.db.query('ROLLBACK TO SAVEPOINT import_line', []);
      if (!(error instanceof AppError)) throw error;
      report.errors.push(refusal(one.line, error));
    }
  }
  report.refused = report.errors.length;
  if (options.mode === 'all' && report.refused && !options.dryRun) {
    throw new AppError('VALIDATION_FAILED', `Import refused: ${report.refused} of ${report.lines} lines cannot be created; nothing was imported`, { ...report, created: 0, records: [] });
  }
  return report;
}
