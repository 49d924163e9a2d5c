// `audit list --team ID [--action A] [--limit N] [--json]`: a team's audit log, newest first, as its
// owners and admins see it through the API (docs/data-safety.md#audit-trail). Reads only.
import { parseArgs } from 'node:util';
import { systemDb } from '../db/request-db.js';
import { operatorAuditLog } from '../modules/audit/service.js';
import { AppError } from '../shared/errors.js';
import { limitOf, table } from './listings.js';
import { withDatabase, type Cli } from './open.js';

/** `audit list`: the team's entries (the action filter takes `member.*` for a family), at most --limit (default 50, up to 1000). */
export async function auditList(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { json: { type: 'boolean', default: false }, team: { type: 'string' }, action: { type: 'string' }, limit: { type: 'string' } } });
  const teamId = values.team;
  if (!teamId || !/^[0-9a-f-]{36}$/i.test(teamId)) throw new AppError('VALIDATION_ERROR', 'Invalid arguments: --team must be a team id (team list shows them)');
  const limit = limitOf(values.limit, 50);
  const entries = await withDatabase(cli, 'list the audit log', (database) => operatorAuditLog(systemDb(database, 'cli: audit log'), teamId, { action: values.action }, limit));
  if (values.json) cli.out(JSON.stringify(entries));
  else {
    const rows = entries.map((e) => ({ createdAt: e.createdAt, action: e.action, actor: e.actorUserId ?? 'system', apiKey: e.actorApiKeyId, target: e.targetType ? `${e.targetType}:${e.targetId}` : null, member: e.userId, details: JSON.stringify(e.details) }));
    cli.out(table(rows, 'No audit entries.'));
  }
  return 0;
}
