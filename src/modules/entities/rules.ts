// The rules of an entity's operations, made from its definition's `permissions` (the only place an
// entity's scopes are declared): any listed scope grants, a public entity's reads also grant
// anonymous callers, and an operation listing no scope refuses everyone. LIST (and aggregate, and a
// subscription to changes, which filter as LIST does) also needs the read rule of every entity its
// `where` reaches through a relation: filtering projects by their customer's office reads customers.
// These objects are what the GraphQL fields declare (schema.ts, scope-auth) and what realtime's
// opening and re-checks and the action runner evaluate (auth/rules.ts, the one evaluator).
import { bothRules, withDeclared, type Rule } from '../../auth/rules.js';
import { type EntityDefinition, type Operation } from '../../config/entity-definition.js';
import { relationTarget } from '../../config/entity-relations.js';
import { filterableInverses, filterableLinks, relationsOf } from './where.js';

/** An operation's rule: any of the definition's scopes; public reads grant anonymous callers too. */
export function operationRule(d: EntityDefinition, op: Operation): Rule {
  const needed = d.permissions[op];
  const granted: Rule = needed.length ? { scope: needed } : { nobody: `${d.slug}:${op}` };
  return d.access.public && (op === 'list' || op === 'read') ? { $any: { anonymous: true, ...granted } } : granted;
}

/**
 * The entities a `where` reaches through its relations (`customer: { office: … }` reaches customers)
 * and reverse sides (`projects: { some: … }` reaches projects).
 */
function reached(d: EntityDefinition, where: unknown, out = new Set<EntityDefinition>()): Set<EntityDefinition> {
  if (typeof where !== 'object' || where === null) return out;
  for (const [key, value] of Object.entries(where)) {
    if (key === 'AND' || key === 'OR') for (const w of (value as unknown[]) ?? []) reached(d, w, out);
    else if (key === 'NOT') reached(d, value, out);
    else if (relationsOf(d).has(key)) {
      const target = relationTarget(relationsOf(d).get(key)!);
      out.add(target);
      reached(target, value, out);
    } else if (filterableInverses(d).has(key) || filterableLinks(d).has(key)) {
      const link = filterableLinks(d).get(key);
      const listed = link ? relationTarget(link) : filterableInverses(d).get(key)!.source;
      out.add(listed);
      for (const w of Object.values((value as object) ?? {})) reached(listed, w, out);
    }
  }
  return out;
}

/** LIST's rule for one `where`: the entity's list rule and the read rule of each entity the where reaches. */
export function listRule(d: EntityDefinition, where: unknown): Rule {
  return [...reached(d, where)].reduce((rule, target) => bothRules(rule, operationRule(target, 'read')), operationRule(d, 'list'));
}

/** Whether a `where` can reach another entity at all (the rule of a definition without relations never depends on it). */
const reachesOthers = (d: EntityDefinition) => relationsOf(d).size > 0 || filterableInverses(d).size > 0 || filterableLinks(d).size > 0;

/**
 * LIST's rule as a GraphQL field declares it: decided per request from its `where` argument, always
 * including the list rule (`declared`: what the REST router checks up front and rate limits count).
 */
export function listFieldRule(d: EntityDefinition): Rule | ((parent: unknown, args: { where?: unknown }) => Rule) {
  const own = operationRule(d, 'list');
  if (!reachesOthers(d)) return own;
  return withDeclared((_parent: unknown, args: { where?: unknown }) => listRule(d, args.where), own);
}
