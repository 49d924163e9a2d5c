// Row-level security for entity tables, and the trigger that keeps their record versions, generated
// from definitions and appended (as the marked HAND-WRITTEN section) to the migration that creates
// the tables. Identifiers and literals come from sanitized definitions only. Rules: a record is seen
// within its team, by its creator alone unless the entity is shared; viewers never write (app_user_writable_team_ids); children follow their
// parent; a public entity's rows that meet its publicFilter are readable by anyone.
import { type EntityDefinition } from '../../config/entity-definition.js';
import { mediaFields, relationTarget } from '../../config/entity-relations.js';
import { columnName, linkTable } from './prisma-model.js';

const literal = (value: string | number | boolean) => (typeof value === 'string' ? `'${value.replace(/'/g, "''")}'` : String(value));

function publicCondition(d: EntityDefinition): string | null {
  if (!d.access.public) return null;
  const parts = Object.entries(d.publicFilter ?? {}).map(([field, value]) => `${columnName(field)} = ${literal(value)}`);
  if (d.softDelete) parts.push('deleted_at IS NULL');
  return parts.length ? parts.join(' AND ') : 'true';
}

/**
 * The caller's teams (`app_user_team_ids`) or the teams they write (`app_user_writable_team_ids`) hold
 * the row: as an array computed once per statement (an InitPlan), which `= ANY` compares as an index
 * condition, not a subquery probed for every row (rls_membership_once migration).
 */
const memberOf = (teams: 'app_user_team_ids' | 'app_user_writable_team_ids') => `team_id = ANY (ARRAY(SELECT ${teams}()))`;
const writable = memberOf('app_user_writable_team_ids');

function entityPolicies(d: EntityDefinition): string[] {
  const t = d.tableName;
  const owner = d.access.shared ? '' : ' AND user_id = app_current_user_id()';
  const visible = `(${memberOf('app_user_team_ids')}${owner})`;
  const open = publicCondition(d);
  return [
    `GRANT SELECT, INSERT, UPDATE, DELETE ON "${t}" TO app_user;`,
    `ALTER TABLE "${t}" ENABLE ROW LEVEL SECURITY;`,
    `ALTER TABLE "${t}" FORCE ROW LEVEL SECURITY;`,
    `CREATE POLICY ${t}_select ON "${t}" FOR SELECT USING (${visible}${open ? ` OR (${open})` : ''});`,
    `CREATE POLICY ${t}_insert ON "${t}" FOR INSERT WITH CHECK (${writable} AND user_id = app_current_user_id());`,
    `CREATE POLICY ${t}_update ON "${t}" FOR UPDATE USING (${writable}${owner}) WITH CHECK (${writable});`,
    `CREATE POLICY ${t}_delete ON "${t}" FOR DELETE USING (${writable}${owner});`,
  ];
}

/**
 * Every statement that writes the table gives the teams it touched a new record version (see totals.ts)
 * and keeps their count of live records (plan limits; `soft`: a row with deleted_at set is not one);
 * TRUNCATE forgets the table's counts and versions (record_counts migration).
 */
export function versionTrigger(d: Pick<EntityDefinition, 'tableName' | 'softDelete'>): string[] {
  const table = d.tableName;
  const kind = literal(d.softDelete ? 'soft' : 'hard');
  return [
    `CREATE TRIGGER ${table}_versions_insert AFTER INSERT ON "${table}" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions(${kind});`,
    `CREATE TRIGGER ${table}_versions_update AFTER UPDATE ON "${table}" REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions(${kind});`,
    `CREATE TRIGGER ${table}_versions_delete AFTER DELETE ON "${table}" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_bump_record_versions(${kind});`,
    `CREATE TRIGGER ${table}_versions_truncate AFTER TRUNCATE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION app_forget_record_counts();`,
  ];
}

/**
 * Every row the table gains, changes or loses records its realtime event (entity_events, announced
 * with NOTIFY at commit; src/modules/realtime/). The arguments: the entity's slug, its public rows'
 * columns as JSON (none: not public; a soft-deleted row is never public), and whether it soft-deletes
 * (marking a row deleted is its DELETED event).
 */
export function eventTrigger(d: EntityDefinition): string {
  const open = d.access.public ? JSON.stringify({ ...Object.fromEntries(Object.entries(d.publicFilter ?? {}).map(([field, value]) => [columnName(field), value])), ...(d.softDelete ? { deleted_at: null } : {}) }) : '';
  return `CREATE TRIGGER ${d.tableName}_events AFTER INSERT OR UPDATE OR DELETE ON "${d.tableName}" FOR EACH ROW EXECUTE FUNCTION app_record_entity_event(${literal(d.slug)}, ${literal(open)}, ${literal(String(d.softDelete))});`;
}

function childPolicies(parent: EntityDefinition, table: string): string[] {
  // The parent's own policies decide: a child is reachable exactly when its parent is.
  const parentVisible = `parent_id IN (SELECT id FROM "${parent.tableName}")`;
  return [
    `GRANT SELECT, INSERT, UPDATE, DELETE ON "${table}" TO app_user;`,
    `ALTER TABLE "${table}" ENABLE ROW LEVEL SECURITY;`,
    `ALTER TABLE "${table}" FORCE ROW LEVEL SECURITY;`,
    `CREATE POLICY ${table}_select ON "${table}" FOR SELECT USING (${parentVisible});`,
    `CREATE POLICY ${table}_insert ON "${table}" FOR INSERT WITH CHECK (${writable} AND user_id = app_current_user_id() AND ${parentVisible});`,
    `CREATE POLICY ${table}_update ON "${table}" FOR UPDATE USING (${writable} AND ${parentVisible}) WITH CHECK (${writable});`,
    `CREATE POLICY ${table}_delete ON "${table}" FOR DELETE USING (${writable} AND ${parentVisible});`,
  ];
}

