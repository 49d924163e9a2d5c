// `npm run db:migrate` applies pending migrations to the configured database;
// `npm run db:migration -- <name>` writes the next migration from the Prisma schema;
// `db:migration -- --check` fails when the schema and the migrations disagree (CI drift check).
import { loadConfig } from '../config/env.js';
import { openDatabase } from './database.js';
import { DataDirLockedError } from './data-dir-lock.js';
import { applyMigrations, createMigration, diffSchemaAgainstHistory } from './migrations.js';
import { migrationsDir, schemaDir } from './paths.js';
import { entityDefinitions } from '../config/entities/index.js';
import { rlsForCreatedTables } from '../modules/entities/rls.js';

async function main(command: string | undefined, arg: string | undefined): Promise<number> {
  if (command === 'apply') {
    const config = loadConfig();
    const db = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: 2, holder: 'migrations' }).catch((error: unknown) => {
      if (!(error instanceof DataDirLockedError)) throw error;
      const who = !error.owner || error.owner.holder === 'server' ? 'the server is running' : `another command (pid ${error.owner.pid}) is running`;
      throw new Error(`${who} on this data directory: stop it first; the server applies pending migrations itself when it starts (DATA_DIR ${error.dataDir})`);
    });
    try {
      const applied = await applyMigrations(db, migrationsDir);
      console.log(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'Database is up to date.');
    } finally {
      await db.close();
    }
    return 0;
  }
  if (command === 'create' && arg === '--check') {
    const script = await diffSchemaAgainstHistory(schemaDir, migrationsDir);
    if (!script) return console.log('Migrations match the Prisma schema.'), 0;
    console.error(`The Prisma schema has changes no migration holds. Run: npm run db:migration -- <name>\n\n${script}`);
    return 1;
  }
  if (command === 'create' && arg && /^[a-z0-9_]{1,60}$/.test(arg)) {
    const folder = await createMigration(schemaDir, migrationsDir, arg, new Date(), (script) => rlsForCreatedTables(entityDefinitions, script));
    console.log(folder ? `Created ${folder}/migration.sql` : 'No changes: the migrations already match the Prisma schema.');
    return 0;
  }
  console.error('Usage: db:migrate | db:migration -- <name in snake_case> | db:migration -- --check');
  return 2;
}

main(process.argv[2], process.argv[3]).then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`Error: ${error.message}`);
    process.exit(1);
  },
);
