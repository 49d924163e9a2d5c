// The words of a backup file. A backup is a gzip'd tar stream whose entries come in this order:
//   manifest.json                 what the rest holds: format, migrations, tables and columns, sequences
//   tables/<table>/<n>.ndjson     the rows, a JSON array of the columns' text forms (null for NULL) a line
//   files/<key>                   a stored media file of the local driver, byte for byte
//   external/<n>.ndjson           media files left in S3 or hosted-blob storage, named ({driver, key, url})
//   summary.json                  written last: rows per table and files, so a cut-off file is known as one
// Entries written whole carry their SHA-256 (archive.ts). A text form is what PostgreSQL itself prints and reads back (pg_dump's COPY does the same), so every
// type round-trips exactly; JavaScript never parses a value.
import { z } from 'zod';

/** Names this format in manifest.json; a restore refuses any other. */
export const formatName = 'platform-backup';
export const formatVersion = 1;

/** The first entry's name; the last entry's. */
export const manifestEntry = 'manifest.json';
export const summaryEntry = 'summary.json';

/** Rows are written in chunks of about this many bytes: what a backup or a restore holds in memory at once. */
export const chunkBytes = 1 << 20;

const sequence = z.object({ name: z.string(), lastValue: z.string().regex(/^-?\d+$/), isCalled: z.boolean() });

const manifestSchema = z.object({
  format: z.literal(formatName),
  version: z.literal(formatVersion),
  createdAt: z.string(),
  database: z.enum(['pglite', 'postgres']),
  migrations: z.array(z.string()),
  tables: z.array(z.object({ name: z.string().min(1), columns: z.array(z.string().min(1)).min(1) })),
  sequences: z.array(sequence),
});

/** What the backup holds, written first. */
export type Manifest = z.infer<typeof manifestSchema>;

const summarySchema = z.object({
  rows: z.record(z.string(), z.number().int().nonnegative()),
  files: z.number().int().nonnegative(),
  fileBytes: z.number().int().nonnegative(),
  external: z.number().int().nonnegative(),
  missing: z.array(z.string()),
});

/** What was written, written last: a restore checks what it read against it before committing. */
export type Summary = z.infer<typeof summarySchema>;

/** A media file left where it is (S3, hosted blob): named, not copied. */
export interface ExternalFile {
  driver: string;
  key: string;
  url: string;
}

/** The entry of a table's `n`th chunk of rows. */
export const rowsEntry = (table: string, n: number) => `tables/${table}/${String(n).padStart(6, '0')}.ndjson`;
/** The entry of a stored file. */
export const fileEntry = (key: string) => `files/${key}`;
/** The entry of the `n`th chunk of external file names. */
export const externalEntry = (n: number) => `external/${String(n).padStart(6, '0')}.ndjson`;

/** The table a rows entry belongs to, or null when `name` is not one. */
export function tableOfEntry(name: string): string | null {
  return /^tables\/([^/]+)\/\d+\.ndjson$/.exec(name)?.[1] ?? null;
}

/** The key of a file entry, or null. */
export function keyOfEntry(name: string): string | null {
  return /^files\/([^/]+)$/.exec(name)?.[1] ?? null;
}

/** A damaged backup file: the restore stops and writes nothing. */
export class DamagedBackupError extends Error {}

function parse<T>(schema: z.ZodType<T>, what: string, text: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DamagedBackupError(`${what} is not JSON: not a backup file, or a damaged one`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new DamagedBackupError(`${what} is not a ${formatName} v${formatVersion} one: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** Parses manifest.json. */
export const parseManifest = (text: string): Manifest => parse(manifestSchema, 'the manifest', text);
/** Parses summary.json. */
export const parseSummary = (text: string): Summary => parse(summarySchema, 'the summary', text);
