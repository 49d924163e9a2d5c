// Backup → wipe → restore, through real parts: an app made with the testkit gets users, a team, an API
// key, tasks, projects with relations, orders with decimal amounts, uploaded files and a rendition (and
// values no API would write: every awkward character, a jsonb null beside NULL, float and numeric
// digits); the backup is taken as the CLI takes it (writeBackup) and restored into a new, empty
// database; then every table must be equal row for row, every file byte for byte, and an app booted on
// the restored database serves the files and renditions, takes the old API key, session and password.
// On PGlite: PGlite → PGlite. With TEST_DATABASE_URL: PostgreSQL → PostgreSQL and PGlite → PostgreSQL.
// Also: a non-empty database and a damaged file are refused (leaving no row and no file), a
// backup of other migrations is refused, every type round-trips, and the real CLI restores (one run).
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db/database.js';
import { applyMigrations } from '../db/migrations.js';
import { migrationsDir } from '../db/paths.js';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { bearer, createKey, type MintedKey } from '../testkit/api-keys.js';
import { createTestDatabase, testDatabaseUrl } from '../testkit/database.js';
import { mp4File, pngFile, upload } from '../testkit/media.js';
import { entryArguments } from '../testkit/processes.js';
import { joinTeam, createTeam } from '../testkit/teams.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';
import { ident, readTables, setTextSettings, tablesWithRows } from './catalog.js';
import { DamagedBackupError } from './manifest.js';
import { restoreBackup } from './reader.js';
import { insertLines, linesParameter, selectLines } from './rows.js';
import { RestoreRefusedError } from './target.js';
import { writeBackup } from './writer.js';

const long = 600_000;
const scratch: string[] = [];
const tempDir = async (prefix: string) => {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
};

