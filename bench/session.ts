// Accounts (the bench user, the members of its teams) and their session cookies, created through the
// product's own HTTP API so that the stored rows are exactly what the product writes.
export interface Account {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

export const benchUser: Account = { email: 'bench@example.com', password: 'benchpassword', firstName: 'Bench', lastName: 'User' };

/** What GET /api/auth/session answers in `data` (and GraphQL in `me`). */
export interface SessionData {
  user: { id: string; email: string; role: string; firstName: string; lastName: string; image: string | null };
  activeTeamId: string | null;
}

async function post(url: string, body: unknown): Promise<Response> {
  // No Origin header: the product's CSRF check refuses only foreign origins and cross-site fetches.
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function sessionCookieOf(response: Response): string {
  for (const header of response.headers.getSetCookie()) {
    const match = /^sid=([^;]+)/.exec(header);
    if (match?.[1]) return `sid=${match[1]}`;
  }
  throw new Error('response carries no sid cookie');
}

/** Signs the user (the bench user by default) up, or in when the account already exists, and returns `sid=<token>`. */
export async function obtainSessionCookie(baseUrl: string, account: Account = benchUser): Promise<string> {
  const signup = await post(`${baseUrl}/api/auth/signup`, account);
  if (signup.status === 201) {
    await signup.arrayBuffer();
    return sessionCookieOf(signup);
  }
  const signupText = await signup.text();
  const login = await post(`${baseUrl}/api/auth/login`, { email: account.email, password: account.password });
  if (login.status !== 200) {
    throw new Error(`cannot get a session: signup ${signup.status} ${signupText}; login ${login.status} ${await login.text()}`);
  }
  await login.arrayBuffer();
  return sessionCookieOf(login);
}

/** The product's answer for the session (of the bench user by default), the reference every target's answer must equal. */
export async function fetchSessionData(baseUrl: string, cookie: string, email = benchUser.email): Promise<SessionData> {
  const response = await fetch(`${baseUrl}/api/auth/session`, { headers: { cookie } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /api/auth/session: ${response.status} ${text}`);
  const body = JSON.parse(text) as { success?: boolean; data?: SessionData };
  if (body.success !== true || body.data?.user.email !== email) throw new Error(`unexpected session body: ${text}`);
  return body.data;
}
