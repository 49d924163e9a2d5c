// `seed`: demo data, so that a newcomer sees a live system at once. Three users (passwords generated
// and printed once), a team they share (Ada's, renamed "Demo team"; Bob and Cleo join it by invitation,
// as the API does), customers, a project, tasks and orders, two images (made with sharp and uploaded through
// the media module, so renditions work) and an API key of Ada's, printed once. Everything goes through
// the modules' services as those users, with the API's rules (plan limits, scopes, RLS). Refused when the
// demo owner's account exists already (the seed runs once per database).
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { hashPassword } from '../auth/password.js';
import type { Config } from '../config/config.js';
import { entityNamed } from '../config/entities/index.js';
import type { Database } from '../db/database.js';
import { runAsUser, systemDb } from '../db/request-db.js';
import { createUser, openInvitedAccount } from '../modules/accounts/service.js';
import { createKey } from '../modules/api-keys/service.js';
import { create } from '../modules/entities/writes.js';
import { loadSharp } from '../modules/media/imaging.js';
import { uploadFiles } from '../modules/media/upload-route.js';
import { invite, openInvitationForSignup, updateTeam } from '../modules/teams/service.js';
import { AppError } from '../shared/errors.js';
import type { RequestScope } from '../auth/request-scope.js';
import { withDatabase, type Cli } from './open.js';
import { asUser } from './operator-scope.js';
import { noEvictions } from '../auth/user-scope.js';

const owner = { email: 'ada.demo@example.com', firstName: 'Ada', lastName: 'Lovelace', role: 'developer' } as const;
const members = [
  { email: 'bob.demo@example.com', firstName: 'Bob', lastName: 'Builder', teamRole: 'admin' },
  { email: 'cleo.demo@example.com', firstName: 'Cleo', lastName: 'Patra', teamRole: 'member' },
] as const;
/** The demo key may do anything with what the seed made (of what is configured) and nothing else. */
const keyScopes = () => [...['tasks', 'customers', 'projects', 'orders'].filter((slug) => entityNamed(slug)), 'media'].map((resource) => `${resource}:*`);

/** A password printed once: 16 characters of base64url (96 random bits). */
const newPassword = () => randomBytes(12).toString('base64url');

export interface SeedResult {
  team: { id: string; name: string };
  users: { id: string; email: string; password: string; role: string; teamRole: string }[];
  apiKey: { id: string; key: string; keyPrefix: string; scopes: string[] };
  records: Record<string, number>;
  media: { id: string; filename: string; url: string }[];
}

