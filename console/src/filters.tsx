// The list's filter: conditions on filterable fields with the operators of their type, combined by
// "all" (AND) or "any" (OR), with groups inside (one level), written as the entity's GraphQL `where`
// (docs/api/entities.md "Operators and AND/OR/NOT"; REST's `filter` JSON takes the same).
import type { StudioEntity, StudioField } from './definitions.js';

export interface Condition {
  field: string;
  op: string;
  value: string;
}
export interface Group {
  match: 'AND' | 'OR';
  conditions: Condition[];
  groups: Group[];
}

export const emptyGroup = (): Group => ({ match: 'AND', conditions: [], groups: [] });

/** The operators of a field's type; `createdAt`/`updatedAt` are instants. */
export function operatorsOf(field: Pick<StudioField, 'type'>): string[] {
  switch (field.type) {
    case 'string':
    case 'text':
    case 'email':
    case 'url':
      return ['eq', 'ne', 'contains', 'startsWith', 'endsWith', 'in', 'notIn', 'isNull'];
    case 'number':
    case 'integer':
    case 'decimal':
    case 'date':
    case 'datetime':
      return ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'notIn', 'isNull'];
    case 'select':
    case 'relation':
    case 'media':
      return ['eq', 'ne', 'in', 'notIn', 'isNull'];
    case 'boolean':
      return ['eq', 'ne', 'isNull'];
    case 'multiselect':
      return ['has', 'hasSome', 'hasEvery', 'isEmpty'];
    default:
      return [];
  }
}

export const operatorLabels: Record<string, string> = {
  eq: 'is',
  ne: 'is not',
  contains: 'contains',
  startsWith: 'starts with',
  endsWith: 'ends with',
  in: 'is one of',
  notIn: 'is none of',
  isNull: 'is empty',
  lt: '<',
  lte: '≤',
  gt: '>',
  gte: '≥',
  has: 'has',
  hasSome: 'has any of',
  hasEvery: 'has all of',
  isEmpty: 'is empty',
};

const stamps: StudioField[] = ['createdAt', 'updatedAt'].map((name) => ({ name, label: name === 'createdAt' ? 'Created' : 'Updated', type: 'datetime', required: true, many: false, virtual: false, sortable: true, filterable: true, searchable: false }));

/** The fields a filter may name: filterable fields, and the stamps. */
export const filterFields = (d: StudioEntity): StudioField[] => [...d.fields.filter((f) => f.filterable && !f.virtual && operatorsOf(f).length), ...stamps];

function conditionOf(field: StudioField, c: Condition): Record<string, unknown> {
  const list = ['in', 'notIn', 'hasSome', 'hasEvery'].includes(c.op);
  const typed = (text: string): unknown => {
    if (field.type === 'number' || field.type === 'integer') return Number(text);
    if (field.type === 'boolean') return text === 'true';
    return text;
  };
  let value: unknown;
  if (c.op === 'isNull' || c.op === 'isEmpty') value = c.value !== 'false';
  else if (list) value = c.value.split(',').map((v) => typed(v.trim())).filter((v) => v !== '');
  else value = typed(c.value);
  return { [c.field]: { [c.op]: value } };
}

/** The group as LIST's `where`, or undefined when it says nothing. */
export function whereOf(d: StudioEntity, group: Group): Record<string, unknown> | undefined {
  const fields = filterFields(d);
  const parts = [
    ...group.conditions.filter((c) => c.field && c.op && (c.value !== '' || c.op === 'isNull' || c.op === 'isEmpty')).map((c) => conditionOf(fields.find((f) => f.name === c.field)!, c)),
    ...group.groups.map((g) => whereOf(d, g)).filter((w): w is Record<string, unknown> => w !== undefined),
  ];
  if (!parts.length) return undefined;
  return { [group.match]: parts };
}

interface EditorProps {
  entity: StudioEntity;
  group: Group;
  onChange: (group: Group) => void;
  depth?: number;
}

