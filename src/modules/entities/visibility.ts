// Who sees which records: the conditions a record must meet to be the caller's to see (its team; its
// creator alone for a private entity; not soft-deleted; for anonymous readers, the public filter), as
// Prisma's where for the records a request reads, and as a test of the record a to-one relation names.
// A record the caller sees may name one they may not (a shared project's milestone, a teammate's
// private task; a soft-deleted post): that relation shows null, its id as well as its record — not
// even the id shows (docs/security.md). Many-to-many ids are filtered in SQL instead (service.ts).
import type { AuthenticatedActor } from '../../auth/actor.js';
import { type EntityDefinition, type FieldDefinition } from '../../config/entity-definition.js';
import { relationFields, relationTarget } from '../../config/entity-relations.js';
import type { Row } from './repository.js';
import type { Values } from './validate.js';

/** Who asks: a member acting in their active team, or an anonymous reader of a public entity. */
export type Caller = { kind: 'user'; actor: AuthenticatedActor; teamId: string; role: string } | { kind: 'public' };

/** The equalities (column, value) a record of `d` meets when `caller` may see it, before any filter of the request. */
export function seenConditions(d: EntityDefinition, caller: Caller): [string, unknown][] {
  const conditions: [string, unknown][] = [];
  if (d.softDelete) conditions.push(['deletedAt', null]);
  if (caller.kind === 'public') conditions.push(...Object.entries(d.publicFilter ?? {}));
  else {
    conditions.push(['teamId', caller.teamId]);
    if (!d.access.shared) conditions.push(['userId', caller.actor.userId]);
  }
  return conditions;
}

/** Rows the caller may reach, before any filter of the request, as Prisma's conditions (ANDed). */
export const baseWhere = (d: EntityDefinition, caller: Caller): Values[] => seenConditions(d, caller).map(([column, value]) => ({ [column]: value }));

/**
 * How to tell whether the caller sees the record a to-one relation names, on a record they see: the
 * conditions its target must meet beyond the team the two records share (relations never cross
 * teams: a write names only records of its team), or `never` (an anonymous reader, a target that is
 * not public). Relations with nothing to check (a shared entity's record, for a member) are absent.
 */
type RelationCheck = { field: FieldDefinition & { relation: string }; conditions: [string, unknown][] | 'never' };

function relationChecks(d: { fields: readonly FieldDefinition[] }, caller: Caller): RelationCheck[] {
  return relationFields(d).flatMap((field): RelationCheck[] => {
    const target = relationTarget(field);
    if (caller.kind === 'public' && !target.access.public) return [{ field, conditions: 'never' }];
    const conditions = seenConditions(target, caller).filter(([column]) => column !== 'teamId');
    return conditions.length ? [{ field, conditions }] : [];
  });
}

/**
 * Prisma's `include` of the related records a check reads (their id and the columns it compares),
 * added to every read of records the caller is shown: one statement per such relation and page
 * (none for `projects.customer`, one for `projects.milestone`, whose tasks are private).
 */
export function relationCheckInclude(d: EntityDefinition, caller: Caller): Values {
  const reads = relationChecks(d, caller).flatMap(({ field, conditions }) => (conditions === 'never' ? [] : [[field.relation, { select: { id: true, ...Object.fromEntries(conditions.map(([column]) => [column, true])) } }] as const]));
  return Object.fromEntries(reads);
}

/**
 * `row` with the id of each to-one relation the caller may not see set to null (the row itself when
 * none is): read with relationCheckInclude, a related record RLS hid comes as null, one it shows is
 * compared with the caller's conditions.
 */
export function withUnseenRelationsCleared(d: EntityDefinition, row: Row, caller: Caller): Row {
  let out = row;
  for (const { field, conditions } of relationChecks(d, caller)) {
    if (row[field.name] == null) continue;
    const related = row[field.relation] as Values | null | undefined;
    const seen = conditions !== 'never' && related != null && conditions.every(([column, value]) => related[column] === value);
    if (!seen) out = { ...out, [field.name]: null };
  }
  return out;
}

/**
 * Whether every member of a team sees a shared entity's records alike (realtime reads a change once
 * for them all then): not when records carry many-to-many ids or name records a member may not see.
 */
export function seenAlikeInTeam(d: EntityDefinition): boolean {
  if (!d.access.shared || d.links.length) return false;
  return relationFields(d).every((f) => relationTarget(f).access.shared && !relationTarget(f).softDelete);
}
