// Operation limits on /graphql, checked before anything runs: tokens (while parsing), depth and
// aliases (validation, GraphQL Armor's rules) and a cost (below, with the request's variables). They
// are envelop plugins, so yoga's full path and the endpoint's fast path (endpoint.ts, which calls the
// same enveloped parse/validate/execute) apply them alike, whatever GraphiQL and introspection are.
// REST routes run our own fixed documents in process and are not limited here (limits.test.ts checks
// that every one of them fits the defaults).
//
// Cost: GraphQL Armor's cost rule weighs lists only by literal `first`/`last` arguments, and our lists
// take `limit` (often as a variable), so the cost is ours: one point per object an operation may
// return. A field returning a list counts as many objects as its `limit` (or `first`) argument, or the
// `limit` of the page it belongs to (`tasks(limit: 100) { items { … } }`: 1 page + 100 items), or
// `assumedListSize` when nothing bounds it; what it selects is multiplied by that. Scalar fields
// without arguments are free (a column of a row already loaded); a scalar field with arguments (a
// lookup) counts as one object, or as its `limit`.
// Introspection and __typename are free: they are answered from memory; so is a field that computes a
// few objects from its parent in memory and says so (`extensions: { computed: true }`: Media.renditions).
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import {
  getNamedType,
  getNullableType,
  getOperationAST,
  GraphQLError,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../shared/errors.js';
import type { Context } from './context.js';
import { toClientError } from './errors.js';
import { operationScopes } from './operation-scopes.js';

export interface OperationLimits {
  /** Deepest selection nesting (GRAPHQL_MAX_DEPTH). */
  maxDepth: number;
  /** Aliased fields in one operation, fragments included (GRAPHQL_MAX_ALIASES). */
  maxAliases: number;
  /** Lexical tokens in one document (GRAPHQL_MAX_TOKENS). */
  maxTokens: number;
  /** Cost of the operation that runs (GRAPHQL_MAX_COST). */
  maxCost: number;
}

/** The documented defaults (docs/configuration.md, config/env.ts; limits.test.ts checks they agree). */
export const defaultOperationLimits: OperationLimits = { maxDepth: 10, maxAliases: 15, maxTokens: 2000, maxCost: 5000 };

/** Objects a list is assumed to hold when no argument bounds it (the API's page sizes are 10 to 20). */
export const assumedListSize = 20;

/** Arguments that bound how many objects a field returns. */
const limitArguments = ['limit', 'first'];

/**
 * The refusal of an operation over a limit: 400 on every media type. yoga answers errors it marks
 * `spec` with 200 on legacy application/json, and marks every parse error so (`spec ||= true`), which
 * a token refusal is: `spec` stays false whatever is assigned to it.
 */
function tooComplex(message: string, details?: Record<string, unknown>): GraphQLError {
  const http = Object.defineProperty({ status: 400 }, 'spec', { enumerable: true, get: () => false, set: () => {} });
  return new GraphQLError(message, { extensions: { code: 'QUERY_TOO_COMPLEX', http, ...(details && { details }) } });
}

/** GraphQL Armor's messages start with "Syntax Error: " whatever the limit; ours say which limit. */
const armorMessage = (error: GraphQLError) => error.message.replace(/^Syntax Error: /, '');

/** Reports an Armor rule's refusal as a validation error of ours, instead of its throw (which would escape validate()). */
const reportTo = (context: ValidationContext | null, error: GraphQLError) => context?.reportError(tooComplex(armorMessage(error)));

interface CostWalk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  defaults: Map<string, unknown>;
  /** Cost of a fragment's selection for one object, by name and the page limit it inherits. */
  memo: Map<string, number>;
}

const asCount = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.floor(value)) : undefined);

/** The value of an argument given as a literal or a variable (the variable's default when it is not sent). */
function argumentValue(walk: CostWalk, node: FieldNode, name: string): unknown {
  const arg = node.arguments?.find((a) => a.name.value === name);
  if (!arg) return undefined;
  if (arg.value.kind === Kind.VARIABLE) {
    const variable = arg.value.name.value;
    return Object.hasOwn(walk.variables, variable) ? walk.variables[variable] : walk.defaults.get(variable);
  }
  return valueFromASTUntyped(arg.value, walk.variables);
}

/** How many objects the field's arguments ask for; undefined when it takes no such argument. */
function requestedCount(walk: CostWalk, node: FieldNode, field: GraphQLField<unknown, unknown>): number | undefined {
  let bounded = false;
  let count: number | undefined;
  for (const name of limitArguments) {
    const arg = field.args.find((a) => a.name === name);
    if (!arg) continue;
    bounded = true;
    const given = asCount(argumentValue(walk, node, name)) ?? asCount(arg.defaultValue);
    if (given !== undefined) count = Math.max(count ?? 0, given);
  }
  return bounded ? (count ?? assumedListSize) : undefined;
}

