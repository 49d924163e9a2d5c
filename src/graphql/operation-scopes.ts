// The scopes an operation requires, read from the `authScopes` its root fields declare (scope-auth):
// what a key's rate limits count (pipeline/rate-rule.ts) and what REST routes document, without any
// declaration repeating them. A field's rule names its scopes in `scope` (one, or a list of which any
// suffices: the first, the one the 403 names, stands for the list), nested in `$any` and `$all`; a
// rule given as a function is decided at run time and names none, unless it carries the rule it
// always includes as `declared` (auth/rules.ts withDeclared: an entity LIST, whose where may add the
// scopes of the entities it reaches). Nested fields are not read: the
// root field is the operation's entry (a record's `tags` under `media` needs what `media` needs).
import { getOperationAST, Kind, type DocumentNode, type GraphQLField, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { declaredRule, type Rule } from '../auth/rules.js';

/** The scopes of one field's authScopes rule, in the order declared. */
export function ruleScopes(given: unknown): string[] {
  const rule = declaredRule(given);
  if (!rule) return []; // a function: decided at run time
  const found: string[] = [];
  for (const [name, value] of Object.entries(rule)) {
    if (name === 'scope') {
      const first = typeof value === 'string' ? value : Array.isArray(value) ? value[0] : undefined;
      if (typeof first === 'string') found.push(first);
    } else if (name === '$any' || name === '$all') {
      found.push(...ruleScopes(value));
    }
  }
  return found;
}

/** The root field names an operation selects, through fragments and inline fragments. */
function rootFieldNames(document: DocumentNode, selectionSet: SelectionSetNode, seen = new Set<string>()): string[] {
  const names: string[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      names.push(selection.name.value);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      names.push(...rootFieldNames(document, selection.selectionSet, seen));
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value); // a fragment spread twice (or in a cycle validation refuses) is read once
      const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value);
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) names.push(...rootFieldNames(document, fragment.selectionSet, seen));
    }
  }
  return names;
}

const memo = new WeakMap<GraphQLSchema, WeakMap<OperationDefinitionNode, readonly string[]>>();

/**
 * The distinct scopes the root fields of the operation (`operationName`, or the document's only one)
 * require; empty when they require none or there is no such operation. Memoized per operation node:
 * yoga and the REST router hand the same parsed document back for the same text.
 */
export function operationScopes(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): readonly string[] {
  const operation = getOperationAST(document, operationName);
  if (!operation) return [];
  let bySchema = memo.get(schema);
  if (!bySchema) memo.set(schema, (bySchema = new WeakMap()));
  let scopes = bySchema.get(operation);
  if (!scopes) bySchema.set(operation, (scopes = computeScopes(schema, document, operation)));
  return scopes;
}

function computeScopes(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): readonly string[] {
  const scopes = new Set<string>();
  for (const rule of rootFieldRules(schema, document, operation)) for (const scope of ruleScopes(rule)) scopes.add(scope);
  return Object.freeze([...scopes]);
}

/** The rule a field declares: its `authScopes` object, or the `declared` part of one given as a function; null when none. */
function fieldRule(field: GraphQLField<unknown, unknown> | undefined): Rule | null {
  return declaredRule((field?.extensions?.pothosOptions as { authScopes?: unknown } | undefined)?.authScopes);
}

/** The `authScopes` rules the root fields of `operation` declare (a rule given as a function is left out, decided at run time, but for what it declares). */
export function rootFieldRules(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Rule[] {
  const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  const fields = root?.getFields() ?? {};
  return rootFieldNames(document, operation.selectionSet).flatMap((name) => fieldRule(fields[name]) ?? []);
}

/**
 * The rule the field at `coordinate` (`Mutation.uploadMedia`, `Subscription.taskEvents`) declares:
 * what an HTTP declaration that is another face of that field requires. Throws at start-up for a
 * field the schema lacks or one that declares no rule (a route would otherwise be open by mistake).
 */
export function coordinateRule(schema: GraphQLSchema, coordinate: string): Rule {
  const [typeName, fieldName] = coordinate.split('.');
  const type = typeName ? schema.getType(typeName) : undefined;
  const field = type && 'getFields' in type && fieldName ? (type.getFields()[fieldName] as GraphQLField<unknown, unknown> | undefined) : undefined;
  if (!field) throw new Error(`${coordinate}: no such field in the schema`);
  const rule = fieldRule(field);
  if (!rule) throw new Error(`${coordinate} declares no authScopes rule`);
  return rule;
}
