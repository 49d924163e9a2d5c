// CLI commands about scheduled actions, across every team: `actions failed` (those whose last run
// failed: given up, or waiting for a retry) and `actions retry --id ID` (a failed one runs again at the
// next processing, as the developer endpoint's retry). The queue's own functions (operator.ts).
import { parseArgs } from 'node:util';
import { systemDb } from '../db/request-db.js';
import { failedActions, retryFailedAction } from '../modules/scheduled-actions/operator.js';
import { AppError } from '../shared/errors.js';
import { limitOf, table } from './listings.js';
import { withDatabase, type Cli } from './open.js';

const json = { type: 'boolean', default: false } as const;

/** `actions failed [--limit N]`: most recently failed first (default 100, at most 1000). */
export async function actionsFailed(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { json, limit: { type: 'string' } } });
  const limit = limitOf(values.limit, 100);
  const rows = await withDatabase(cli, 'list scheduled actions', (database) => failedActions(systemDb(database, 'cli: failed actions'), limit));
  if (values.json) cli.out(JSON.stringify(rows));
  else cli.out(table(rows.map((r) => ({ ...r, lastError: r.lastError && r.lastError.length > 60 ? `${r.lastError.slice(0, 59)}…` : r.lastError })), 'No failed actions.'));
  return 0;
}

/** `actions retry --id ID`: a failed action back to pending, attempts 0, due now. */
export async function actionsRetry(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { json, id: { type: 'string' } } });
  const id = values.id;
  if (!id) throw new AppError('VALIDATION_ERROR', 'Invalid arguments: --id is required (actions failed shows them)');
  const out = await withDatabase(cli, 'retry scheduled actions', (database) => retryFailedAction(systemDb(database, 'cli: retry an action'), id, new Date()));
  cli.out(values.json ? JSON.stringify(out) : `Action ${out.id} (${out.actionType}) is pending again: it runs at the next processing (cron or the built-in scheduler)`);
  return 0;
}
