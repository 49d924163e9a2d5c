// The GraphQL input types of LIST's `where` (where.ts says what a where means and checks it):
// `TaskWhere` per entity, with a condition input per field type (`StringCondition`, `DecimalCondition`,
// an enum's `TaskStatusCondition`…), the related entity's where on a filterable relation, and `some`,
// `none`, `every` on reverse sides and many-to-many relations. Made once per builder.
import type { EntityDefinition, FieldDefinition } from '../../config/entity-definition.js';
import { inversesOf, relationFields, relationTarget, type Inverse } from '../../config/entity-relations.js';
import type { Builder } from '../../graphql/builder.js';
import { enumTypeName, graphqlNames, hasEnum, scalarOf } from './graphql-names.js';
import { filterableLinks, flagOperators, listOperators, operatorsOf, takesMode, whereFields, whereLimits } from './where.js';

type Ref = ReturnType<Builder['inputType']>;
type Loose = { field: (options: object) => unknown };

/** Condition inputs shared by every entity, by name (`StringCondition`…), built on first use. */
const conditionCache = new WeakMap<Builder, Map<string, Ref>>();

function conditionType(b: Builder, field: FieldDefinition, owner: { name: string }, enums: Map<string, unknown>): Ref {
  let cache = conditionCache.get(b);
  if (!cache) conditionCache.set(b, (cache = new Map()));
  const enumRef = hasEnum(field) ? enums.get(field.name) : undefined;
  const valueName = enumRef ? enumTypeName(owner, field) : scalarOf(field);
  const name = `${valueName}${field.type === 'multiselect' ? 'List' : ''}Condition`;
  let ref = cache.get(name);
  if (!ref) {
    const value = enumRef ?? valueName;
    const withMode = takesMode(field);
    if (withMode && !cache.has('TextMatchMode')) {
      cache.set('TextMatchMode', b.enumType('TextMatchMode', { description: 'How text conditions compare: exactly, or ignoring case.', values: { DEFAULT: { value: 'default' }, INSENSITIVE: { value: 'insensitive' } } }) as unknown as Ref);
    }
    ref = b.inputType(name, {
      description: `Conditions on a ${field.type === 'multiselect' ? 'list of ' : ''}${valueName} value, combined with AND.`,
      fields: (t) => {
        const loose = t as unknown as Loose;
        const out: Record<string, unknown> = {};
        for (const op of operatorsOf(field)) out[op] = loose.field({ type: flagOperators.has(op) ? 'Boolean' : listOperators.has(op) ? [value] : value, required: false });
        if (withMode) out.mode = loose.field({ type: 'TextMatchMode', required: false, description: 'INSENSITIVE: eq, in, contains… ignore case.' });
        return out as never;
      },
    }) as unknown as Ref;
    cache.set(name, ref);
  }
  return ref;
}

/** The where types of a builder, by entity: a relation's condition is its target's where. */
const whereRefs = new WeakMap<Builder, Map<EntityDefinition, Ref>>();

/** Filterable relations whose target has a where (its LIST is on), with that where. */
function relationWheres(b: Builder, d: EntityDefinition): [FieldDefinition & { relation: string }, Ref][] {
  return relationFields(d).flatMap((f) => {
    const target = whereRefs.get(b)?.get(relationTarget(f));
    return f.filterable && target ? [[f, target] as [FieldDefinition & { relation: string }, Ref]] : [];
  });
}

/** `ProjectsCondition`: some/none/every of a referring entity's where, made once per entity. */
const manyRefs = new WeakMap<Builder, Map<EntityDefinition, Ref>>();

function manyCondition(b: Builder, source: EntityDefinition, where: Ref): Ref {
  let refs = manyRefs.get(b);
  if (!refs) manyRefs.set(b, (refs = new Map()));
  let ref = refs.get(source);
  if (!ref) {
    ref = b.inputType(`${source.pluralName}Condition`, {
      description: `Conditions on a record's ${source.slug} (a to-many side), among those the caller can see; combined with AND.`,
      fields: (t) => {
        const loose = t as unknown as Loose;
        return {
          some: loose.field({ type: where, required: false, description: 'At least one meets these.' }),
          none: loose.field({ type: where, required: false, description: 'None meets these.' }),
          every: loose.field({ type: where, required: false, description: 'Every one meets these (true when there is none).' }),
        } as never;
      },
    }) as unknown as Ref;
    refs.set(source, ref);
  }
  return ref;
}

/** Reverse sides of filterable relations whose referring entity can be listed, with that entity's where. */
function inverseWheres(b: Builder, d: EntityDefinition): [Inverse, Ref][] {
  return inversesOf(d).flatMap((inverse) => {
    const source = whereRefs.get(b)?.get(inverse.source);
    return inverse.field.filterable && source ? [[inverse, manyCondition(b, inverse.source, source)] as [Inverse, Ref]] : [];
  });
}

/** `TaskWhere`: a condition per filterable field and stamp, the related records' wheres, and AND/OR/NOT groups. */
export function whereType(b: Builder, d: EntityDefinition, enums: Map<string, unknown>): Ref {
  const conditions = whereFields(d).map((f) => [f.name, conditionType(b, f, d, enums)] as const);
  let refs = whereRefs.get(b);
  if (!refs) whereRefs.set(b, (refs = new Map()));
  const where: Ref = b.inputType(graphqlNames(d).where, {
    description: `Conditions on ${d.slug}: the fields' conditions and the groups combine with AND. At most ${whereLimits.depth} levels of groups and ${whereLimits.conditions} conditions.`,
    fields: (t) => {
      const loose = t as unknown as Loose;
      const out: Record<string, unknown> = Object.fromEntries(conditions.map(([name, type]) => [name, loose.field({ type, required: false })]));
      // Built when the schema is: every entity's where exists by then.
      for (const [f, type] of relationWheres(b, d)) out[f.relation] = loose.field({ type, required: false, description: `Its ${f.relation} (a ${relationTarget(f).name} the caller can see) meets these.` });
      for (const [inverse, type] of inverseWheres(b, d)) {
        const description = inverse.field.many ? `The ${inverse.source.slug} having it among their ${inverse.field.relation}.` : `The ${inverse.source.slug} whose ${inverse.field.relation} it is.`;
        out[inverse.name] = loose.field({ type, required: false, description });
      }
      for (const f of filterableLinks(d).values()) {
        const target = whereRefs.get(b)?.get(relationTarget(f));
        if (target) out[f.relation] = loose.field({ type: manyCondition(b, relationTarget(f), target), required: false, description: `Its ${f.relation} (many-to-many).` });
      }
      out.AND = loose.field({ type: [where], required: false, description: 'Every one of these holds.' });
      out.OR = loose.field({ type: [where], required: false, description: 'At least one of these holds.' });
      out.NOT = loose.field({ type: where, required: false, description: 'This does not hold.' });
      return out as never;
    },
  }) as unknown as Ref;
  refs.set(d, where);
  return where;
}
