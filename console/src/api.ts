// The console's one way to the server: the GraphQL API through the typed client of client/, with the
// browser's session cookie. Each screen declares its documents with `graphql(…)` (typed by codegen's
// client preset: generated/graphql), the data studio runs those generated per entity (records.ts).
// No second API: what a screen does, an app can do.
import { createPlatformClient, type TypedDocument } from '../../client/src/index.js';
import { graphql } from './generated/graphql/index.js';
import type { CurrentSessionQuery } from './generated/graphql/graphql.js';

export const platform = createPlatformClient({ baseUrl: location.origin });

const currentSessionQuery = graphql(`
  query CurrentSession {
    me {
      user {
        id
        email
        role
        firstName
        lastName
        image
      }
      activeTeamId
      twoFactorEnabled
    }
  }
`);

/** The signed-in user, their active team and whether they sign in with a second factor, as GraphQL `me` answers them. */
export type Session = CurrentSessionQuery['me'];

// Whether this browser signed in here (the session cookie itself is HttpOnly): a signed-out visit
// asks nothing of the server, so its first screen costs no request that fails.
const signedInHint = 'console.signedIn';
export const rememberSignedIn = (on: boolean) => (on ? localStorage.setItem(signedInHint, '1') : localStorage.removeItem(signedInHint));

/** The session of the browser's cookie, or null when signed out (or when it ended meanwhile). */
export async function currentSession(): Promise<Session | null> {
  if (!localStorage.getItem(signedInHint)) return null;
  const { data, error } = await run(currentSessionQuery);
  // Unreachable is not signed out: the hint stays for when the server answers again.
  if (error?.code === 'UNREACHABLE') throw new Error(error.error);
  rememberSignedIn(Boolean(data?.me));
  return data?.me ?? null;
}

/** What to tell a person for an error envelope: the screen's words for its code, else what the server said. */
export function messageOf(error: unknown, byCode: Record<string, string> = {}): string {
  if (!error || typeof error !== 'object') return 'The server could not be reached. Try again.';
  if ('code' in error && typeof error.code === 'string' && byCode[error.code]) return byCode[error.code]!;
  if ('error' in error && typeof error.error === 'string') return error.error;
  return 'Something went wrong. Try again.';
}

/** What a refused or failed request says, as the REST error envelope has it: `code`, the message as `error`, `details` (field problems). */
export interface Failure {
  code: string;
  error: string;
  details?: unknown;
}

/**
 * Runs a typed document of the console's (`graphql(…)` of generated/graphql) with the typed client:
 * its data, or its first error as a Failure that messageOf and fieldErrorsOf read (extensions.code
 * and extensions.details, as GraphQL errors carry them).
 */
export async function run<TResult, TVariables>(document: TypedDocument<TResult, TVariables>, ...variables: TVariables extends Record<string, never> ? [] : [TVariables]): Promise<{ data?: TResult; error?: Failure }> {
  try {
    const { data, errors } = await platform.graphql(document, ...variables);
    const first = errors?.[0];
    if (first) return { error: { code: first.extensions?.code ?? 'GRAPHQL_ERROR', error: first.message, details: first.extensions?.details } };
    return { data: data ?? undefined };
  } catch {
    return { error: { code: 'UNREACHABLE', error: 'The server could not be reached. Try again.' } };
  }
}
