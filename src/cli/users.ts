// CLI commands about users: `user create`, `user set-password` (ends the sessions), `user disable-2fa`,
// `user set-role`, `user disable` and `user enable`. The changes are the accounts module's (service.ts,
// operator.ts); here: arguments, evictions (evictions.ts) and what is printed.
import { parseArgs } from 'node:util';
import { runAsUser } from '../db/request-db.js';
import { createUserInput, setPasswordInput, userRole } from '../modules/accounts/inputs.js';
import { disableUser, enableUser, setPassword, setRole, turnOffTwoFactor } from '../modules/accounts/operator.js';
import { createUser } from '../modules/accounts/service.js';
import { AppError } from '../shared/errors.js';
import { parseInput } from '../shared/validation.js';
import { evictionNote, withEvictions } from './evictions.js';
import { withDatabase, type Cli } from './open.js';

const json = { type: 'boolean', default: false } as const;
/** What the refusal on a held PGlite data directory says for changes the API does not offer. */
const noApi = { otherwise: ' (the API does not offer this)' };

function requiredEmail(email: string | undefined): string {
  if (!email) throw new AppError('VALIDATION_ERROR', 'Invalid arguments: --email is required');
  return email;
}

/** `user create --email E --password P [--role R] [--first-name F] [--last-name L]`. */
export async function userCreate(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' }, json },
  });
  const input = parseInput(createUserInput, {
    email: values.email,
    password: values.password,
    role: values.role,
    firstName: values['first-name'],
    lastName: values['last-name'],
  }, 'Invalid arguments');
  const user = await withDatabase(cli, 'create users', (database) => createUser({ runAs: (id, work) => runAsUser(database, id, work) }, input));
  const out = { id: user.id, email: user.email, role: user.role, teamId: user.teamId };
  cli.out(values.json ? JSON.stringify(out) : `Created ${out.role} ${out.email} (id ${out.id}, team ${out.teamId})`);
  return 0;
}

/** `user set-password --email E --password P`: every session of the user ends. */
export async function userSetPassword(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { email: { type: 'string' }, password: { type: 'string' }, json } });
  const input = parseInput(setPasswordInput, { email: values.email, password: values.password }, 'Invalid arguments');
  const out = await withDatabase(cli, 'set passwords', (database) => setPassword(database, input.email, input.password));
  cli.out(values.json ? JSON.stringify(out) : `Password set for ${out.email}; ${out.endedSessions} session(s) ended`);
  return 0;
}

/** `user disable-2fa --email E`. */
export async function userDisableTwoFactor(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { email: { type: 'string' }, json } });
  const email = requiredEmail(values.email);
  const out = await withDatabase(cli, 'turn two-factor off', (database) => turnOffTwoFactor(database, email));
  cli.out(values.json ? JSON.stringify(out) : out.wasOn ? `Two-factor sign-in turned off for ${out.email}` : `Two-factor sign-in was not on for ${out.email}`);
  return 0;
}

/** `user set-role --email E --role member|developer|superadmin`: refused for the last enabled superadmin. */
export async function userSetRole(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { email: { type: 'string' }, role: { type: 'string' }, json } });
  const email = requiredEmail(values.email);
  const parsed = userRole.safeParse(values.role);
  if (!parsed.success) throw new AppError('VALIDATION_ERROR', 'Invalid arguments: --role must be member, developer or superadmin');
  const role = parsed.data;
  const out = await withDatabase(cli, noApi, (database, config) =>
    withEvictions(config, async (evictions) => {
      const user = await setRole(database, evictions, email, role);
      return { out: { id: user.id, email: user.email, role: user.role, previousRole: user.previousRole, cacheEviction: evictions.outcome() }, note: evictionNote(evictions.outcome(), config) };
    }),
  );
  cli.out(values.json ? JSON.stringify(out.out) : `${out.out.email} is now ${out.out.role} (was ${out.out.previousRole}); API keys' scopes follow: ${out.note}`);
  return 0;
}

/** `user disable --email E`: no sign-in, sessions ended, API keys refused; refused for the last enabled superadmin. */
export async function userDisable(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { email: { type: 'string' }, json } });
  const email = requiredEmail(values.email);
  const { out, note } = await withDatabase(cli, noApi, (database, config) =>
    withEvictions(config, async (evictions) => {
      const user = await disableUser(database, evictions, email);
      const out = { id: user.id, email: user.email, disabledAt: user.disabledAt, wasDisabled: user.wasDisabled, endedSessions: user.endedSessions, cacheEviction: evictions.outcome() };
      return { out, note: evictionNote(evictions.outcome(), config) };
    }),
  );
  if (values.json) cli.out(JSON.stringify(out));
  else cli.out(`${out.wasDisabled ? 'Already disabled' : 'Disabled'}: ${out.email}; ${out.endedSessions} session(s) ended; API keys: ${note}`);
  return 0;
}

/** `user enable --email E`: sign-in and the user's (unrevoked) API keys work again. */
export async function userEnable(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { email: { type: 'string' }, json } });
  const email = requiredEmail(values.email);
  const user = await withDatabase(cli, noApi, (database) => enableUser(database, email));
  const out = { id: user.id, email: user.email, disabledAt: user.disabledAt, wasDisabled: user.wasDisabled };
  cli.out(values.json ? JSON.stringify(out) : out.wasDisabled ? `Enabled: ${out.email}` : `${out.email} was not disabled`);
  return 0;
}