/**
 * A link's join rows (many-to-many) follow both records: seen when the record is, made and removed by
 * writers who can see both records.
 */
function linkPolicies(d: EntityDefinition, target: EntityDefinition, table: string): string[] {
  const recordVisible = `record_id IN (SELECT id FROM "${d.tableName}")`;
  const bothVisible = `${recordVisible} AND related_id IN (SELECT id FROM "${target.tableName}")`;
  return [
    `GRANT SELECT, INSERT, DELETE ON "${table}" TO app_user;`,
    `ALTER TABLE "${table}" ENABLE ROW LEVEL SECURITY;`,
    `ALTER TABLE "${table}" FORCE ROW LEVEL SECURITY;`,
    `CREATE POLICY ${table}_select ON "${table}" FOR SELECT USING (${recordVisible});`,
    `CREATE POLICY ${table}_insert ON "${table}" FOR INSERT WITH CHECK (${writable} AND ${bothVisible});`,
    `CREATE POLICY ${table}_delete ON "${table}" FOR DELETE USING (${writable} AND ${bothVisible});`,
  ];
}

/**
 * What deleting a media record (its soft delete, `status` becoming `deleted`) does to the records whose
 * media fields name it, as each field's onDelete says, like a foreign key's action: `restrict` refuses
 * the deletion while a live record uses it (SQLSTATE 23001, answered 409), `setNull` clears the field
 * (a list loses the id), `cascade` deletes the records (marks them deleted when the entity soft-deletes).
 * SECURITY DEFINER, as a foreign key acts: records the deleting member cannot see are kept right too.
 * Rewritten whole by every migration (the current definitions' fields; none: it does nothing).
 */
export function mediaTrigger(definitions: readonly EntityDefinition[]): string[] {
  const used = definitions.flatMap((d) => mediaFields(d).map((f) => ({ d, f })));
  // Refusals first: nothing is changed by a deletion that is then refused.
  const ordered = [...used.filter(({ f }) => f.onDelete === 'restrict'), ...used.filter(({ f }) => f.onDelete !== 'restrict')];
  const actions = ordered.map(({ d, f }) => {
    const t = `"${d.tableName}"`;
    const c = `"${columnName(f.name)}"`;
    const uses = f.many ? `${c} @> ARRAY[OLD.id]` : `${c} = OLD.id`;
    const live = d.softDelete ? ' AND deleted_at IS NULL' : '';
    const at = `${d.slug}.${f.relation}`;
    if (f.onDelete === 'restrict') return `  IF EXISTS (SELECT 1 FROM ${t} WHERE ${uses}${live}) THEN RAISE EXCEPTION 'media % is used by ${at} (onDelete: restrict)', OLD.id USING ERRCODE = '23001'; END IF;`;
    if (f.onDelete === 'setNull') return `  UPDATE ${t} SET ${c} = ${f.many ? `array_remove(${c}, OLD.id)` : 'NULL'}, updated_at = now() WHERE ${uses}; -- ${at}`;
    return d.softDelete ? `  UPDATE ${t} SET deleted_at = now() WHERE ${uses}${live}; -- ${at}` : `  DELETE FROM ${t} WHERE ${uses}; -- ${at}`;
  });
  return [
    '-- Deleting a media record follows the onDelete of the media fields that name it.',
    'CREATE OR REPLACE FUNCTION app_media_deleted() RETURNS trigger',
    '  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$',
    'BEGIN',
    ...actions,
    '  RETURN NULL;',
    'END $$;',
    'DROP TRIGGER IF EXISTS media_deleted ON "media";',
    `CREATE TRIGGER media_deleted AFTER UPDATE OF status ON "media" FOR EACH ROW WHEN (OLD.status = 'active' AND NEW.status = 'deleted') EXECUTE FUNCTION app_media_deleted();`,
    '',
  ];
}

/** RLS for the entity tables a migration script creates, and the media trigger; empty for an empty script. */
export function rlsForCreatedTables(definitions: readonly EntityDefinition[], script: string): string {
  const created = (table: string) => script.includes(`CREATE TABLE "${table}"`);
  const blocks: string[] = [];
  for (const d of definitions) {
    if (created(d.tableName)) blocks.push(`-- ${d.slug}${d.access.shared ? ' (shared in the team)' : ' (private to its creator)'}${d.access.public ? ', public when ' + publicCondition(d) : ''}`, ...entityPolicies(d), ...versionTrigger(d), eventTrigger(d), '');
    for (const c of d.children) if (created(c.tableName)) blocks.push(`-- ${d.slug} → ${c.slug}: follows the parent`, ...childPolicies(d, c.tableName), '');
    for (const f of d.links) {
      const table = linkTable(d, f);
      if (created(table)) blocks.push(`-- ${d.slug}.${f.relation} ↔ ${relationTarget(f).slug}: links follow both records`, ...linkPolicies(d, relationTarget(f), table), '');
    }
  }
  if (!blocks.length) return script.trim() ? ['', '-- HAND-WRITTEN (generated from src/config/entities by `npm run db:migration`)', ...mediaTrigger(definitions)].join('\n') : '';
  blocks.push(...mediaTrigger(definitions));
  return [
    '',
    '-- ============================================================================================',
    '-- HAND-WRITTEN (generated from src/config/entities by `npm run db:migration`): row-level security',
    '-- of the new entity tables. Everything above this line is generated from the Prisma schema.',
    '-- ============================================================================================',
    '',
    ...blocks,
  ].join('\n');
}
