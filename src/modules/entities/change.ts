// What a change of an entity record (or of a child record) leaves besides its row, in the change's
// transaction, after its hooks ran: its version (history.ts) and its webhook event (webhooks/service).
// Every write point ends with this one step. The version's INSERT rides in the statement that asks
// whether the team has an endpoint listening, so a change pays one round trip for both (a second only
// when an endpoint listens: the event's action). Its realtime event is the table's trigger's.
import type { ChildDefinition, EntityDefinition } from '../../config/entity-definition.js';
import type { Tx } from '../../db/request-db.js';
import type { QueueScope } from '../scheduled-actions/service.js';
import { recordEntityEvent, type EntityChange } from '../webhooks/service.js';
import { versionStatement, type ChangeAuthor, type VersionOperation } from './history.js';
import type { Values } from './validate.js';

export interface Change {
  d: EntityDefinition;
  /** The child changed, or null: the record of `d` itself. */
  child: ChildDefinition | null;
  /** What the version records. */
  operation: VersionOperation;
  /** The webhook event; null: none (a trashed record purged had its event when it was deleted). */
  verb: EntityChange['verb'] | null;
  /** The record as the change answers it (as it was, for a final delete). */
  record: Values;
  /** The record before the change (null: created). */
  previous: Values | null;
  author: ChangeAuthor;
}

/**
 * Records `change`'s version and webhook event. Records of a private entity (`shared: false`, and its
 * children) are their creator's alone, and a team's webhooks are its admins': their events carry the
 * ids and stamps, never the fields.
 */
export async function recordChange(scope: QueueScope, tx: Tx, change: Change): Promise<void> {
  const { d, child, record } = change;
  const version = versionStatement(d, child, change.author, change.operation, record, change.previous);
  if (!change.verb) {
    if (version) await tx.$executeRaw(version);
    return;
  }
  const { id, teamId, userId, createdAt, updatedAt } = record;
  const data = d.access.shared ? record : { id, teamId, userId, createdAt, updatedAt };
  await recordEntityEvent(scope, tx, { teamId: teamId as string, entityType: (child ?? d).slug, entityId: id as string, verb: change.verb, data }, version);
}
