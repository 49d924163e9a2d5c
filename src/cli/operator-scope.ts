// The request scope of work an operator does on behalf of a user from the CLI (a key minted or revoked
// for them, demo data they own): auth/user-scope.ts's, with the services of the platform's modules
// (made for the command, closed after it).
import pino from 'pino';
import { asUser as asUserWith, type UserCredentials } from '../auth/user-scope.js';
import type { RequestScope } from '../auth/request-scope.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { modules } from '../module-list.js';
import { createModuleRuntime } from '../modules/composition.js';

/** Credentials with evictions only (the CLI counts no key usage). */
export type CliCredentials = UserCredentials;

/** Runs `work` as the user (by e-mail or id) in one unit of work, committed when it succeeds; evictions run after the commit. */
export async function asUser<T>(database: Database, config: Config, who: { id: string } | { email: string }, credentials: CliCredentials, work: (scope: RequestScope) => Promise<T>): Promise<T> {
  const silent = pino({ level: 'silent' });
  // The modules' services (media storage), without their workers: the server runs those.
  const runtime = createModuleRuntime(modules, { config, database, logger: silent, now: () => new Date() });
  try {
    return await asUserWith({ database, config, services: runtime.services, logger: silent, agent: 'platform-cli' }, who, credentials, work);
  } finally {
    await runtime.close();
  }
}
