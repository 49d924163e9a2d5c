// `npm run db:migrate` applies pending migrations to the configured database (the CLI's `migrations apply`);
// `npm run db:migration -- <name>` writes the next migration from the Prisma schema;
// `db:migration -- --check` fails when the schema and the migrations disagree (CI drift check).
import { entityDefinitions } from '../config/entities/index.js';
import { createMigration, diffSchemaAgainstHistory } from '../db/migrations.js';
import { migrationsDir, schemaDir } from '../db/paths.js';
import { rlsForCreatedTables } from '../modules/entities/rls.js';
import { migrationsApply } from './migrations.js';
import { processCli } from './open.js';

async function main(command: string | undefined, arg: string | undefined): Promise<number> {
  if (command === 'apply') return migrationsApply([], processCli);
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
