// Restoring a backup into an empty database: the backup's migrations first (target.ts), then every row
// in one transaction with the app's triggers off (session_replication_role = replica: the rows are
// loaded as they were, not changed again; it needs a superuser), the sequences set, the local media
// files written back; committed only once the summary at the file's end matches what was loaded, so a
// damaged or cut-off file leaves no row behind (and its files are removed).
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../db/database.js';
import { isStorageKey } from '../modules/media/storage-key.js';
import { damaged, entryText, readArchive, type ArchiveEntry } from './archive.js';
import { ident, migrationsTable, readTables, setSequence, setTextSettings, type Sql } from './catalog.js';
import { insertLines, linesParameter } from './rows.js';
import { DamagedBackupError, keyOfEntry, manifestEntry, parseManifest, parseSummary, summaryEntry, tableOfEntry, type Manifest, type Summary } from './manifest.js';
import { assertEmpty, migrateToBackup, RestoreRefusedError } from './target.js';
import type { MediaFiles, Report } from './writer.js';

const longTransaction = { maxWait: 60_000, timeout: 7 * 24 * 3_600_000 };

/** The INSERT of each table of the backup: the backup's columns, each text form cast to the column's type here. */
async function insertStatements(sql: Sql, manifest: Manifest): Promise<Map<string, string>> {
  const here = new Map((await readTables(sql)).map((t) => [t.name, new Map(t.columns.map((c) => [c.name, c.type]))]));
  const statements = new Map<string, string>();
  for (const table of manifest.tables) {
    const columns = here.get(table.name);
    if (!columns) throw new RestoreRefusedError(`the backup's table ${table.name} is not in the database its migrations made`);
    const absent = table.columns.filter((c) => !columns.has(c));
    if (absent.length) throw new RestoreRefusedError(`the backup's columns ${table.name}.${absent.join(', ')} are not in the database its migrations made`);
    statements.set(table.name, insertLines(table.name, table.columns, columns));
  }
  return statements;
}

/** Turns the app's triggers (foreign-key checks among them) off for the transaction; says clearly when the role may not. */
async function replicaRole(sql: Sql): Promise<void> {
  try {
    await sql.$queryRawUnsafe(`SELECT set_config('session_replication_role', 'replica', true)`);
  } catch (error) {
    throw new RestoreRefusedError(`a restore needs a superuser database role (to set session_replication_role): ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Writes a stored file back under UPLOAD_DIR, whole or not at all. */
async function writeFile(entry: ArchiveEntry, key: string, uploadDir: string): Promise<string> {
  if (!isStorageKey(key)) throw new DamagedBackupError(`the backup names a file that is not a storage key: ${JSON.stringify(key)}`);
  const file = path.join(uploadDir, key);
  const partial = `${file}.restore.partial`;
  await pipeline(entry.stream, createWriteStream(partial));
  await rename(partial, file);
  return file;
}

/** Reads past an entry that holds nothing to load here. */
async function skip(entry: ArchiveEntry): Promise<number> {
  return (await entryText(entry)).split('\n').filter(Boolean).length;
}

/** What a restore loaded, checked against the summary at the end. */
interface Loaded {
  rows: Record<string, number>;
  files: number;
  fileBytes: number;
  external: number;
  written: string[];
}

/** Loads every entry after the manifest; resolves to the summary, checked against what was loaded. */
async function load(sql: Sql, entries: AsyncGenerator<ArchiveEntry>, manifest: Manifest, media: MediaFiles, loaded: Loaded): Promise<Summary> {
  const inserts = await insertStatements(sql, manifest);
  let summary: Summary | null = null;
  for await (const entry of entries) {
    if (summary) throw new DamagedBackupError(`the backup has an entry after its summary: ${entry.name}`);
    const table = tableOfEntry(entry.name);
    const key = keyOfEntry(entry.name);
    if (table !== null) {
      const insert = inserts.get(table);
      if (!insert) throw new DamagedBackupError(`the backup has rows of a table its manifest does not name: ${table}`);
      const lines = (await entryText(entry)).split('\n').filter(Boolean);
      if (lines.length) await sql.$executeRawUnsafe(insert, linesParameter(lines));
      loaded.rows[table] = (loaded.rows[table] ?? 0) + lines.length;
    } else if (key !== null) {
      loaded.written.push(await writeFile(entry, key, media.uploadDir));
      loaded.files += 1;
      loaded.fileBytes += entry.size;
    } else if (entry.name.startsWith('external/')) {
      loaded.external += await skip(entry);
    } else if (entry.name === summaryEntry) {
      summary = parseSummary(await entryText(entry));
    } else {
      throw new DamagedBackupError(`the backup has an entry this version does not know: ${entry.name}`);
    }
  }
  if (!summary) throw new DamagedBackupError('the backup file ends before its summary: it is incomplete');
  for (const table of manifest.tables) {
    const expected = summary.rows[table.name] ?? 0;
    const got = loaded.rows[table.name] ?? 0;
    if (expected !== got) throw new DamagedBackupError(`the backup is incomplete: ${table.name} has ${got} rows of ${expected}`);
  }
  if (summary.files !== loaded.files || summary.fileBytes !== loaded.fileBytes) throw new DamagedBackupError(`the backup is incomplete: ${loaded.files} files of ${summary.files}`);
  for (const sequence of manifest.sequences) await setSequence(sql, sequence);
  return summary;
}

/** Restores the backup in `file` into `database`, which must be empty, and its local files into UPLOAD_DIR. */
export async function restoreBackup(database: Database, file: string, media: MediaFiles): Promise<Report> {
  const started = performance.now();
  await stat(file); // a file that is not there is said before anything is looked at
  await assertEmpty(database);
  const entries = readArchive(file);
  const loaded: Loaded = { rows: {}, files: 0, fileBytes: 0, external: 0, written: [] };
  try {
    const first = await entries.next();
    if (first.done || first.value.name !== manifestEntry) throw new DamagedBackupError(`not a backup file: it does not start with ${manifestEntry}`);
    const manifest = parseManifest(await entryText(first.value));
    await migrateToBackup(database, manifest);
    await mkdir(media.uploadDir, { recursive: true });
    const summary = await database.prisma.$transaction(async (sql) => {
      await replicaRole(sql);
      await setTextSettings(sql);
      if (manifest.tables.some((t) => t.name === migrationsTable)) await sql.$executeRawUnsafe(`DELETE FROM public.${ident(migrationsTable)}`);
      return load(sql, entries, manifest, media, loaded);
    }, longTransaction);
    const rows = Object.values(loaded.rows).reduce((a, b) => a + b, 0);
    return { file, tables: manifest.tables.length, rows, files: loaded.files, bytes: (await stat(file)).size, seconds: (performance.now() - started) / 1000, external: summary.external, missing: summary.missing };
  } catch (error) {
    await Promise.all(loaded.written.map((written) => rm(written, { force: true })));
    throw damaged(error);
  } finally {
    await entries.return(undefined);
  }
}
