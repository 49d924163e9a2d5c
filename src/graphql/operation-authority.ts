// Whether the caller passes the rules of an operation's root fields, decided before anything of the
// request is read: the REST router asks it first, so that a caller who may not run a route hears 401
// or 403 (as GraphQL would answer) rather than what is wrong with a body they may not send. The rules
// are the fields' own (declared once, on the fields), judged by the one evaluator (auth/rules.ts); a
// rule given as a function of the arguments is judged here by the part it always includes
// (`declared`), and whole by GraphQL once the arguments are known.
import { getOperationAST, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Actor } from '../auth/actor.js';
import { refusalOf, type Rule } from '../auth/rules.js';
import type { AppError } from '../shared/errors.js';
import { rootFieldRules } from './operation-scopes.js';

/** The root fields' rules of an operation (those given as objects), worked out once per route at start-up. */
export function operationRules(schema: GraphQLSchema, document: DocumentNode): readonly Rule[] {
  const operation = getOperationAST(document);
  return Object.freeze(operation ? rootFieldRules(schema, document, operation) : []);
}

/** The 401 or 403 the fields would answer `actor`, or null when every rule passes. */
export function operationRefusal(rules: readonly Rule[], actor: Actor): AppError | null {
  for (const rule of rules) {
    const refusal = refusalOf(rule, actor);
    if (refusal) return refusal;
  }
  return null;
}
