// Whether the caller passes the `authScopes` rules of an operation's root fields, decided before
// anything of the request is read: the REST router asks it first, so that a caller who may not run a
// route hears 401 or 403 (as GraphQL would answer) rather than what is wrong with a body they may not
// send. The rules are the fields' own (declared once, on the fields) and each scope means what
// scope-auth makes of it (builder.ts `scopeChecks`); a rule given as a function is left to GraphQL.
import { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import { getOperationAST, type DocumentNode, type GraphQLSchema } from 'graphql';
import { type AppError, forbidden, unauthenticated } from '../shared/errors.js';
import { refusalMessage, scopeChecks } from './builder.js';
import type { Context } from './context.js';
import { rootFieldRules } from './operation-scopes.js';

type Checks = ReturnType<typeof scopeChecks>;
type Rule = Record<string, unknown>;

/** The root fields' rules of an operation (those given as objects), worked out once per route at start-up. */
export function operationRules(schema: GraphQLSchema, document: DocumentNode): readonly Rule[] {
  const operation = getOperationAST(document);
  return Object.freeze(operation ? rootFieldRules(schema, document, operation) : []);
}

/** The 401 or 403 the fields would answer `ctx`'s caller, or null when every rule passes. */
export function operationRefusal(rules: readonly Rule[], ctx: Pick<Context, 'actor'>): AppError | null {
  if (!rules.length) return null;
  const checks = scopeChecks(ctx);
  for (const rule of rules) {
    const failure = evaluate(rule, checks, 'any');
    if (failure) return ctx.actor.kind === 'anonymous' ? unauthenticated() : forbidden(refusalMessage(failure) ?? 'Forbidden');
  }
  return null;
}

/** scope-auth's semantics: a rule's scopes combine with "any" unless under `$all`. */
function evaluate(rule: Rule, checks: Checks, mode: 'any' | 'all'): AuthFailure | null {
  const failures: AuthFailure[] = [];
  for (const [name, parameter] of Object.entries(rule)) {
    const failure =
      name === '$any' ? evaluate(parameter as Rule, checks, 'any')
      : name === '$all' ? evaluate(parameter as Rule, checks, 'all')
      : passes(checks, name, parameter) ? null
      : ({ kind: AuthScopeFailureType.AuthScope, scope: name, parameter } as AuthFailure);
    if (failure === null && mode === 'any') return null;
    if (failure !== null) {
      if (mode === 'all') return failure;
      failures.push(failure);
    }
  }
  if (mode === 'all') return null;
  return { kind: AuthScopeFailureType.AnyAuthScopes, failures } as AuthFailure;
}

function passes(checks: Checks, name: string, parameter: unknown): boolean {
  const check = (checks as Record<string, unknown>)[name];
  if (typeof check === 'function') return Boolean((check as (p: unknown) => unknown)(parameter));
  return check === true;
}
