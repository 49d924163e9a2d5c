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

/** The token of the last link mailed to `email` with `subject` (after `after`), once it is in the outbox. */
export async function mailedToken(t: TestApp, email: string, subject: string, after = new Date(0)): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const mail = await t.database.prisma.emailOutbox.findFirst({ where: { recipient: email, subject, createdAt: { gt: after } }, orderBy: { createdAt: 'desc' } });
    const token = mail && /token=([A-Za-z0-9_-]{43})/.exec(mail.body)?.[1];
    if (token) return token;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no e-mail "${subject}" for ${email}`);
}
