// The worker's in-memory PGlite instances, each lent to one test database at a time. Opening a copy of
// the run's migrated template costs 0.6–0.9 s of CPU (loading the dump's files, PostgreSQL's start in
// WebAssembly), and a worker runs its test files one after another (vitest.config.ts): an instance a
// test database is done with is brought back to what a fresh copy holds, and lent to the next one.
// - Brought back: the session reset (ROLLBACK, DISCARD ALL: settings, role, prepared statements,
//   LISTENs, temporary tables), every row deleted (triggers and foreign keys off meanwhile), every
//   sequence restarted, the JavaScript listeners a borrower left removed: a few milliseconds.
// - An instance whose schema a borrower changed (a column dropped, a table, trigger or role added, the
//   migrations' record altered) is closed instead: its catalog's fingerprint must be the template's.
// - A borrower's handle refuses every call once it is given back, so that late work of a closed app
//   (a flush, a delivery) cannot reach the next borrower's database.
import { readFile } from 'node:fs/promises';
import type { PGlite } from '@electric-sql/pglite';
import { createPglite } from '../db/database.js';

export interface PgliteLease {
  /** The instance as this borrower sees it: usable until release(). */
  pglite: PGlite;
  /** Gives the instance back (brought back to the template's state, or closed); safe to call again. */
  release(): Promise<void>;
}

/** Everything a test could change that a fresh copy of the template would not have: schema, rights, roles, settings, the migrations' record. */
const fingerprintSql = `
SELECT md5(string_agg(item, E'\\n' ORDER BY item)) AS print FROM (
  SELECT concat_ws(' ', 'relation', c.oid::regclass, c.relkind, c.relrowsecurity, c.relforcerowsecurity, c.relacl,
    (SELECT string_agg(concat_ws(' ', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid)), ', ' ORDER BY a.attnum)
       FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)) AS item
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
  UNION ALL SELECT concat_ws(' ', 'index', indexdef) FROM pg_indexes WHERE schemaname = 'public'
  UNION ALL SELECT concat_ws(' ', 'constraint', conrelid::regclass, conname, pg_get_constraintdef(oid)) FROM pg_constraint WHERE connamespace = 'public'::regnamespace
  UNION ALL SELECT concat_ws(' ', 'policy', polrelid::regclass, polname, polcmd, polroles, pg_get_expr(polqual, polrelid), pg_get_expr(polwithcheck, polrelid)) FROM pg_policy
  UNION ALL SELECT concat_ws(' ', 'trigger', tgrelid::regclass, tgname, tgenabled, tgfoid::regproc) FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL SELECT concat_ws(' ', 'function', p.oid::regprocedure, md5(p.prosrc), p.proconfig, p.proacl, p.prosecdef) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
  UNION ALL SELECT concat_ws(' ', 'role', rolname, rolsuper, rolbypassrls, rolcanlogin, rolinherit) FROM pg_roles
  UNION ALL SELECT concat_ws(' ', 'member', roleid, member) FROM pg_auth_members
  UNION ALL SELECT concat_ws(' ', 'setting', setdatabase, setrole, setconfig) FROM pg_db_role_setting
  UNION ALL SELECT concat_ws(' ', 'database', datname, datallowconn, datacl) FROM pg_database
  UNION ALL SELECT concat_ws(' ', 'extension', extname, extversion) FROM pg_extension
  UNION ALL SELECT concat_ws(' ', 'migration', id, migration_name, checksum, finished_at, rolled_back_at, applied_steps_count) FROM _prisma_migrations
) items`;

/** What every instance starts as (the template: all are copies of the same dump), and how to empty one. */
interface Template {
  print: string;
  /** Deletes every row but the migrations' record, and restarts the sequences. */
  emptying: string;
}

const idle: PGlite[] = [];
let template: Promise<Template> | undefined;
let dump: Promise<Blob> | undefined;

const fingerprint = async (pglite: PGlite) => (await pglite.query<{ print: string }>(fingerprintSql)).rows[0]!.print;

async function templateOf(pglite: PGlite): Promise<Template> {
  const tables = (await pglite.query<{ name: string }>(`SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1`)).rows;
  const emptying = [
    'SET session_replication_role = replica',
    ...tables.map((t) => `DELETE FROM ${t.name}`),
    'RESET session_replication_role',
    'SELECT setval(seqrelid, seqstart, false) FROM pg_sequence',
  ].join(';\n');
  return { print: await fingerprint(pglite), emptying };
}

async function open(dumpFile: string): Promise<PGlite> {
  dump ??= readFile(dumpFile).then((bytes) => new Blob([bytes]));
  const pglite = await createPglite('memory://', undefined, await dump);
  template ??= templateOf(pglite);
  await template;
  return pglite;
}

/** Brings `pglite` back to the template's state and makes it idle, or closes it when its schema is no longer the template's. */
async function giveBack(pglite: PGlite, channels: Set<string>): Promise<void> {
  try {
    for (const channel of channels) await pglite.unlisten(channel);
    await pglite.exec('ROLLBACK');
    await pglite.exec('DISCARD ALL');
    const { print, emptying } = await template!;
    if ((await fingerprint(pglite)) !== print) throw new Error('schema changed');
    await pglite.exec(emptying);
    idle.push(pglite);
  } catch {
    await pglite.close().catch(() => {});
  }
}

/** An instance of the run's template (`dumpFile`) for one test database: an idle one of this worker's, or a new copy. */
export async function leasePglite(dumpFile: string): Promise<PgliteLease> {
  const pglite = idle.pop() ?? (await open(dumpFile));
  let released = false;
  const channels = new Set<string>();
  const lent = new Proxy(pglite, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (released) throw new Error(`PGlite.${String(key)} after the test database was dropped`);
        if (key === 'listen') channels.add(args[0] as string);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    pglite: lent,
    async release() {
      if (released) return;
      released = true;
      await giveBack(pglite, channels);
    },
  };
}
