// Taking a backup: one REPEATABLE READ, READ ONLY transaction reads every table of the public schema
// (one snapshot, however long it takes and whatever the servers write meanwhile), row by row through a
// cursor, and the local files its media rows name; everything streams into the archive (archive.ts).
import path from 'node:path';
import type { Database } from '../db/database.js';
import { isStorageKey } from '../modules/media/storage-key.js';
import { openForReading } from '../shared/file-reading.js';
import { writeArchive, type ArchiveWriter } from './archive.js';
import { readAppliedMigrations, readSequences, readTables, setTextSettings, type Sql, type TableShape } from './catalog.js';
import { selectLines } from './rows.js';
import { chunkBytes, externalEntry, fileEntry, formatName, formatVersion, manifestEntry, rowsEntry, summaryEntry, type ExternalFile, type Manifest, type Summary } from './manifest.js';

/** Where the media files of the local driver are (UPLOAD_DIR) and which driver is configured (renditions follow it). */
export interface MediaFiles {
  uploadDir: string;
  driver: string;
}

/** What a backup or a restore did, for the one-line report. */
export interface Report {
  file: string;
  tables: number;
  rows: number;
  files: number;
  /** The size of the backup file. */
  bytes: number;
  seconds: number;
  /** Media files named only (S3, hosted blob). */
  external: number;
  /** Local media files a row names that were not on disk. */
  missing: string[];
}

/** Rows fetched from the cursor at once. */
const fetchRows = 2000;
/** The transaction may last as long as the backup does. */
const longTransaction = { maxWait: 60_000, timeout: 7 * 24 * 3_600_000 };

/** Collects lines into entries of about chunkBytes each. */
function chunker(archive: ArchiveWriter, entryOf: (n: number) => string) {
  let lines: string[] = [];
  let bytes = 0;
  let n = 0;
  const flush = async () => {
    if (!lines.length) return;
    const data = `${lines.join('\n')}\n`;
    lines = [];
    bytes = 0;
    await archive.add(entryOf(++n), data);
  };
  return {
    async push(line: string) {
      lines.push(line);
      bytes += line.length + 1;
      if (bytes >= chunkBytes) await flush();
    },
    flush,
  };
}

/** Runs `query` through a cursor, handing each batch of rows to `each`. */
async function throughCursor<Row>(sql: Sql, query: string, each: (rows: Row[]) => Promise<void>): Promise<void> {
  await sql.$executeRawUnsafe(`DECLARE backup_rows NO SCROLL CURSOR FOR ${query}`);
  for (;;) {
    const rows = await sql.$queryRawUnsafe<Row[]>(`FETCH FORWARD ${fetchRows} FROM backup_rows`);
    if (rows.length) await each(rows);
    if (rows.length < fetchRows) break;
  }
  await sql.$executeRawUnsafe('CLOSE backup_rows');
}

/** Writes a table's rows, returning how many. */
async function writeTable(sql: Sql, archive: ArchiveWriter, table: TableShape): Promise<number> {
  const chunks = chunker(archive, (n) => rowsEntry(table.name, n));
  let rows = 0;
  await throughCursor<{ line: string }>(sql, selectLines(table), async (batch) => {
    for (const { line } of batch) await chunks.push(line);
    rows += batch.length;
  });
  await chunks.flush();
  return rows;
}

/**
 * Writes the files the snapshot's media rows and renditions name: local ones byte for byte, others
 * (S3, hosted blob) named in external/ entries. A local file gone from disk (before or while the
 * backup reads it: file-reading.ts) is reported, not fatal.
 */
async function writeFiles(sql: Sql, archive: ArchiveWriter, tables: TableShape[], media: MediaFiles, summary: Summary): Promise<void> {
  const names = new Set(tables.map((t) => t.name));
  const parts = [];
  if (names.has('media')) parts.push(`SELECT storage_driver AS driver, storage_key AS key, url FROM public.media WHERE storage_key IS NOT NULL`);
  if (names.has('media_renditions')) parts.push(`SELECT NULL AS driver, storage_key AS key, NULL AS url FROM public.media_renditions`);
  if (!parts.length) return;
  const external = chunker(archive, externalEntry);
  await throughCursor<{ driver: string | null; key: string; url: string | null }>(sql, parts.join(' UNION ALL '), async (batch) => {
    for (const row of batch) {
      const local = isStorageKey(row.key) && (row.driver === 'local' || row.driver === null) ? await openForReading(path.join(media.uploadDir, row.key)) : null;
      if (local) {
        await archive.addStream(fileEntry(row.key), local.size, local.stream);
        summary.files += 1;
        summary.fileBytes += local.size;
      } else if (row.driver === 'local' || (row.driver === null && media.driver === 'local')) {
        summary.missing.push(row.key);
      } else {
        const named: ExternalFile = { driver: row.driver ?? media.driver, key: row.key, url: row.url ?? '' };
        await external.push(JSON.stringify(named));
        summary.external += 1;
      }
    }
  });
  await external.flush();
}

/** Backs up the whole database and the local media files into `file`; the report says what it holds. */
export async function writeBackup(database: Database, file: string, media: MediaFiles): Promise<Report> {
  const started = performance.now();
  const archive = writeArchive(file);
  try {
    const summary: Summary = { rows: {}, files: 0, fileBytes: 0, external: 0, missing: [] };
    await database.prisma.$transaction(
      async (sql) => {
        await sql.$executeRawUnsafe('SET TRANSACTION READ ONLY');
        // Rows row-level security would hide are an error rather than a silent gap (a role that does not bypass it).
        await sql.$queryRawUnsafe(`SELECT set_config('row_security', 'off', true)`);
        await setTextSettings(sql);
        const tables = await readTables(sql);
        const manifest: Manifest = {
          format: formatName,
          version: formatVersion,
          createdAt: new Date().toISOString(),
          database: database.kind,
          migrations: await readAppliedMigrations(sql),
          tables: tables.map((t) => ({ name: t.name, columns: t.columns.map((c) => c.name) })),
          sequences: await readSequences(sql),
        };
        await archive.add(manifestEntry, JSON.stringify(manifest, null, 2));
        for (const table of tables) summary.rows[table.name] = await writeTable(sql, archive, table);
        await writeFiles(sql, archive, tables, media, summary);
      },
      { ...longTransaction, isolationLevel: 'RepeatableRead' },
    );
    await archive.add(summaryEntry, JSON.stringify(summary, null, 2));
    const bytes = await archive.finish();
    const rows = Object.values(summary.rows).reduce((a, b) => a + b, 0);
    return { file, tables: Object.keys(summary.rows).length, rows, files: summary.files, bytes, seconds: (performance.now() - started) / 1000, external: summary.external, missing: summary.missing };
  } catch (error) {
    await archive.abandon();
    throw error;
  }
}
