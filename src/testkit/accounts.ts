// Seed builders for accounts: sign a user up through the front door and keep their cookie.
import { randomBytes } from 'node:crypto';
import type { TestApp } from './test-app.js';

export interface SignedUpUser {
  id: string;
  email: string;
  password: string;
  activeTeamId: string;
  /** The Cookie header that carries the session. */
  cookie: string;
}

/** The `name=value` part of a Set-Cookie header. */
export function cookieFrom(headers: Headers): string {
  const setCookie = headers.get('set-cookie') ?? '';
  return setCookie.split(';')[0] ?? '';
}

/** Signs up a new user through POST /api/auth/signup. */
export async function signUp(t: TestApp, overrides: { email?: string; password?: string; firstName?: string; lastName?: string } = {}): Promise<SignedUpUser> {
  const email = overrides.email ?? `user-${randomBytes(4).toString('hex')}@example.com`;
  const password = overrides.password ?? 'correct horse battery';
  const res = await t.json('POST', '/api/auth/signup', { email, password, firstName: overrides.firstName ?? 'Test', lastName: overrides.lastName ?? 'User' });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.data.user.id, email: email.toLowerCase(), password, activeTeamId: res.body.data.activeTeamId, cookie: cookieFrom(res.headers) };
}
