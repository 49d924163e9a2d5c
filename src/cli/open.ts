// How a CLI command reaches the database: the configured one (DATABASE_URL, or the embedded one under
// DATA_DIR, which only one process may hold: refused while the server or another command has it),
// migrated first unless the command is about migrations.
import type { Config } from '../config/config.js';
import { loadConfig } from '../config/env.js';
import { openDatabase, type Database } from '../db/database.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { applyMigrations } from '../db/migrations.js';
import { migrationsDir } from '../db/paths.js';

/**
 * What a command runs with: the environment its configuration is read from (unset: the process's, which
 * only src/config/ reads), and where its lines go, each written with its newline.
 */
export interface Cli {
  env?: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
  /**
   * A database already open that commands use instead of opening the configured one, left open after
   * them: the CLI's test runs some sixty commands on one (opening the embedded database costs each
   * ~0.4 s of CPU). A process (main.ts) never has one.
   */
  database?: Database;
}

/** A command as a process runs it (main.ts): the process's environment, stdout and stderr. */
export const processCli: Cli = { out: (line) => console.log(line), err: (line) => console.error(line) };

/** An error for a data directory another process holds, saying what to do instead (the API does the same work). */
export class Refusal extends Error {}

/**
 * Refuses, clearly, a data directory another process holds; `what` names what the API could do
 * instead, or says what to do when the API has no such thing (`{ otherwise }`).
 */
export function refuseLocked(what: string | { otherwise: string }): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof DataDirLockedError)) throw error;
    const { owner, dataDir } = error;
    const where = `DATA_DIR ${dataDir}${owner ? `, ${owner.holder} pid ${owner.pid}` : ''}`;
    if (owner && owner.holder !== 'server') throw new Refusal(`another command is using this data directory: wait for it to finish (${where})`);
    const instead = typeof what === 'string' ? `stop it, or ${what} through the API` : `stop it first${what.otherwise}`;
    throw new Refusal(`the server is running on this data directory: ${instead} (${where})`);
  };
}

/**
 * Opens the database `cli.env` configures for `work` (migrated first, unless `migrate` is false) and
 * closes it after (`cli.database`, when given, is used instead and stays open); `work` gets the
 * configuration too.
 */
export async function withDatabase<T>(cli: Pick<Cli, 'env' | 'database'>, what: string | { otherwise: string }, work: (database: Database, config: Config) => Promise<T>, options: { migrate?: boolean } = {}): Promise<T> {
  const config = loadConfig(cli.env);
  const database = cli.database ?? (await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: 2, holder: 'cli' }).catch(refuseLocked(what)));
  try {
    if (options.migrate !== false) await applyMigrations(database, migrationsDir);
    return await work(database, config);
  } finally {
    if (!cli.database) await database.close();
  }
}
