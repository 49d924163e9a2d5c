// Variables of the wrong type are the client's mistake: 400 with GraphQL's message naming the
// variable, never a masked 500 (found by the fuzzer: the executor wraps the scalar's own error as
// originalError, which was taken for an unexpected one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';

let t: TestApp;
let user: SignedUpUser;

beforeAll(async () => {
  t = await createTestApp();
  user = await signUp(t);
});

afterAll(async () => {
  await t.close();
});

describe('GraphQL variables of the wrong type', () => {
  const cases: [string, string, Record<string, unknown>, RegExp][] = [
    ['a string for an Int', 'query ($p: Int) { teams(page: $p) { totalPages } }', { p: '\n\u0000X' }, /Variable "\$p" got invalid value/],
    ['an Int past 32 bits', 'query ($p: Int) { teams(page: $p) { totalPages } }', { p: 2 ** 31 }, /non 32-bit signed integer/],
    ['a list for an ID', 'query ($id: ID!) { task(id: $id) { id } }', { id: [[], '-2147483649'] }, /Variable "\$id" got invalid value/],
    ['an array for a JSONObject', 'mutation ($input: CreateScheduledActionInput!) { createScheduledAction(input: $input) { id } }', { input: { actionType: 'webhook:send', payload: [[], 'x'] } }, /JSONObject/],
    ['a value outside an enum', 'mutation ($input: CreateTaskInput!) { createTask(input: $input) { id } }', { input: { title: 'x', status: 'in-progress' } }, /TaskStatus/],
    ['an input object missing required fields', 'mutation ($input: SignupInput!) { signup(input: $input) { user { id } } }', { input: { email: '@x' } }, /was not provided/],
    ['a number for a String field of an input', 'mutation ($input: LoginInput!) { login(input: $input) { activeTeamId } }', { input: { email: 'a@b.co', password: -3.1e-283 } }, /String cannot represent/],
  ];
  for (const [what, query, variables, message] of cases) {
    it(`${what}: 400 BAD_REQUEST, as POST and as GET`, async () => {
      const posted = await t.graphql(query, variables, { cookie: user.cookie });
      expect(posted.status).toBe(400);
      expect(posted.body.errors[0].message).toMatch(message);
      expect(posted.body.errors[0].extensions.code).toBe('BAD_REQUEST');
      if (query.startsWith('query')) {
        const got = await t.fetch(`/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify(variables))}`, { headers: { cookie: user.cookie, accept: 'application/json' } });
        expect(got.status).toBe(400);
        expect(((await got.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(message);
      }
    });
  }
});
