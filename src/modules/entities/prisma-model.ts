// Definitions → Prisma models (prisma/entities.prisma, written by `npm run generate`): one table per
// entity and per child, snake_case columns, the owner team and user, indexes for (teamId, createdAt)
// and every sortable or filterable field, the definition's composite indexes, trigram search
// indexes, and per-team uniqueness. Defaults are applied by the runtime validator (one source of
// truth), not by the database.
import { type ChildDefinition, type EntityDefinition, type FieldDefinition, type OnDelete } from '../../config/entity-definition.js';
import { camelSlug } from '../../config/entity-names.js';
import { relationFields, relationTarget } from '../../config/entity-relations.js';

export const columnName = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function prismaType(field: FieldDefinition): string {
  const optional = field.required ? '' : '?';
  switch (field.type) {
    case 'number':
      return `Float${optional}`;
    case 'integer':
      return `Int${optional}`;
    case 'decimal':
      return `Decimal${optional} @db.Decimal(${field.precision ?? 12}, ${field.scale ?? 2})`;
    case 'boolean':
      return `Boolean${optional}`;
    case 'date':
      return `DateTime${optional} @db.Date`;
    case 'datetime':
      return `DateTime${optional} @db.Timestamptz(3)`;
    case 'multiselect':
      return 'String[] @default([])';
    case 'json':
      return `Json${optional}`;
    case 'relation':
      return `String${optional} @db.Uuid`;
    case 'media':
      // No foreign key: media are soft-deleted, and what that does to the records using them (onDelete) is the media trigger's (rls.ts mediaTrigger).
      return field.many ? 'String[] @default([]) @db.Uuid' : `String${optional} @db.Uuid`;
    default:
      return `String${optional}`;
  }
}

function fieldLine(field: FieldDefinition): string {
  const type = prismaType(field);
  const column = columnName(field.name);
  const map = column === field.name ? '' : ` @map("${column}")`;
  return `  ${field.name} ${type}${map}`;
}

/**
 * Every query of a record is scoped to its team, and for private entities (`shared: false`) to its
 * creator too: indexes lead with those columns, so a filtered count stays an index-only range scan of
 * the caller's own rows however large the team's table grows. A unique value is unique among the live
 * records of a soft-deleting entity (a partial index): a deleted record's value is free again.
 */
function indexes(fields: FieldDefinition[], shared: boolean, composite: { fields: string[] }[] = [], softDelete = false): string[] {
  const scope = shared ? 'teamId' : 'teamId, userId';
  const lines = [`  @@index([${scope}, createdAt])`];
  for (const index of composite) lines.push(`  @@index([${scope}, ${index.fields.join(', ')}, id])`);
  for (const f of fields) {
    // Search: a trigram GIN index serves the case-insensitive "contains" of LIST `search`.
    if (f.searchable) lines.push(`  @@index([${f.name}(ops: raw("gin_trgm_ops"))], type: Gin)`);
    if (f.unique) lines.push(`  @@unique([teamId, ${f.name}]${softDelete ? ', where: { deletedAt: null }' : ''})`);
    else if (f.type === 'multiselect' && f.filterable) lines.push(`  @@index([${f.name}], type: Gin)`);
    else if ((f.sortable || f.filterable) && f.type !== 'multiselect') lines.push(`  @@index([${scope}, ${f.name}])`);
    // A foreign key's own index: the target's delete finds the records naming it, and a target's records are read by it.
    if (f.type === 'relation' || (f.type === 'media' && !f.many)) lines.push(`  @@index([${f.name}])`);
    // A media list's index: deleting a media finds the records listing it (`photo_ids @> ARRAY[id]`).
    if (f.type === 'media' && f.many) lines.push(`  @@index([${f.name}], type: Gin)`);
  }
  return lines;
}

const ownerLines = [
  '  id        String   @id @default(uuid()) @db.Uuid',
  '  teamId    String   @map("team_id") @db.Uuid',
  '  userId    String   @map("user_id") @db.Uuid',
];

const stampLines = [
  '  createdAt DateTime @default(now()) @map("created_at") @db.Timestamptz(3)',
  '  updatedAt DateTime @updatedAt @map("updated_at") @db.Timestamptz(3)',
];

const ownerRelationLines = (model: string) => [
  `  team      Team     @relation("${model}Team", fields: [teamId], references: [id], onDelete: Cascade)`,
  `  user      User     @relation("${model}User", fields: [userId], references: [id], onDelete: Cascade)`,
];

const referentialActions: Record<OnDelete, string> = { restrict: 'Restrict', setNull: 'SetNull', cascade: 'Cascade' };

/** Prisma's name of a relation (`TaskCustomer`), on both of its models. */
const relationName = (d: EntityDefinition, f: FieldDefinition) => `${d.name}${f.relation!.charAt(0).toUpperCase()}${f.relation!.slice(1)}`;

/** The related record of each relation field (`customer Customer? @relation(…)`), its foreign key enforcing onDelete. */
const relationLines = (d: EntityDefinition) =>
  relationFields(d).map((f) => `  ${f.relation} ${relationTarget(f).name}${f.required ? '' : '?'} @relation("${relationName(d, f)}", fields: [${f.name}], references: [id], onDelete: ${referentialActions[f.onDelete!]})`);

