// Operators' CLI: `npm run -s cli -- user create --email E --password P [--role R] [--first-name F]
// [--last-name L] [--json]`, `user set-password --email E --password P [--json]`, `user disable-2fa
// --email E [--json]` and `apikey create --email E --name N --scopes "a:read,b:*" [--expires-at ISO]
// [--json]`, and the read-only `user list`, `apikey list`, `team list`, `team members` and `migrations
// status` (listings.ts). Clear errors and a non-zero exit for bad arguments, a duplicate e-mail or an unknown user.
import { parseArgs } from 'node:util';
import { DataDirUnusableError } from '../db/data-dir-lock.js';
import { RequestDb, runAsUser, systemDb } from '../db/request-db.js';
import { isGlobalRole } from '../auth/actor.js';
import '../graphql/schema.js'; // every module declares its scope resources while the schema is built
import pino from 'pino';
import { createMailer } from '../mail/outbox.js';
import { createStorage } from '../modules/media/storage.js';
import { createApiKeyInput } from '../modules/api-keys/inputs.js';
import { createKey } from '../modules/api-keys/service.js';
import { createUserInput, setPasswordInput } from '../modules/accounts/inputs.js';
import { setPassword, turnOffTwoFactor } from '../modules/accounts/operator.js';
import { createUser } from '../modules/accounts/service.js';
import { AppError } from '../shared/errors.js';
import { parseInput } from '../shared/validation.js';
import { apikeyList, migrationsStatus, teamList, teamMembers, userList } from './listings.js';
import { Refusal, withDatabase } from './open.js';

const usage = `Usage: npm run -s cli -- user create --email E --password P [--role member|developer|superadmin] [--first-name F] [--last-name L] [--json]
       npm run -s cli -- user set-password --email E --password P [--json]     (ends the user's sessions)
       npm run -s cli -- user disable-2fa --email E [--json]                   (turns two-factor sign-in off)
       npm run -s cli -- apikey create --email E --name N --scopes "a:read,b:*" [--expires-at ISO] [--json]
       npm run -s cli -- user list [--json]
       npm run -s cli -- apikey list [--email E] [--json]                      (never the secret)
       npm run -s cli -- team list [--json]
       npm run -s cli -- team members --team ID [--json]
       npm run -s cli -- migrations status [--json]                           (applies nothing)`;

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
  const user = await withDatabase('create users', (database) => createUser({ runAs: (id, work) => runAsUser(database, id, work) }, input));
  const out = { id: user.id, email: user.email, role: user.role, teamId: user.teamId };
  console.log(values.json ? JSON.stringify(out) : `Created ${out.role} ${out.email} (id ${out.id}, team ${out.teamId})`);
  return 0;
}

async function userSetPassword(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { email: { type: 'string' }, password: { type: 'string' }, json: { type: 'boolean', default: false } } });
  const input = parseInput(setPasswordInput, { email: values.email, password: values.password }, 'Invalid arguments');
  const out = await withDatabase('create users', (database) => setPassword(database, input.email, input.password));
  console.log(values.json ? JSON.stringify(out) : `Password set for ${out.email}; ${out.endedSessions} session(s) ended`);
  return 0;
}

async function userDisableTwoFactor(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { email: { type: 'string' }, json: { type: 'boolean', default: false } } });
  if (!values.email) throw new AppError('VALIDATION_ERROR', 'Invalid arguments: --email is required');
  const email = values.email;
  const out = await withDatabase('create users', (database) => turnOffTwoFactor(database, email));
  console.log(values.json ? JSON.stringify(out) : out.wasOn ? `Two-factor sign-in turned off for ${out.email}` : `Two-factor sign-in was not on for ${out.email}`);
  return 0;
}

/** Mints a key for an existing user, under the same rules as the API (the user's role bounds the scopes). */
async function apikeyCreate(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      'expires-at': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const email = values.email;
  if (!email) throw new AppError('VALIDATION_ERROR', 'Invalid arguments: --email is required');
  const input = parseInput(createApiKeyInput, {
    name: values.name,
    scopes: values.scopes?.split(',').map((s) => s.trim()).filter(Boolean),
    expiresAt: values['expires-at'],
  }, 'Invalid arguments');
  return withDatabase('create keys', async (database, config) => {
    const user = await systemDb(database, 'cli: find key owner').prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
    if (!user || !isGlobalRole(user.role)) throw new AppError('NOT_FOUND', `No user with e-mail ${email}`);
    const db = new RequestDb(database, user.id);
    const noPending = { count: 0, last24h: 0, lastUsedAt: null };
    let ok = false;
    try {
      const created = await createKey({
        actor: { kind: 'user', via: 'session', userId: user.id, email: user.email, role: user.role, profile: { firstName: user.firstName, lastName: user.lastName, image: user.image }, scopes: ['*'], teams: [], activeTeamId: null, sessionId: null },
        db,
        system: (purpose) => systemDb(database, purpose),
        runAs: (id, work) => runAsUser(database, id, work),
        config,
        // One process, no cache to evict: revocation is not a CLI command.
        credentials: { forgetKey: async () => {}, forgetUser: async () => {}, pendingUsage: () => noPending },
        mail: createMailer(config.mail, pino({ level: 'silent' })),
        mediaStorage: createStorage(config.media, pino({ level: 'silent' })),
        client: { ip: null, userAgent: 'platform-cli', secure: false },
        // Creating a key leaves nothing running after it.
        afterAnswer: () => {
          throw new Error('afterAnswer is not available in the CLI');
        },
        now: () => new Date(),
      }, input);
      ok = true;
      const out = { id: created.id, key: created.key, keyPrefix: created.keyPrefix, name: created.name, scopes: created.scopes, status: created.status, expiresAt: created.expiresAt };
      console.log(values.json ? JSON.stringify(out) : `Created key ${out.keyPrefix}… for ${user.email} (id ${out.id}). Store it now, it is not shown again:\n${out.key}`);
      return 0;
    } finally {
      await db.finish(ok);
    }
  });
}

async function main(argv: string[]): Promise<number> {
  const [noun, verb, ...rest] = argv;
  if (noun === 'user' && verb === 'create') return userCreate(rest);
  if (noun === 'user' && verb === 'set-password') return userSetPassword(rest);
  if (noun === 'user' && verb === 'disable-2fa') return userDisableTwoFactor(rest);
  if (noun === 'apikey' && verb === 'create') return apikeyCreate(rest);
  if (noun === 'user' && verb === 'list') return userList(rest);
  if (noun === 'apikey' && verb === 'list') return apikeyList(rest);
  if (noun === 'team' && verb === 'list') return teamList(rest);
  if (noun === 'team' && verb === 'members') return teamMembers(rest);
  if (noun === 'migrations' && verb === 'status') return migrationsStatus(rest);
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
