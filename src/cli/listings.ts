// Read-only CLI commands: who and what the deployment holds (users, API keys, teams and their members)
// and which migrations are applied. Each prints a table, or JSON with --json; none changes anything.
import { readdir } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { recordedMigrations } from '../db/migrations.js';
import { migrationsDir } from '../db/paths.js';
import { systemDb } from '../db/request-db.js';
import { AppError } from '../shared/errors.js';
import { withDatabase, type Cli } from './open.js';

type Row = Record<string, unknown>;

/** Rows as aligned columns (dates as ISO text, lists joined), or a line saying there are none (every listing of the CLI). */
export function table(rows: readonly Row[], none: string): string {
  if (!rows.length) return none;
  const cell = (value: unknown) => (value instanceof Date ? value.toISOString() : Array.isArray(value) ? value.join(',') : value === null || value === undefined ? '-' : String(value));
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

function print(cli: Cli, rows: readonly Row[], json: boolean, none: string): number {
  cli.out(json ? JSON.stringify(rows) : table(rows, none));
  return 0;
}

const jsonOnly = { json: { type: 'boolean', default: false } } as const;

/** `--limit N` of a listing: a whole number from 1 to 1000, `fallback` when not given. */
export function limitOf(value: string | undefined, fallback: number): number {
  const limit = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new AppError('VALIDATION_ERROR', 'Invalid arguments: --limit must be a whole number from 1 to 1000');
  return limit;
}

/** `user list`: every user, oldest first (disabledAt: when an operator disabled them, or null). */
export async function userList(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: jsonOnly });
  const users = await withDatabase(cli, 'list users', (database) =>
    systemDb(database, 'cli: list users').prisma.user.findMany({ orderBy: { createdAt: 'asc' }, select: { id: true, email: true, role: true, firstName: true, lastName: true, disabledAt: true, createdAt: true } }),
  );
  return print(cli, users, values.json, 'No users.');
}

/** `apikey list [--email E]`: keys (never their secret), with their owner and state. */
export async function apikeyList(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { ...jsonOnly, email: { type: 'string' } } });
  const email = values.email?.trim().toLowerCase();
  const keys = await withDatabase(cli, 'list keys', async (database) => {
    const prisma = systemDb(database, 'cli: list keys').prisma;
    if (email && !(await prisma.user.findUnique({ where: { email }, select: { id: true } }))) throw new AppError('NOT_FOUND', `No user with e-mail ${values.email}`);
    const rows = await prisma.apiKey.findMany({
      where: email ? { user: { email } } : {},
      orderBy: { createdAt: 'asc' },
      select: { id: true, keyPrefix: true, name: true, scopes: true, status: true, expiresAt: true, lastUsedAt: true, createdAt: true, user: { select: { email: true } } },
    });
    return rows.map(({ user, id, ...key }) => ({ id, owner: user.email, ...key }));
  });
  return print(cli, keys, values.json, 'No API keys.');
}

/** `team list`: teams with their number of members. */
export async function teamList(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: jsonOnly });
  const teams = await withDatabase(cli, 'list teams', async (database) => {
    const rows = await systemDb(database, 'cli: list teams').prisma.team.findMany({ orderBy: { createdAt: 'asc' }, select: { id: true, name: true, createdAt: true, _count: { select: { members: true } } } });
    return rows.map(({ _count, ...team }) => ({ ...team, members: _count.members }));
  });
  return print(cli, teams, values.json, 'No teams.');
}

/** `team members --team ID`: a team's members and their roles. */
export async function teamMembers(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { ...jsonOnly, team: { type: 'string' } } });
  const teamId = values.team;
  if (!teamId || !/^[0-9a-f-]{36}$/i.test(teamId)) throw new AppError('VALIDATION_ERROR', 'Invalid arguments: --team must be a team id (team list shows them)');
  const members = await withDatabase(cli, 'list members', async (database) => {
    const prisma = systemDb(database, 'cli: list members').prisma;
    if (!(await prisma.team.findUnique({ where: { id: teamId }, select: { id: true } }))) throw new AppError('NOT_FOUND', `No team with id ${teamId}`);
    const rows = await prisma.teamMember.findMany({ where: { teamId }, orderBy: { joinedAt: 'asc' }, select: { role: true, joinedAt: true, user: { select: { id: true, email: true } } } });
    return rows.map(({ user, ...member }) => ({ userId: user.id, email: user.email, ...member }));
  });
  return print(cli, members, values.json, 'No members.');
}

/** The links an e-mail carries (`https://…`, or `/verify-email?token=…` when APP_URL is not set). */
const linksOf = (body: string) => [...body.matchAll(/(?:^|\s)((?:https?:\/\/|\/)\S+)/g)].map((m) => m[1]!);

/**
 * `mail outbox [--to E] [--limit N]`: the e-mails the server wrote, newest first (default 20), with the
 * links they carry and whether they were sent, failed or only recorded (no SMTP_URL): how an operator
 * hands a verification, reset or invitation link on when no mail goes out. --json adds the body.
 */
export async function mailOutbox(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { ...jsonOnly, to: { type: 'string' }, limit: { type: 'string' } } });
  const limit = limitOf(values.limit, 20);
  const to = values.to?.trim();
  const mails = await withDatabase(cli, 'read the outbox', (database) =>
    systemDb(database, 'cli: mail outbox').prisma.emailOutbox.findMany({
      where: to ? { recipient: { equals: to, mode: 'insensitive' } } : {},
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit,
      select: { id: true, createdAt: true, recipient: true, subject: true, status: true, error: true, body: true },
    }),
  );
  const rows = mails.map((m) => ({ id: m.id, createdAt: m.createdAt, to: m.recipient, subject: m.subject, status: m.status, links: linksOf(m.body), ...(values.json ? { error: m.error, body: m.body } : {}) }));
  return print(cli, rows, values.json, to ? `No e-mail to ${to}.` : 'No e-mails.');
}

/** `migrations status`: each migration of the release, applied (when) or pending; applies nothing. */
export async function migrationsStatus(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: jsonOnly });
  const names = (await readdir(migrationsDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const applied = await withDatabase(
    cli,
    'read the migrations',
    async (database) => new Map(((await recordedMigrations(database)) ?? []).filter((r) => !r.rolledBack).map((r) => [r.name, r.finishedAt])),
    { migrate: false },
  );
  const rows = names.map((name) => ({ migration: name, state: applied.get(name) ? 'applied' : applied.has(name) ? 'failed' : 'pending', appliedAt: applied.get(name) ?? null }));
  const pending = rows.filter((r) => r.state !== 'applied').length;
  if (values.json) cli.out(JSON.stringify(rows));
  else cli.out(`${table(rows, 'No migrations.')}\n${pending ? `${pending} not applied: npm run db:migrate (or start the server) applies them.` : 'Database is up to date.'}`);
  return 0;
}