/** The filter's editor: a match mode, its conditions, and (at the top) groups of their own. */
export function FilterEditor({ entity, group, onChange, depth = 0 }: EditorProps) {
  const fields = filterFields(entity);
  const setCondition = (at: number, change: Partial<Condition>) => onChange({ ...group, conditions: group.conditions.map((c, i) => (i === at ? { ...c, ...change } : c)) });
  const first = fields[0];
  const add = () => first && onChange({ ...group, conditions: [...group.conditions, { field: first.name, op: operatorsOf(first)[0]!, value: '' }] });
  const label = depth ? 'Group' : 'Filter';
  return (
    <fieldset class="filter-group">
      <legend>{label}</legend>
      <label class="inline">
        Match
        <select value={group.match} onChange={(e) => onChange({ ...group, match: (e.currentTarget as HTMLSelectElement).value as Group['match'] })}>
          <option value="AND">all of (AND)</option>
          <option value="OR">any of (OR)</option>
        </select>
      </label>
      {group.conditions.map((c, at) => {
        const field = fields.find((f) => f.name === c.field) ?? first!;
        const noValue = c.op === 'isNull' || c.op === 'isEmpty';
        return (
          <div class="condition" key={at}>
            <select aria-label="Field" value={c.field} onChange={(e) => {
              const next = fields.find((f) => f.name === (e.currentTarget as HTMLSelectElement).value)!;
              setCondition(at, { field: next.name, op: operatorsOf(next)[0]!, value: '' });
            }}>
              {fields.map((f) => (
                <option key={f.name} value={f.name}>
                  {f.label}
                </option>
              ))}
            </select>
            <select aria-label="Operator" value={c.op} onChange={(e) => setCondition(at, { op: (e.currentTarget as HTMLSelectElement).value })}>
              {operatorsOf(field).map((op) => (
                <option key={op} value={op}>
                  {operatorLabels[op] ?? op}
                </option>
              ))}
            </select>
            {noValue ? (
              <select aria-label="Value" value={c.value || 'true'} onChange={(e) => setCondition(at, { value: (e.currentTarget as HTMLSelectElement).value })}>
                <option value="true">yes</option>
                <option value="false">no</option>
              </select>
            ) : field.enum && !['in', 'notIn', 'hasSome', 'hasEvery'].includes(c.op) ? (
              <select aria-label="Value" value={c.value} onChange={(e) => setCondition(at, { value: (e.currentTarget as HTMLSelectElement).value })}>
                <option value="">—</option>
                {field.enum.map((choice) => (
                  <option key={choice} value={choice}>
                    {choice}
                  </option>
                ))}
              </select>
            ) : (
              <input
                aria-label="Value"
                type={field.type === 'date' ? 'date' : field.type === 'number' || field.type === 'integer' ? 'number' : 'text'}
                placeholder={['in', 'notIn', 'hasSome', 'hasEvery'].includes(c.op) ? 'a, b, c' : ''}
                value={c.value}
                onInput={(e) => setCondition(at, { value: (e.currentTarget as HTMLInputElement).value })}
              />
            )}
            <button type="button" class="secondary" onClick={() => onChange({ ...group, conditions: group.conditions.filter((_, i) => i !== at) })}>
              Remove
            </button>
          </div>
        );
      })}
      {group.groups.map((g, at) => (
        <FilterEditor key={at} entity={entity} depth={depth + 1} group={g} onChange={(next) => onChange({ ...group, groups: group.groups.map((o, i) => (i === at ? next : o)) })} />
      ))}
      <div class="actions">
        <button type="button" class="secondary" onClick={add} disabled={!first}>
          Add a condition
        </button>
        {depth === 0 && (
          <button type="button" class="secondary" onClick={() => onChange({ ...group, groups: [...group.groups, emptyGroup()] })}>
            Add a group
          </button>
        )}
        {depth > 0 && <span class="hint">Conditions of a group combine as it says, and the group with the rest as the filter says.</span>}
      </div>
    </fieldset>
  );
}
