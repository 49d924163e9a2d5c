// The browser session cookie: httpOnly, SameSite=Lax, Secure behind HTTPS.
import { parse, serialize } from 'cookie';
import type { Config } from '../config/config.js';
import type { ClientInfo } from './request-scope.js';

export const sessionCookieName = 'sid';

/** The session token sent by the browser, if any. */
export function readSessionToken(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  const token = parse(cookieHeader)[sessionCookieName];
  return token && /^[A-Za-z0-9_-]{43}$/.test(token) ? token : null;
}

/** Set-Cookie value that stores a new session token in the browser. */
export function sessionCookie(token: string, expiresAt: Date, secure: boolean): string {
  return serialize(sessionCookieName, token, { httpOnly: true, sameSite: 'lax', secure, path: '/', expires: expiresAt });
}

/** Set-Cookie value that removes the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return serialize(sessionCookieName, '', { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: 0 });
}

/** Whether cookies are marked Secure for this request (COOKIE_SECURE; `auto`: when it arrived over HTTPS). */
export function secureCookies({ config, client }: { config: Pick<Config, 'cookieSecure'>; client: Pick<ClientInfo, 'secure'> }): boolean {
  return config.cookieSecure === 'auto' ? client.secure : config.cookieSecure;
}