/** Creates a record of `slug` when that entity is configured (the seed skips entities a deployment removed). */
async function record(scope: RequestScope, slug: string, body: Record<string, unknown>, counts: Record<string, number>): Promise<string | null> {
  const definition = entityNamed(slug);
  if (!definition) return null;
  const made = await create(scope, definition, body);
  counts[slug] = (counts[slug] ?? 0) + 1;
  return made.id as string;
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Customers, a project and Ada's tasks, as Ada in the demo team; Bob's own tasks as Bob. */
async function records(database: Database, config: Config, users: { id: string }[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const base = 100_000 + randomInt(800_000); // customer accounts are unique: clear of what is there
  await asUser(database, config, { id: users[0]!.id }, noEvictions, async (scope) => {
    const customers = [];
    const companies = [['Acme Corp', 'Madrid', ['lun', 'mie']], ['Globex', 'Sevilla', ['mar']], ['Initech', 'Valencia', ['jue', 'vie']]] as const;
    for (const [i, [name, office, visitDays]] of companies.entries()) {
      customers.push(await record(scope, 'customers', { name, account: base + i, office, phone: `+34 600 000 00${i}`, salesRep: 'Bob Builder', visitDays: [...visitDays] }, counts));
    }
    const tasks = [];
    for (const [title, status, priority, due] of [
      ['Call Acme about the renewal', 'todo', 'high', 2],
      ['Prepare the Globex proposal', 'in-progress', 'medium', 5],
      ['Review the Initech contract', 'review', 'urgent', 1],
      ['Plan the team offsite', 'todo', 'low', 14],
      ['Send the monthly report', 'done', 'medium', -3],
    ] as const) {
      tasks.push(await record(scope, 'tasks', { title, status, priority, dueDate: day(due), completed: status === 'done', tags: ['demo'], estimatedHours: 2 }, counts));
    }
    const customerId = customers[0];
    const taskIds = tasks.filter((t): t is string => t !== null).slice(0, 2);
    await record(scope, 'projects', { name: 'Acme renewal', status: 'active', budget: 12_000, ...(customerId && { customerId }), ...(taskIds.length && { taskIds }) }, counts);
    // Orders are numbered by their hooks (ORD-0001…), and the paid one gets its paidAt from them.
    if (customerId) {
      await record(scope, 'orders', { customerId, status: 'placed', lines: [{ item: 'Renewal, 12 months', quantity: 1 }] }, counts);
      await record(scope, 'orders', { customerId, status: 'paid', lines: [{ item: 'Onboarding', quantity: 1 }, { item: 'Training day', quantity: 2 }] }, counts);
    }
  });
  if (users[1]) {
    await asUser(database, config, { id: users[1].id }, noEvictions, async (scope) => {
      await record(scope, 'tasks', { title: 'Check the new office printer', status: 'todo', priority: 'low', tags: ['demo'] }, counts);
    });
  }
  return counts;
}

/** Two small PNG images, uploaded as Ada to the demo team. */
async function images(database: Database, config: Config, ownerId: string, teamId: string): Promise<SeedResult['media']> {
  const sharp = await loadSharp();
  const png = (r: number, g: number, b: number) => sharp({ create: { width: 640, height: 400, channels: 3, background: { r, g, b } } }).png().toBuffer();
  const files = [
    { filename: 'demo-sunrise.png', mimeType: 'image/png', stream: Readable.from([await png(246, 173, 85)]) },
    { filename: 'demo-ocean.png', mimeType: 'image/png', stream: Readable.from([await png(66, 135, 245)]) },
  ];
  const answer = await asUser(database, config, { id: ownerId }, noEvictions, (scope) => uploadFiles(scope, files, teamId));
  return answer.media.map((m) => ({ id: m.id, filename: m.filename, url: m.url }));
}

/** The demo data (see the top of the file); refused when it is there already. */
async function seed(database: Database, config: Config): Promise<SeedResult> {
  if (await systemDb(database, 'cli: seeded?').prisma.user.findUnique({ where: { email: owner.email }, select: { id: true } })) {
    throw new AppError('CONFLICT', `Already seeded: ${owner.email} exists (the seed runs once per database; nothing was changed)`);
  }
  const ownerPassword = newPassword();
  const ada = await createUser({ runAs: (id, work) => runAsUser(database, id, work) }, { ...owner, password: ownerPassword });
  const users: SeedResult['users'] = [{ id: ada.id, email: ada.email, password: ownerPassword, role: ada.role, teamRole: 'owner' }];
  const team = await asUser(database, config, { id: ada.id }, noEvictions, (scope) => updateTeam(scope, ada.teamId, { name: 'Demo team', description: 'Demo data made by the operators’ CLI (seed)' }));
  // Bob and Cleo join by invitation, as signups with an invitation do (single-user mode has none: each gets a team of their own).
  const invitations = config.teams.mode === 'single-user' ? [] : await asUser(database, config, { id: ada.id }, noEvictions, async (scope) => {
    const made = [];
    for (const m of members) made.push((await invite(scope, ada.teamId, { email: m.email, role: m.teamRole })).invitation);
    return made;
  });
  for (const [i, m] of members.entries()) {
    const password = newPassword();
    const profile = { email: m.email, firstName: m.firstName, lastName: m.lastName };
    const invitation = invitations[i];
    const user = invitation
      ? await asUser(database, config, { id: ada.id }, noEvictions, async (scope) => {
          const open = await openInvitationForSignup(scope, invitation.token, m.email);
          return openInvitedAccount(scope, { id: randomUUID(), ...profile, passwordHash: await hashPassword(password) }, open, async (_tx, made) => made);
        })
      : await createUser({ runAs: (id, work) => runAsUser(database, id, work) }, { ...profile, password, role: 'member' });
    users.push({ id: user.id, email: user.email, password, role: user.role, teamRole: invitation ? m.teamRole : 'owner (own team)' });
  }
  const counts = await records(database, config, users);
  const media = await images(database, config, ada.id, ada.teamId);
  const key = await asUser(database, config, { id: ada.id }, noEvictions, (scope) => createKey(scope, { name: 'demo (seed)', scopes: keyScopes() }));
  return { team: { id: team.id, name: team.name }, users, apiKey: { id: key.id, key: key.key, keyPrefix: key.keyPrefix, scopes: key.scopes }, records: counts, media };
}

/** `seed [--json]`: prints the passwords and the key once. */
export async function seedCommand(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { json: { type: 'boolean', default: false } } });
  const { result, port } = await withDatabase(cli, { otherwise: ' (the seed runs once, before the first start)' }, async (database, config) => ({ result: await seed(database, config), port: config.port }));
  if (values.json) {
    cli.out(JSON.stringify(result));
    return 0;
  }
  const counts = Object.entries(result.records).map(([slug, n]) => `${n} ${n === 1 ? slug.replace(/s$/, '') : slug}`).join(', ');
  cli.out(
    [
      `Seeded "${result.team.name}" (team ${result.team.id}): ${counts}, ${result.media.length} images.`,
      'Users (passwords are shown once):',
      ...result.users.map((u) => `  ${u.email.padEnd(24)} ${u.password}  (${u.role}; team ${u.teamRole})`),
      `API key of ${result.users[0]!.email} (${result.apiKey.scopes.join(', ')}), shown once:`,
      `  ${result.apiKey.key}`,
      'Try it once the server runs:',
      `  curl -H "Authorization: Bearer ${result.apiKey.key}" http://localhost:${port}/api/v1/tasks`,
    ].join('\n'),
  );
  return 0;
}
