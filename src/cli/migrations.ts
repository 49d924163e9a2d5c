// `migrations apply`: what `npm run db:migrate` does (the migrations runner, db/migrations.ts), with the
// CLI's refusal on a held data directory and --json. The server applies pending migrations itself when
// it starts; this is for PostgreSQL deployments that migrate before starting new instances.
import { parseArgs } from 'node:util';
import { applyMigrations } from '../db/migrations.js';
import { migrationsDir } from '../db/paths.js';
import { withDatabase, type Cli } from './open.js';

/** `migrations apply`: applies the pending migrations, in order; prints their names. */
export async function migrationsApply(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { json: { type: 'boolean', default: false } } });
  const applied = await withDatabase(cli, { otherwise: ': it applies pending migrations itself when it starts' }, (database) => applyMigrations(database, migrationsDir), { migrate: false });
  if (values.json) cli.out(JSON.stringify({ applied }));
  else cli.out(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'Database is up to date.');
  return 0;
}
