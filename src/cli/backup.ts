// `backup <file>` and `restore <file>` (src/backup/: the snapshot machinery; docs/data-safety.md). On
// PostgreSQL a backup runs beside the servers; the embedded database (DATA_DIR) is held by one process,
// so there both commands run with the server stopped. Neither migrates the database the usual way: a
// backup changes nothing, and a restore applies the backup's own migrations.
import { parseArgs } from 'node:util';
import { DamagedBackupError } from '../backup/manifest.js';
import { restoreBackup } from '../backup/reader.js';
import { RestoreRefusedError } from '../backup/target.js';
import { writeBackup, type Report } from '../backup/writer.js';
import { Refusal, withDatabase, type Cli } from './open.js';

function fileArgument(args: string[], command: string): { file: string; json: boolean } {
  const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  if (positionals.length !== 1) throw new TypeError(`${command} takes one file: npm run -s cli -- ${command} <file>`);
  return { file: positionals[0]!, json: values.json };
}

/** A refused restore, a damaged file or one that cannot be opened is one line on stderr, without the usage. */
function refused(file: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof DamagedBackupError || error instanceof RestoreRefusedError) throw new Refusal(error.message);
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') throw new Refusal(`cannot use the file ${file}: ${(error as Error).message}`);
    throw error;
  };
}

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

function print(cli: Cli, report: Report, json: boolean, line: string): void {
  if (json) cli.out(JSON.stringify({ ...report, seconds: Number(report.seconds.toFixed(3)) }));
  else cli.out(line);
  if (report.missing.length) cli.err(`Warning: ${report.missing.length} local media file(s) named by rows were not on disk: ${report.missing.slice(0, 5).join(', ')}${report.missing.length > 5 ? ', …' : ''}`);
}

const counts = (r: Report) =>
  `${r.tables} tables, ${r.rows} rows, ${r.files} files${r.external ? ` (+${r.external} in external storage, named only)` : ''}, ${megabytes(r.bytes)}, ${r.seconds.toFixed(1)} s`;

/** `backup <file>`: writes a consistent snapshot of the database and the local media files to `file`. */
export async function backupCommand(args: string[], cli: Cli): Promise<number> {
  const { file, json } = fileArgument(args, 'backup');
  const report = await withDatabase(
    cli,
    { otherwise: ', then take the backup (the embedded database is read by one process at a time)' },
    (database, config) => writeBackup(database, file, { uploadDir: config.media.uploadDir, driver: config.media.storage.driver }),
    { migrate: false },
  ).catch(refused(file));
  print(cli, report, json, `Backed up ${counts(report)} to ${file}`);
  return 0;
}

/** `restore <file>`: loads a backup into the configured database, which must be empty. */
export async function restoreCommand(args: string[], cli: Cli): Promise<number> {
  const { file, json } = fileArgument(args, 'restore');
  const report = await withDatabase(
    cli,
    { otherwise: ': restore into a data directory no server uses (a new, empty one)' },
    (database, config) => restoreBackup(database, file, { uploadDir: config.media.uploadDir, driver: config.media.storage.driver }),
    { migrate: false },
  ).catch(refused(file));
  print(cli, report, json, `Restored ${counts(report)} from ${file}`);
  return 0;
}