/** A database of the kind under test with no table at all: a new PGlite directory, or a new PostgreSQL database. */
interface Target {
  database: Database;
  uploads: string;
  /** What the CLI is given to reach it. */
  env: Record<string, string>;
  close(): Promise<void>;
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

/** A PGlite data directory as a first start leaves it (its initdb: ~3 s of CPU), made once and copied for each target. */
let initialized: Promise<string> | undefined;
function emptyPglite(): Promise<string> {
  initialized ??= (async () => {
    const dir = await tempDir('backup-test-initdb-');
    await (await openDatabase({ dataDir: dir, poolSize: 1 })).close();
    return dir;
  })();
  return initialized;
}

/** A new, empty target; with `open: false` nothing holds it yet (the CLI will). */
async function emptyTarget(open = true): Promise<Target> {
  const uploads = await tempDir('backup-test-uploads-');
  if (testDatabaseUrl) {
    const name = `backup_test_${randomBytes(5).toString('hex')}`;
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${name}`;
    const database = open ? await openDatabase({ url: url.toString(), dataDir: '', poolSize: 3 }) : (null as unknown as Database);
    return { database, uploads, env: { DATABASE_URL: url.toString(), UPLOAD_DIR: uploads }, close: async () => (await database?.close(), await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) };
  }
  const dir = await tempDir('backup-test-pglite-');
  await cp(await emptyPglite(), dir, { recursive: true });
  const database = open ? await openDatabase({ dataDir: dir, poolSize: 1 }) : (null as unknown as Database);
  return { database, uploads, env: { DATA_DIR: dir, UPLOAD_DIR: uploads }, close: async () => void (await database?.close()) };
}

/** Every table's rows as PostgreSQL prints them, sorted (equal text forms are equal values). */
async function contentOf(database: Database): Promise<Record<string, string[]>> {
  return database.prisma.$transaction(async (sql) => {
    await setTextSettings(sql);
    const content: Record<string, string[]> = {};
    for (const { name } of await readTables(sql)) {
      const rows = await sql.$queryRawUnsafe<{ row: string }[]>(`SELECT t::text AS row FROM public.${ident(name)} t`);
      content[name] = rows.map((r) => r.row).sort();
    }
    return content;
  });
}

/** What the source app made, and what a restored app must answer the same. */
interface Source {
  database: Database;
  uploads: string;
  file: string;
  owner: SignedUpUser;
  key: MintedKey;
  tasks: unknown;
  media: { url: string; bytes: Buffer }[];
  rendition: Buffer;
  renderPath: string;
  content: Record<string, string[]>;
  close(): Promise<void>;
}

const as = (u: SignedUpUser) => ({ cookie: u.cookie });
const weird = 'quotes \' " back\\slash {braces} (parens), commas\nnew line\r\n\ttab é ü 日本 😀 \u2028\u2029 end';

/** An app on `database` (migrated), populated through the front door, then closed; the backup is taken with writeBackup. */
async function makeSource(database: Database): Promise<Source> {
  const uploads = await tempDir('backup-test-source-uploads-');
  const t = await createTestApp({ UPLOAD_DIR: uploads, RATE_LIMIT_ENABLED: 'false' }, { database } as TestApp);
  try {
    const owner = await signUp(t, { password: 'the owner password' });
    const mate = await signUp(t);
    const teamId = await createTeam(t, owner, `backup-${randomBytes(3).toString('hex')}`);
    await t.json('POST', '/api/v1/teams/switch', { teamId }, as(owner));
    await joinTeam(t, owner, teamId, mate, 'member');
    const post = async (u: SignedUpUser, route: string, body: object) => {
      const res = await t.json('POST', route, body, as(u));
      if (res.status !== 201) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data as { id: string };
    };
    const taskIds = [];
    for (let i = 0; i < 9; i++) taskIds.push((await post(owner, '/api/v1/tasks', { title: `Task ${i} ${weird}`, status: 'todo', tags: ['a,b', '"q"', 'NULL'], estimatedHours: 1.25 })).id);
    for (let i = 0; i < 3; i++) await post(mate, '/api/v1/tasks', { title: `Mate's task ${i}`, status: 'done' });
    const customer = await post(owner, '/api/v1/customers', { name: 'Buyer', account: 4242, office: 'Madrid' });
    const parent = await post(owner, '/api/v1/projects', { name: 'Parent', customerId: customer.id, taskIds: taskIds.slice(0, 3) });
    await post(owner, '/api/v1/projects', { name: 'Child', parentProjectId: parent.id, milestoneId: taskIds[4], taskIds: taskIds.slice(3, 6), budget: 0.1 });
    const orders = [await post(owner, '/api/v1/orders', { customerId: customer.id, amount: 1234.56, lines: [{ item: 'a' }] }), await post(mate, '/api/v1/orders', { customerId: customer.id, amount: 0.01 })];
    // Values no API writes: a jsonb null beside NULL, digits a float or a JS number would lose, any character.
    await database.prisma.$executeRawUnsafe(`UPDATE orders SET amount = 9999999999.99, lines = 'null'::jsonb WHERE id = $1::uuid`, orders[0]!.id);
    await database.prisma.$executeRawUnsafe(`UPDATE orders SET lines = NULL WHERE id = $1::uuid`, orders[1]!.id);
    await database.prisma.$executeRawUnsafe(
      `UPDATE tasks SET tags = ARRAY['', '{x}', E'line\\nbreak', '\\', $2], estimated_hours = 0.1::float8 + 0.2::float8, metas = '{"n": 1.00000000000000000000001, "deep": {"null": null, "s": "\\u00e9"}}'::jsonb WHERE id = $1::uuid`,
      taskIds[0],
      weird,
    );
    const key = await createKey(t, owner, { name: 'made before the backup', scopes: ['tasks:read', 'media:read'] });
    const tasks = (await t.json('GET', '/api/v1/tasks?limit=100', undefined, bearer(key.key))).body;
    const uploaded = await upload(t, [{ name: 'picture.png', content: await pngFile(120, 80), type: 'image/png' }, { name: 'clip.mp4', content: mp4File(), type: 'video/mp4' }], as(owner));
    if (uploaded.status !== 200) throw new Error(`upload: ${JSON.stringify(uploaded.body)}`);
    const media = await Promise.all((uploaded.body.data.urls as string[]).map(async (url) => ({ url, bytes: Buffer.from(await (await t.fetch(url)).arrayBuffer()) })));
    const renderPath = `/api/v1/media/${uploaded.body.data.media[0].id}/render?w=60`;
    const rendered = await t.fetch(renderPath, { headers: as(owner) });
    if (rendered.status !== 200) throw new Error(`render: ${rendered.status}`);
    const rendition = Buffer.from(await rendered.arrayBuffer());
    await t.close(); // its database stays: the backup is taken with no server writing (PGlite's way)
    const file = path.join(await tempDir('backup-test-file-'), 'platform.backup.tgz');
    const report = await writeBackup(database, file, { uploadDir: uploads, driver: 'local' });
    expect(report).toMatchObject({ files: 3, external: 0, missing: [] });
    expect(report.rows).toBeGreaterThan(30);
    return { database, uploads, file, owner, key, tasks, media, rendition, renderPath, content: await contentOf(database), close: () => database.close() };
  } catch (error) {
    await t.close();
    throw error;
  }
}

/** The files of a directory and their bytes. */
async function filesOf(dir: string): Promise<Record<string, Buffer>> {
  const files: Record<string, Buffer> = {};
  for (const name of (await readdir(dir)).sort()) if (!name.startsWith('.')) files[name] = await readFile(path.join(dir, name));
  return files;
}

/** Restores the source's backup into a new target and checks it through the database, the disk and HTTP. */
async function roundTrip(source: Source): Promise<void> {
  const target = await emptyTarget();
  try {
    const report = await restoreBackup(target.database, source.file, { uploadDir: target.uploads, driver: 'local' });
    expect(report).toMatchObject({ files: 3, rows: Object.values(source.content).reduce((n, rows) => n + rows.length, 0) });
    expect(await contentOf(target.database)).toEqual(source.content);
    expect(await filesOf(target.uploads)).toEqual(await filesOf(source.uploads));
    // A second restore into what is now full is refused, and changes nothing.
    await expect(restoreBackup(target.database, source.file, { uploadDir: target.uploads, driver: 'local' })).rejects.toThrow(RestoreRefusedError);
    await expect(restoreBackup(target.database, source.file, { uploadDir: target.uploads, driver: 'local' })).rejects.toThrow(/not empty/);
    const t = await createTestApp({ UPLOAD_DIR: target.uploads, RATE_LIMIT_ENABLED: 'false' }, { database: target.database } as TestApp);
    try {
      for (const file of source.media) expect(Buffer.from(await (await t.fetch(file.url)).arrayBuffer())).toEqual(file.bytes);
      const rendered = await t.fetch(source.renderPath, { headers: as(source.owner) });
      expect(rendered.status).toBe(200);
      expect(Buffer.from(await rendered.arrayBuffer())).toEqual(source.rendition);
      const listed = await t.json('GET', '/api/v1/tasks?limit=100', undefined, bearer(source.key.key));
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual(source.tasks);
      expect((await t.json('GET', '/api/auth/session', undefined, as(source.owner))).status).toBe(200);
      const login = await t.json('POST', '/api/auth/login', { email: source.owner.email, password: 'the owner password' });
      expect(login.status).toBe(200);
    } finally {
      await t.close();
    }
  } finally {
    await target.close();
  }
}

/** An embedded source: a copy of the run's migrated PGlite template (migrated here on the PostgreSQL suite, whose template is a PostgreSQL database). */
async function pgliteSource(): Promise<Database> {
  return (await createTestDatabase({ serverUrl: '' })).database;
}

let source: Source;
/** On PostgreSQL, also a PGlite source: the upgrade path. */
let fromPglite: Source | undefined;

beforeAll(async () => {
  if (testDatabaseUrl) {
    const target = await emptyTarget();
    await applyMigrations(target.database, migrationsDir);
    source = await makeSource(target.database);
    source.close = target.close;
    fromPglite = await makeSource(await pgliteSource());
  } else {
    source = await makeSource(await pgliteSource());
  }
}, long);
afterAll(async () => {
  await source?.close();
  await fromPglite?.close();
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
}, long);

const kind = testDatabaseUrl ? 'PostgreSQL' : 'PGlite';

describe('backup and restore', () => {
  it(`round-trips ${kind} → ${kind}: every row, every file, the key, the session and the password`, () => roundTrip(source), long);

  it.runIf(testDatabaseUrl)('round-trips PGlite → PostgreSQL (the upgrade path)', () => roundTrip(fromPglite!), long);

  it.runIf(testDatabaseUrl)('on PostgreSQL, is one snapshot while writers commit beside it', async () => {
    const db = source.database;
    let stop = false;
    let committed = 0;
    // Each transaction adds a task and a project: a backup of one snapshot holds as many of each.
    const writer = (async () => {
      while (!stop) {
        await db.prisma.$transaction(async (tx) => {
          for (const [table, column] of [['tasks', 'title'], ['projects', 'name']] as const) {
            await tx.$executeRawUnsafe(`INSERT INTO ${table} (id, team_id, user_id, ${column}, updated_at) VALUES (gen_random_uuid(), $1::uuid, $2::uuid, 'snapshot', now())`, source.owner.activeTeamId, source.owner.id);
          }
        });
        committed += 1;
      }
    })();
    try {
      while (committed < 5) await new Promise((resolve) => setTimeout(resolve, 20));
      const file = path.join(path.dirname(source.file), 'live.tgz');
      await writeBackup(db, file, { uploadDir: source.uploads, driver: 'local' });
      const during = committed;
      stop = true;
      await writer;
      const target = await emptyTarget();
      try {
        await restoreBackup(target.database, file, { uploadDir: target.uploads, driver: 'local' });
        const [counts] = await target.database.prisma.$queryRawUnsafe<{ tasks: number; projects: number }[]>(
          `SELECT (SELECT count(*)::int FROM tasks WHERE title = 'snapshot') AS tasks, (SELECT count(*)::int FROM projects WHERE name = 'snapshot') AS projects`,
        );
        expect(counts!.tasks).toBe(counts!.projects);
        expect(counts!.tasks).toBeGreaterThanOrEqual(5);
        expect(counts!.tasks).toBeLessThanOrEqual(during);
      } finally {
        await target.close();
      }
    } finally {
      stop = true;
      await writer;
      await db.prisma.$executeRawUnsafe(`DELETE FROM projects WHERE name = 'snapshot'`);
      await db.prisma.$executeRawUnsafe(`DELETE FROM tasks WHERE title = 'snapshot'`);
    }
  }, long);

  it('leaves no row and no file behind from a cut-off or damaged file, and the same database then takes the good one', async () => {
    const good = await readFile(source.file);
    const dir = path.dirname(source.file);
    const cut = path.join(dir, 'cut.tgz');
    await writeFile(cut, good.subarray(0, Math.floor(good.length * 0.8)));
    const flipped = Buffer.from(good);
    for (let i = Math.floor(good.length / 2); i < Math.floor(good.length / 2) + 64; i++) flipped[i] = flipped[i]! ^ 0x5a;
    const damaged = path.join(dir, 'damaged.tgz');
    await writeFile(damaged, flipped);
    const notBackup = path.join(dir, 'not-a-backup.tgz');
    await writeFile(notBackup, 'hello');
    const target = await emptyTarget();
    try {
      for (const file of [cut, damaged, notBackup]) {
        await expect(restoreBackup(target.database, file, { uploadDir: target.uploads, driver: 'local' }), file).rejects.toThrow(DamagedBackupError);
        expect(await tablesWithRows(target.database.prisma, await readTables(target.database.prisma))).toEqual([]);
        expect(await readdir(target.uploads)).toEqual([]);
      }
      await restoreBackup(target.database, source.file, { uploadDir: target.uploads, driver: 'local' });
      expect(await contentOf(target.database)).toEqual(source.content);
    } finally {
      await target.close();
    }
  }, long);

  it('refuses a backup taken at migrations this code does not have, before writing anything', async () => {
    const { pack } = await import('tar-stream');
    const archive = pack();
    const manifest = { format: 'platform-backup', version: 1, createdAt: new Date().toISOString(), database: 'postgres', migrations: ['29990101000000_from_the_future'], tables: [], sequences: [] };
    archive.entry({ name: 'manifest.json' }, JSON.stringify(manifest));
    archive.finalize();
    const { createGzip } = await import('node:zlib');
    const chunks: Buffer[] = [];
    for await (const chunk of archive.pipe(createGzip())) chunks.push(chunk as Buffer);
    const file = path.join(path.dirname(source.file), 'future.tgz');
    await writeFile(file, Buffer.concat(chunks));
    const target = await emptyTarget();
    try {
      await expect(restoreBackup(target.database, file, { uploadDir: target.uploads, driver: 'local' })).rejects.toThrow(/29990101000000_from_the_future/);
      expect(await readTables(target.database.prisma)).toEqual([]);
    } finally {
      await target.close();
    }
  }, long);

  it('round-trips every type through the text forms: bytea, numeric, jsonb null and NULL, arrays, time zones, floats, any text', async () => {
    const db = source.database;
    const types = `b bytea, n numeric, j jsonb, a text[], u uuid[], ts timestamptz, t timestamp, d date, i interval, f float8, r real, s text, big bigint, bo boolean, ch char(3), v varchar(10)`;
    await db.prisma.$executeRawUnsafe(`CREATE TABLE public.backup_types_from (${types})`);
    await db.prisma.$executeRawUnsafe(`CREATE TABLE public.backup_types_to (${types})`);
    try {
      await db.prisma.$executeRawUnsafe(`INSERT INTO public.backup_types_from VALUES
        ('\\x00ff0a0d5c22'::bytea, 123456789012345678901234567890.123456789012345678901234567890, 'null'::jsonb, ARRAY['', NULL, 'NULL', 'a,b', '"q"', E'x\\ny', '{}', '\\'], ARRAY['00000000-0000-4000-8000-000000000001']::uuid[],
         '2024-02-29 23:59:59.123456+05:45', '1999-12-31 23:59:59.999999', '0001-01-01 BC', '1 year 2 mons -3 days 04:05:06.789', 0.1::float8 + 0.2::float8, 3.4028235e38, $1, -9223372036854775808, false, 'ab', 'xyz'),
        (NULL, 'NaN', '{"n": 1e400, "a": [1, "two", null], "e": "\\u00e9"}', '{}', '{}', 'infinity', '-infinity', 'infinity', '-178000000 years', 'NaN', '-Infinity', '', 9223372036854775807, NULL, NULL, NULL),
        (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'Infinity', 1.17549435e-38, NULL, NULL, true, 'a', '')`, weird);
      const [from] = (await readTables(db.prisma)).filter((t) => t.name === 'backup_types_from');
      const lines = (await db.prisma.$queryRawUnsafe<{ line: string }[]>(selectLines(from!))).map((r) => r.line);
      await db.prisma.$transaction(async (sql) => {
        await setTextSettings(sql);
        const columns = from!.columns.map((c) => c.name);
        await sql.$executeRawUnsafe(insertLines('backup_types_to', columns, new Map(from!.columns.map((c) => [c.name, c.type]))), linesParameter(lines));
      });
      const [differ] = await db.prisma.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM ((SELECT * FROM public.backup_types_from EXCEPT ALL SELECT * FROM public.backup_types_to) UNION ALL (SELECT * FROM public.backup_types_to EXCEPT ALL SELECT * FROM public.backup_types_from)) d`,
      );
      expect(differ).toEqual({ n: 0 });
      const [{ n }] = (await db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM public.backup_types_to`)) as [{ n: number }];
      expect(n).toBe(3);
      const [{ same }] = await db.prisma.$queryRawUnsafe<{ same: boolean }[]>(
        `SELECT bool_and(f.j IS NOT DISTINCT FROM t.j AND (f.j IS NULL) = (t.j IS NULL) AND f.b IS NOT DISTINCT FROM t.b AND f.s IS NOT DISTINCT FROM t.s) AS same FROM public.backup_types_from f JOIN public.backup_types_to t ON t.big IS NOT DISTINCT FROM f.big AND t.bo IS NOT DISTINCT FROM f.bo`,
      ) as [{ same: boolean }];
      expect(same).toBe(true);
    } finally {
      await db.prisma.$executeRawUnsafe(`DROP TABLE IF EXISTS public.backup_types_from, public.backup_types_to`);
    }
  }, long);

