// Operators' CLI: `npm run -s cli -- user create --email E --password P [--role R] [--first-name F]
// [--last-name L] [--json]`. Clear errors and a non-zero exit for bad arguments or a duplicate e-mail.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/env.js';
import { openDatabase } from '../db/database.js';
import { applyMigrations } from '../db/migrations.js';
import { migrationsDir } from '../db/paths.js';
import { runAsUser } from '../db/request-db.js';
import { createUserInput } from '../modules/accounts/inputs.js';
import { createUser } from '../modules/accounts/service.js';
import { AppError } from '../shared/errors.js';
import { parseInput } from '../shared/validation.js';

const usage = 'Usage: npm run -s cli -- user create --email E --password P [--role member|developer|superadmin] [--first-name F] [--last-name L] [--json]';

async function userCreate(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const input = parseInput(createUserInput, {
    email: values.email,
    password: values.password,
    role: values.role,
    firstName: values['first-name'],
    lastName: values['last-name'],
  }, 'Invalid arguments');
  const config = loadConfig();
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    await applyMigrations(database, migrationsDir);
    const user = await createUser({ runAs: (id, work) => runAsUser(database.prisma, id, work) }, input);
    const out = { id: user.id, email: user.email, role: user.role, teamId: user.teamId };
    console.log(values.json ? JSON.stringify(out) : `Created ${out.role} ${out.email} (id ${out.id}, team ${out.teamId})`);
    return 0;
  } finally {
    await database.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [noun, verb, ...rest] = argv;
  if (noun === 'user' && verb === 'create') return userCreate(rest);
  console.error(usage);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof AppError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
    console.error(`Error: ${error instanceof Error ? error.message : String(error)}`);
    if (!known) console.error(usage);
    process.exit(error instanceof AppError && error.code === 'EMAIL_EXISTS' ? 3 : 1);
  },
);