/** Prisma's field for a relation's other side, on its target: `projectsByCustomer` on Customer. */
export const inverseField = (d: EntityDefinition, f: FieldDefinition) => `${camelSlug(d.slug)}By${relationName(d, f).slice(d.name.length)}`;

/** The other side Prisma wants on a relation's target: `projectsByCustomer Project[]` on Customer; for a link, its join rows (`projectsByTasks ProjectTaskLink[]`). */
function inverseLines(target: EntityDefinition, definitions: readonly EntityDefinition[]): string[] {
  return definitions.flatMap((d) => [
    ...relationFields(d)
      .filter((f) => relationTarget(f) === target)
      .map((f) => `  ${inverseField(d, f)} ${d.name}[] @relation("${relationName(d, f)}")`),
    ...d.links.filter((f) => relationTarget(f) === target).map((f) => `  ${inverseField(d, f)} ${linkModel(d, f)}[] @relation("${relationName(d, f)}Related")`),
  ]);
}

// ---- many-to-many: one join table per link -------------------------------------------------------

/** The join model of a link: `ProjectTaskLink` (table `projects_tasks`). */
export const linkModel = (d: EntityDefinition, f: FieldDefinition) => `${relationName(d, f)}Link`;
export const linkTable = (d: EntityDefinition, f: FieldDefinition) => `${d.tableName}_${columnName(f.relation!)}`;
/** The record's field holding its join rows: `tasksLinks` on Project. */
export const linksField = (f: FieldDefinition) => `${f.relation}Links`;

/**
 * A link's join table: one row per related pair (`record_id` → the record, `related_id` → the related
 * record, both deleted along), the team for RLS, in the order links were made; keyed by the pair, and
 * indexed by the related record for the reverse side.
 */
function joinModel(d: EntityDefinition, f: FieldDefinition): string {
  const target = relationTarget(f);
  const name = relationName(d, f);
  return [
    `/// Generated from src/config/entities (${d.slug}.${f.relation} ↔ ${target.slug}): do not edit.`,
    `model ${linkModel(d, f)} {`,
    '  recordId  String   @map("record_id") @db.Uuid',
    '  relatedId String   @map("related_id") @db.Uuid',
    '  teamId    String   @map("team_id") @db.Uuid',
    '  createdAt DateTime @default(now()) @map("created_at") @db.Timestamptz(3)',
    `  record    ${d.name} @relation("${name}", fields: [recordId], references: [id], onDelete: Cascade)`,
    `  related   ${target.name} @relation("${name}Related", fields: [relatedId], references: [id], onDelete: Cascade)`,
    '',
    '  @@id([recordId, relatedId])',
    '  @@index([relatedId])',
    `  @@map("${linkTable(d, f)}")`,
    '}',
  ].join('\n');
}

function entityModel(d: EntityDefinition, definitions: readonly EntityDefinition[]): string {
  const lines = [`/// Generated from src/config/entities (${d.slug}): do not edit, run \`npm run generate\`.`, `model ${d.name} {`, ...ownerLines];
  for (const f of d.fields) lines.push(fieldLine(f));
  if (d.metas) lines.push('  metas     Json     @default("{}")');
  if (d.softDelete) lines.push('  deletedAt DateTime? @map("deleted_at") @db.Timestamptz(3)');
  lines.push(...stampLines, ...ownerRelationLines(d.name), ...relationLines(d), ...d.links.map((f) => `  ${linksField(f)} ${linkModel(d, f)}[] @relation("${relationName(d, f)}")`), ...inverseLines(d, definitions));
  for (const c of d.children) lines.push(`  ${childField(c)} ${c.name}[]`);
  lines.push('', ...indexes(d.fields, d.access.shared, d.indexes, d.softDelete), `  @@map("${d.tableName}")`, '}');
  return lines.join('\n');
}

/** The parent's field holding a child's records: the child's slug in camelCase (`notes`). */
export const childField = (c: ChildDefinition) => camelSlug(c.slug);

function childModel(parent: EntityDefinition, c: ChildDefinition): string {
  const lines = [`/// Generated from src/config/entities (${parent.slug} → ${c.slug}): do not edit.`, `model ${c.name} {`, ...ownerLines, '  parentId  String   @map("parent_id") @db.Uuid'];
  for (const f of c.fields) lines.push(fieldLine(f));
  lines.push(...stampLines, ...ownerRelationLines(c.name), `  parent    ${parent.name} @relation(fields: [parentId], references: [id], onDelete: Cascade)`);
  lines.push('', '  @@index([parentId, createdAt])', ...indexes(c.fields, true), `  @@map("${c.tableName}")`, '}');
  return lines.join('\n');
}

/** The whole generated schema file. */
export function entitiesPrisma(definitions: readonly EntityDefinition[]): string {
  const models = definitions.flatMap((d) => [entityModel(d, definitions), ...d.children.map((c) => childModel(d, c)), ...d.links.map((f) => joinModel(d, f))]);
  return `// Generated by \`npm run generate\` from src/config/entities: do not edit.\n\n${models.join('\n\n')}\n`;
}

/** Back-relation fields User and Team need for every entity model (Prisma wants both sides). */
export function backRelations(definitions: readonly EntityDefinition[], side: 'Team' | 'User'): string[] {
  const models = definitions.flatMap((d) => [d.name, ...d.children.map((c) => c.name)]);
  return models.map((m) => `  entity${m}s ${m}[] @relation("${m}${side}")`);
}