function fieldCost(walk: CostWalk, node: FieldNode, parent: GraphQLNamedType, pageLimit: number | undefined): number {
  if (node.name.value.startsWith('__')) return 0;
  if (!isObjectType(parent) && !isInterfaceType(parent)) return 0;
  const field = parent.getFields()[node.name.value];
  if (!field || field.extensions?.computed === true) return 0;
  const requested = requestedCount(walk, node, field);
  const listed = isListType(getNullableType(field.type));
  const named = getNamedType(field.type);
  if (!isCompositeType(named)) {
    if (!field.args.length) return 0;
    return listed ? (requested ?? assumedListSize) : (requested ?? 1);
  }
  const objects = listed ? (requested ?? pageLimit ?? assumedListSize) : 1;
  // A page (an object with a limit) hands its limit to its list of items.
  const childPageLimit = listed ? undefined : requested;
  return objects * (1 + selectionCost(walk, node.selectionSet, named, childPageLimit));
}

function selectionCost(walk: CostWalk, selectionSet: SelectionSetNode | undefined, type: GraphQLNamedType, pageLimit: number | undefined): number {
  let cost = 0;
  for (const selection of selectionSet?.selections ?? []) {
    if (selection.kind === Kind.FIELD) {
      cost += fieldCost(walk, selection, type, pageLimit);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const on = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : type;
      if (on) cost += selectionCost(walk, selection.selectionSet, on, pageLimit);
    } else {
      // Memoized: fragments spread inside fragments would otherwise be walked exponentially often.
      const key = `${selection.name.value}:${pageLimit ?? ''}`;
      let fragmentCost = walk.memo.get(key);
      if (fragmentCost === undefined) {
        walk.memo.set(key, 0); // a cycle (refused by validation anyway) ends here
        const fragment = walk.fragments.get(selection.name.value);
        const on = fragment && walk.schema.getType(fragment.typeCondition.name.value);
        fragmentCost = fragment && on ? selectionCost(walk, fragment.selectionSet, on, pageLimit) : 0;
        walk.memo.set(key, fragmentCost);
      }
      cost += fragmentCost;
    }
  }
  return cost;
}

/** The cost of the operation a request runs, with its variables (see the top of this file); 0 when there is none. */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, variables?: Record<string, unknown> | null): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  if (!root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const defaults = new Map<string, unknown>();
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue) defaults.set(definition.variable.name.value, valueFromASTUntyped(definition.defaultValue));
  }
  return selectionCost({ schema, fragments, variables: variables ?? {}, defaults, memo: new Map() }, operation.selectionSet, root, undefined);
}

/** A keyed request whose cost its key's rate limit cannot pay (see Context.chargeCost). */
function rateLimitedError(retryAfter: number): GraphQLError {
  return toClientError(new AppError('RATE_LIMITED', 'Rate limit exceeded', { retryAfter }), undefined);
}

/**
 * Refuses operations over the cost limit, then charges the cost to the rate limits of the scopes the
 * operation's root fields require (operation-scopes.ts, pipeline/rate-rule.ts), before execution.
 */
function costLimitPlugin(maxCost: number): Plugin<Context> {
  type Hook = NonNullable<Plugin<Context>['onExecute']>;
  // A subscription is weighed and charged once, when it opens (one event's selection).
  const check = ({ args, setResultAndStopExecution }: Pick<Parameters<Hook>[0], 'args' | 'setResultAndStopExecution'>) => {
    const cost = operationCost(args.schema, args.document, args.operationName, args.variableValues);
    if (cost > maxCost) {
      setResultAndStopExecution({ errors: [tooComplex(`Query cost limit of ${maxCost} exceeded, found ${cost}.`, { cost, maxCost })] });
      return;
    }
    // Only keyed requests wait on the rate limiter; the rest go on without a promise in between.
    const ctx = args.contextValue;
    const charged = ctx.chargeCost && ctx.chargeCost(cost, operationScopes(args.schema, args.document, args.operationName));
    return charged?.then((refused) => {
      if (refused) setResultAndStopExecution({ errors: [rateLimitedError(refused.retryAfter)] });
    });
  };
  return { onExecute: check, onSubscribe: check };
}

/** The envelop plugins that enforce `limits` (add them to yoga's plugin list). */
export function operationLimitPlugins(limits: OperationLimits): Plugin<Context>[] {
  const armor = { exposeLimits: true, propagateOnRejection: false, onReject: [reportTo] };
  // ignoreIntrospection (GraphiQL's own query is 13 deep): introspection is bounded by the token limit.
  const maxDepth = maxDepthRule({ n: limits.maxDepth, ignoreIntrospection: true, ...armor });
  const maxAliases = maxAliasesRule({ n: limits.maxAliases, ...armor });
  return [
    // Counted while parsing: an oversized document is refused before it is ever held as an AST. The
    // refusal is thrown, as a parse error is.
    maxTokensPlugin({ n: limits.maxTokens, ...armor, onReject: [(_ctx, error) => { throw tooComplex(armorMessage(error)); }] }),
    {
      onValidate: ({ addValidationRule }) => {
        addValidationRule(maxDepth);
        addValidationRule(maxAliases);
      },
    },
    costLimitPlugin(limits.maxCost),
  ];
}
