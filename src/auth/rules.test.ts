// The one evaluator (rules.ts) judges every face but GraphQL fields, where Pothos scope-auth judges
// the same rule objects with the same atoms. This runs both on random rules and callers and asserts
// the same answer: pass, or the same 401/403 with the same message (the first failure, in scope-auth's
// order: boolean atoms, then $any, $all, then checks of a parameter). So a rule means one thing on
// every face by test, not by hope.
import fc from 'fast-check';
import { execute, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createBuilder } from '../graphql/builder.js';
import type { Actor } from './actor.js';
import { refusalOf, type Rule } from './rules.js';

const scopes = ['tasks:read', 'tasks:write', 'tasks:*', 'customers:read', 'media:write', '*'] as const;

/** A schema with one field whose rule is the request's own (scope-auth evaluates a function's result as it does a declared object). */
function probeSchema() {
  const b = createBuilder();
  b.queryFields((t) => ({
    probe: t.boolean({ authScopes: (_root, _args, ctx) => (ctx as unknown as { rule: Rule }).rule as never, resolve: () => true }),
  }));
  b.mutationFields((t) => ({ unused: t.boolean({ resolve: () => true }) }));
  return b.toSchema();
}

const atom: fc.Arbitrary<Rule> = fc.oneof(
  fc.record({ scope: fc.oneof(fc.constantFrom(...scopes), fc.array(fc.constantFrom(...scopes), { minLength: 1, maxLength: 3 })) }),
  fc.record({ authenticated: fc.boolean() }),
  fc.record({ session: fc.boolean() }),
  fc.record({ anonymous: fc.boolean() }),
  fc.record({ role: fc.constantFrom('member', 'developer', 'superadmin') as fc.Arbitrary<'member'> }),
  fc.record({ nobody: fc.constant('tasks:delete') }),
);

/** Rules as modules write them: atoms side by side, nested under $any and $all. */
const rule: fc.Arbitrary<Rule> = fc.letrec<{ rule: Rule }>((tie) => ({
  rule: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc.tuple(fc.array(atom, { maxLength: 3 }), fc.option(tie('rule'), { nil: undefined }), fc.option(tie('rule'), { nil: undefined })).map(([atoms, $any, $all]) => {
      const combined: Rule = Object.assign({}, ...atoms);
      if ($any) combined.$any = $any;
      if ($all) combined.$all = $all;
      return combined;
    }),
  ),
})).rule;

const actor: fc.Arbitrary<Actor> = fc.oneof(
  fc.constant<Actor>({ kind: 'anonymous' }),
  fc.record({ via: fc.constantFrom('session', 'api-key') as fc.Arbitrary<'session'>, role: fc.constantFrom('member', 'developer', 'superadmin') as fc.Arbitrary<'member'>, scopes: fc.subarray([...scopes]) }).map(
    ({ via, role, scopes: granted }): Actor => ({ kind: 'user', via, role, scopes: granted, userId: 'u', email: 'u@example.com', profile: { firstName: '', lastName: '', image: null }, teams: [], activeTeamId: null, sessionId: null }),
  ),
);

describe('the one evaluator', () => {
  it('answers as scope-auth does on the same rule and caller (pass, or the same refusal)', async () => {
    const schema = probeSchema();
    const document = parse('{ probe }');
    await fc.assert(
      fc.asyncProperty(rule, actor, async (r, a) => {
        const result = await execute({ schema, document, contextValue: { actor: a, rule: r } });
        const ours = refusalOf(r, a);
        if (!result.errors) {
          expect(ours).toBeNull();
        } else {
          expect(ours, JSON.stringify(result.errors)).not.toBeNull();
          const theirs = result.errors[0]!.originalError as { code?: string; message: string };
          expect({ message: theirs.message, code: theirs.code }).toEqual({ message: ours!.message, code: ours!.code });
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('names the first missing scope, and refuses nobody with 401 but anonymous callers', () => {
    const user: Actor = { kind: 'user', via: 'api-key', role: 'member', scopes: ['projects:read'], userId: 'u', email: 'u@example.com', profile: { firstName: '', lastName: '', image: null }, teams: [], activeTeamId: null, sessionId: null };
    const reachesCustomers: Rule = { $all: { $any: { scope: ['projects:read'] }, $all: { $any: { scope: ['customers:read'] } } } };
    expect(refusalOf(reachesCustomers, user)).toMatchObject({ code: 'FORBIDDEN', message: 'Insufficient permissions - customers:read scope required' });
    expect(refusalOf(reachesCustomers, { kind: 'anonymous' })).toMatchObject({ code: 'AUTHENTICATION_FAILED' });
    expect(refusalOf({ $any: { anonymous: true, scope: 'posts:read' } }, { kind: 'anonymous' })).toBeNull();
    expect(refusalOf({ scope: ['projects:read'] }, user)).toBeNull();
  });
});