  it('reports a local file gone from disk as missing and backs up the rest', async () => {
    const [gone] = (await readdir(source.uploads)).filter((name) => !name.startsWith('.')).sort();
    const kept = path.join(await tempDir('backup-test-gone-'), gone!);
    await cp(path.join(source.uploads, gone!), kept);
    await rm(path.join(source.uploads, gone!));
    try {
      const file = path.join(await tempDir('backup-test-missing-'), 'platform.backup.tgz');
      expect(await writeBackup(source.database, file, { uploadDir: source.uploads, driver: 'local' })).toMatchObject({ files: 2, external: 0, missing: [gone] });
    } finally {
      await cp(kept, path.join(source.uploads, gone!));
    }
  }, long);

  it('the CLI restores with --json (one real run), into a database nothing else holds', async () => {
    const target = await emptyTarget(false);
    try {
      const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const { PATH, HOME } = process.env;
        const child = spawn(process.execPath, [...entryArguments('src/cli/main.ts'), 'restore', source.file, '--json'], { env: { PATH, HOME, LOG_LEVEL: 'silent', ...target.env }, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => void (stdout += c));
        child.stderr.setEncoding('utf8').on('data', (c: string) => void (stderr += c));
        child.once('error', reject);
        child.once('close', (status) => resolve({ status, stdout, stderr }));
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const rows = Object.values(source.content).reduce((n, r) => n + r.length, 0);
      expect(JSON.parse(run.stdout)).toMatchObject({ file: source.file, tables: Object.keys(source.content).length, rows, files: 3, external: 0, missing: [], bytes: expect.any(Number), seconds: expect.any(Number) });
      expect(await filesOf(target.uploads)).toEqual(await filesOf(source.uploads));
    } finally {
      await target.close();
    }
  }, long);
});
