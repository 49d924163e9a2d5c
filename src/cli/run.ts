// The operators' CLI's commands (the usage below; docs/cli.md), run by main.ts as a process: users
// (users.ts), API keys (keys.ts), scheduled actions (actions.ts), migrations (migrations.ts), demo data
// (seed.ts) and the read-only listings (listings.ts). Every command takes --json; a bad argument, an
// unknown user or a refused change is one line on stderr and a non-zero exit.
// A command's module is imported when the command runs: a listing or a migration does not load the
// GraphQL schema and the services the writes need.
import { DataDirUnusableError } from '../db/data-dir-lock.js';
import { AppError } from '../shared/errors.js';
import { Refusal, type Cli } from './open.js';

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

type Command = (args: string[], cli: Cli) => Promise<number>;

const users = () => import('./users.js');
const keys = () => import('./keys.js');
const listings = () => import('./listings.js');
const actions = () => import('./actions.js');
const backup = () => import('./backup.js');

/** `noun verb` → its command, loaded when it runs. */
const commands = new Map<string, () => Promise<Command>>([
  ['user create', async () => (await users()).userCreate],
  ['user set-password', async () => (await users()).userSetPassword],
  ['user set-role', async () => (await users()).userSetRole],
  ['user disable', async () => (await users()).userDisable],
  ['user enable', async () => (await users()).userEnable],
  ['user disable-2fa', async () => (await users()).userDisableTwoFactor],
  ['user list', async () => (await listings()).userList],
  ['apikey create', async () => (await keys()).apikeyCreate],
  ['apikey revoke', async () => (await keys()).apikeyRevoke],
  ['apikey list', async () => (await listings()).apikeyList],
  ['team list', async () => (await listings()).teamList],
  ['team members', async () => (await listings()).teamMembers],
  ['audit list', async () => (await import('./audit.js')).auditList],
  ['mail outbox', async () => (await listings()).mailOutbox],
  ['migrations status', async () => (await listings()).migrationsStatus],
  ['migrations apply', async () => (await import('./migrations.js')).migrationsApply],
  ['actions failed', async () => (await actions()).actionsFailed],
  ['actions retry', async () => (await actions()).actionsRetry],
  ['entity new', async () => (await import('./entity-new.js')).entityNew],
]);

/** Commands that are a noun alone: what follows it is theirs. */
const nounCommands = new Map<string, () => Promise<Command>>([
  ['seed', async () => (await import('./seed.js')).seedCommand],
  ['backup', async () => (await backup()).backupCommand],
  ['restore', async () => (await backup()).restoreCommand],
]);

/** Runs the command `argv` names with `cli`; its exit status: 0, 2 for a usage error, 3 for an e-mail taken, 1 for any other failure (one line on cli.err). */
export async function runCli(argv: string[], cli: Cli): Promise<number> {
  const [noun = '', verb, ...rest] = argv;
  try {
    const nounOnly = nounCommands.get(noun);
    if (nounOnly) return await (await nounOnly())(argv.slice(1), cli);
    const command = commands.get(`${noun} ${verb}`);
    if (command) return await (await command())(rest, cli);
    cli.err(usage);
    return 2;
  } catch (error) {
    const known = error instanceof AppError || error instanceof Refusal || error instanceof DataDirUnusableError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
    cli.err(`Error: ${error instanceof Error ? error.message : String(error)}`);
    if (!known) cli.err(usage);
    return error instanceof AppError && error.code === 'EMAIL_EXISTS' ? 3 : 1;
  }
}
