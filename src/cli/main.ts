// Operators' CLI: `npm run -s cli -- <noun> <verb> [options]` (the usage below; docs/cli.md). Users
// (users.ts), API keys (keys.ts), scheduled actions (actions.ts), migrations (migrations.ts), demo data
// (seed.ts) and the read-only listings (listings.ts). Every command takes --json; a bad argument, an
// unknown user or a refused change is one line on stderr and a non-zero exit.
import { DataDirUnusableError } from '../db/data-dir-lock.js';
import { entityNew } from './entity-new.js';
import { AppError } from '../shared/errors.js';
import { actionsFailed, actionsRetry } from './actions.js';
import { auditList } from './audit.js';
import { backupCommand, restoreCommand } from './backup.js';
import { apikeyCreate, apikeyRevoke } from './keys.js';
import { apikeyList, mailOutbox, migrationsStatus, teamList, teamMembers, userList } from './listings.js';
import { migrationsApply } from './migrations.js';
import { Refusal } from './open.js';
import { seedCommand } from './seed.js';
import { userCreate, userDisable, userDisableTwoFactor, userEnable, userSetPassword, userSetRole } from './users.js';

const usage = `Usage: npm run -s cli -- <command> [options] [--json]      (docs/cli.md)
  user create --email E --password P [--role member|developer|superadmin] [--first-name F] [--last-name L]
  user set-password --email E --password P       ends the user's sessions
  user set-role --email E --role member|developer|superadmin
  user disable --email E                         no sign-in; sessions end; API keys refused
  user enable --email E
  user disable-2fa --email E                     turns two-factor sign-in off
  user list
  apikey create --email E --name N --scopes "a:read,b:*" [--expires-at ISO]   the key is shown once
  apikey revoke --id ID | --prefix P             servers told over Redis when REDIS_URL is set
  apikey list [--email E]                        never the secret
  team list
  team members --team ID
  audit list --team ID [--action A] [--limit N]  the team's audit log, newest first (A: an action or a family: member.*)
  mail outbox [--to E] [--limit N]               e-mails written, newest first, with their links (sent, failed or only recorded)
  migrations status                              applies nothing
  migrations apply
  actions failed [--limit N]                     failed actions and pending retries
  actions retry --id ID                          a failed action runs again
  seed                                           demo team, users, records, images and a key (once)
  backup FILE                                    the whole database and local media files, one snapshot (docs/data-safety.md)
  restore FILE                                   into an empty database: its migrations, rows and files
  entity new SLUG                                writes src/config/entities/SLUG.ts to start from (no database)
On the embedded database (DATA_DIR) commands are refused while the server runs on it: stop it first.`;

const commands: Record<string, (args: string[]) => Promise<number>> = {
  'user create': userCreate,
  'user set-password': userSetPassword,
  'user set-role': userSetRole,
  'user disable': userDisable,
  'user enable': userEnable,
  'user disable-2fa': userDisableTwoFactor,
  'user list': userList,
  'apikey create': apikeyCreate,
  'apikey revoke': apikeyRevoke,
  'apikey list': apikeyList,
  'team list': teamList,
  'team members': teamMembers,
  'audit list': auditList,
  'mail outbox': mailOutbox,
  'migrations status': migrationsStatus,
  'migrations apply': migrationsApply,
  'actions failed': actionsFailed,
  'actions retry': actionsRetry,
};

async function main(argv: string[]): Promise<number> {
  const [noun, verb, ...rest] = argv;
  if (noun === 'seed') return seedCommand(argv.slice(1));
  if (noun === 'backup') return backupCommand(argv.slice(1));
  if (noun === 'restore') return restoreCommand(argv.slice(1));
  if (noun === 'entity' && verb === 'new') return entityNew(rest);
  const command = commands[`${noun} ${verb}`];
  if (command) return command(rest);
  console.error(usage);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof AppError || error instanceof Refusal || error instanceof DataDirUnusableError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
    console.error(`Error: ${error instanceof Error ? error.message : String(error)}`);
    if (!known) console.error(usage);
    process.exit(error instanceof AppError && error.code === 'EMAIL_EXISTS' ? 3 : 1);
  },
);
