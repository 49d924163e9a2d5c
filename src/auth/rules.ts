// The platform's one authorization rule and its one evaluator. A rule is an object in Pothos
// scope-auth's form, declared once where the operation is declared (on a GraphQL field's
// `authScopes`; an entity's from its definition's permissions, entities/rules.ts) and evaluated:
// - by scope-auth on GraphQL fields, with the atoms below (`ruleChecks`, the builder's `authScopes`);
// - by `refusalOf` on every other face: the REST router before it reads input, HTTP declarations
//   (they name the field whose rule they share), realtime when a subscription opens and at every
//   re-check, the scheduled-action runner for an action's creator.
// `refusalOf` follows scope-auth's semantics exactly (src/auth/rules.test.ts runs both on the same
// rules and callers): the entries of a map pass when any passes, those under `$all` when all do;
// a boolean atom (`authenticated`, `session`, `anonymous`) ignores its parameter. The first failure
// names what is missing: "Insufficient permissions - customers:read scope required".
import { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import { forbidden, unauthenticated, type AppError } from '../shared/errors.js';
import { hasGlobalRole, type AnonymousActor, type AuthenticatedActor, type GlobalRole } from './actor.js';
import { hasScope } from './scopes.js';

/**
 * A rule: `scope` (one of these `entity:action` scopes), `authenticated`, `session` (signed in with
 * a browser session), `anonymous` (nobody signed in: public reads), `role` (at least this global
 * role), `nobody` (refuses everyone, naming the operation no scope is granted), combined: the
 * entries of one object when any passes, those of `$all` when all pass, those of `$any` when any does.
 */
export interface Rule {
  scope?: string | readonly string[];
  authenticated?: boolean;
  session?: boolean;
  anonymous?: boolean;
  role?: GlobalRole;
  nobody?: string;
  $any?: Rule;
  $all?: Rule;
}

/** What a rule asks of a caller: a request's actor, or an action's creator as they stand (no credential of theirs when it runs: no `via`). */
export type Principal = AnonymousActor | (Pick<AuthenticatedActor, 'kind' | 'role' | 'scopes'> & { via?: AuthenticatedActor['via'] });

/** The atoms of a rule for `principal`: booleans, or checks of a parameter (scope-auth's `authScopes` map). */
export function ruleChecks(principal: Principal) {
  const user = principal.kind === 'user' ? principal : null;
  return {
    authenticated: user !== null,
    session: user?.via === 'session',
    anonymous: user === null,
    role: (required: GlobalRole) => user !== null && hasGlobalRole(user.role, required),
    scope: (required: string | readonly string[]) => user !== null && (typeof required === 'string' ? hasScope(user.scopes, required) : required.some((s) => hasScope(user.scopes, s))),
    nobody: (_operation: string) => false,
  };
}

type Checks = ReturnType<typeof ruleChecks>;
type Atom = keyof Checks;

const atomFailure = (scope: string, parameter: unknown): AuthFailure => ({ kind: AuthScopeFailureType.AuthScope, scope, parameter, error: null }) as AuthFailure;

/** Why `principal` fails `rule` (scope-auth's failure, the first of which names the missing scope), or null when it passes. */
export function ruleFailure(rule: Rule, principal: Principal): AuthFailure | null {
  return evaluate(rule, ruleChecks(principal), false);
}

/** scope-auth's `evaluateScopeMapWithScopes`, synchronously: boolean atoms, then `$any`, `$all`, then checks of a parameter. */
function evaluate(rule: Rule, checks: Checks, forAll: boolean): AuthFailure | null {
  const { $any, $all, ...atoms } = rule;
  const failures: AuthFailure[] = [];
  const failure = { kind: forAll ? AuthScopeFailureType.AllAuthScopes : AuthScopeFailureType.AnyAuthScopes, failures } as AuthFailure;
  const parameterised: [Atom, unknown][] = [];
  for (const [name, parameter] of Object.entries(atoms)) {
    const check = (checks as Record<string, unknown>)[name];
    if (typeof check === 'function') {
      parameterised.push([name as Atom, parameter]);
      continue;
    }
    if (check === true && !forAll) return null;
    if (check !== true) {
      failures.push(atomFailure(name, parameter));
      if (forAll) return failure;
    }
  }
  for (const [nested, all] of [[$any, false], [$all, true]] as const) {
    if (!nested) continue;
    const result = evaluate(nested, checks, all);
    if (result === null && !forAll) return null;
    if (result) {
      failures.push(result);
      if (forAll) return failure;
    }
  }
  for (const [name, parameter] of parameterised) {
    const passed = Boolean((checks[name] as (p: unknown) => boolean)(parameter));
    if (passed && !forAll) return null;
    if (!passed) {
      failures.push(atomFailure(name, parameter));
      if (forAll) return failure;
    }
  }
  return forAll && failures.length === 0 ? null : failure;
}

/** "Insufficient permissions - tasks:read scope required" or "Developer role required", from the first failed atom. */
export function refusalMessage(failure: AuthFailure): string | null {
  if (failure.kind === AuthScopeFailureType.AnyAuthScopes || failure.kind === AuthScopeFailureType.AllAuthScopes) {
    for (const inner of failure.failures) {
      const message = refusalMessage(inner);
      if (message) return message;
    }
    return null;
  }
  if (failure.kind !== AuthScopeFailureType.AuthScope) return null;
  const { scope, parameter } = failure;
  if (scope === 'scope') return `Insufficient permissions - ${typeof parameter === 'string' ? parameter : (parameter as string[])[0]} scope required`;
  if (scope === 'nobody') return `Insufficient permissions - ${String(parameter)} scope required (the definition grants it to no scope)`;
  if (scope === 'role') return `${String(parameter).charAt(0).toUpperCase()}${String(parameter).slice(1)} role required`;
  return null;
}

/** The contract's answer to a caller a rule refuses: 401 for nobody, else 403 naming what is missing. */
export function refusalError(failure: AuthFailure, principal: Principal): AppError {
  return principal.kind === 'anonymous' ? unauthenticated() : forbidden(refusalMessage(failure) ?? 'Forbidden');
}

/** The 401 or 403 `rule` answers `principal`, or null when it passes. */
export function refusalOf(rule: Rule, principal: Principal): AppError | null {
  const failure = ruleFailure(rule, principal);
  return failure ? refusalError(failure, principal) : null;
}

/**
 * A rule decided per request from a field's arguments (`decide`: LIST's, from its `where`) that always
 * includes `declared`: what is judged before the arguments are known (the REST router, an HTTP
 * declaration) and whose scopes rate limits count.
 */
export function withDeclared<F extends (...args: never[]) => Rule>(decide: F, declared: Rule): F & { declared: Rule } {
  return Object.assign(decide, { declared });
}

/** The rule a field's `authScopes` always includes: the rule itself, or the `declared` part of one decided per request; null for none. */
export function declaredRule(given: unknown): Rule | null {
  const rule = typeof given === 'function' ? (given as { declared?: unknown }).declared : given;
  return typeof rule === 'object' && rule !== null ? (rule as Rule) : null;
}

/** Both rules must pass (each keeps its own "any of" entries). */
export const bothRules = (a: Rule, b: Rule): Rule => ({ $all: { $any: a, $all: { $any: b } } });
