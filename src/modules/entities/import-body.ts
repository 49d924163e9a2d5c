// The body of an import (POST /api/v1/{entity}/import), received before any write: spooled to a
// temporary file as it arrives (never held whole in memory), its bytes and lines counted against the
// import's limits, so that a slow or oversized upload never holds the request's transaction (on PGlite,
// the one connection). The writes then read it back record by record (importLines): ndjson, one JSON
// object a line; or csv, a header row of field names, then one record a row, each cell converted by its
// field's type.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import type { EntityDefinition, FieldDefinition } from '../../config/entity-definition.js';
import { AppError } from '../../shared/errors.js';
import { csvRecords } from './csv.js';
import type { ImportLine } from './import.js';

export const importFormats = ['ndjson', 'csv'] as const;
export type ImportFormat = (typeof importFormats)[number];

/**
 * At most this many lines (csv: besides its header) and bytes per import: one import is one request
 * transaction, which the platform rolls back after 30 s; 5,000 tasks import in a few seconds here.
 */
export const importLimits = { lines: 5_000, bytes: 10 * 1024 * 1024 };

/** The format a Content-Type names, or null. */
export function formatOfContentType(contentType: string | null): ImportFormat | null {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-ndjson' || type === 'application/ndjson' || type === 'application/jsonl' || type === 'application/x-jsonlines') return 'ndjson';
  if (type === 'text/csv') return 'csv';
  return null;
}

/** A received body: its file, and how to let it go. */
export interface SpooledBody {
  file: string;
  discard(): Promise<void>;
}

const newline = 0x0a;

/** Spools `body` to a temporary file; 413 past the byte limit or the line limit (counted as line breaks). */
export async function spoolBody(body: AsyncIterable<Uint8Array>, format: ImportFormat): Promise<SpooledBody> {
  const dir = await mkdtemp(path.join(tmpdir(), 'platform-import-'));
  const discard = () => rm(dir, { recursive: true, force: true });
  const file = path.join(dir, `body.${format}`);
  const out = createWriteStream(file);
  const maxBreaks = importLimits.lines + (format === 'csv' ? 1 : 0);
  let bytes = 0;
  let breaks = 0;
  let lastByte = newline;
  try {
    for await (const chunk of body) {
      bytes += chunk.byteLength;
      for (const byte of chunk) if (byte === newline) breaks++;
      lastByte = chunk.at(-1) ?? lastByte;
      if (bytes > importLimits.bytes) throw new AppError('PAYLOAD_TOO_LARGE', `An import takes at most ${importLimits.bytes} bytes: split the file`);
      // A last line without its line break counts too.
      if (breaks > maxBreaks) throw tooManyLines();
      if (!out.write(chunk)) await once(out, 'drain');
    }
    if (breaks + (lastByte === newline ? 0 : 1) > maxBreaks) throw tooManyLines();
    out.end();
    await once(out, 'finish');
    return { file, discard };
  } catch (error) {
    out.destroy();
    await discard();
    throw error;
  }
}

const tooManyLines = () => new AppError('PAYLOAD_TOO_LARGE', `An import takes at most ${importLimits.lines} lines: split the file`);

/** The records of a spooled body, one at a time, each with its line number (csv: the line it starts on). */
export function importLines(d: EntityDefinition, file: string, format: ImportFormat): AsyncIterable<ImportLine> {
  const text = createReadStream(file, { encoding: 'utf8' });
  return format === 'csv' ? csvLines(d, text) : ndjsonLines(text);
}

async function* ndjsonLines(text: AsyncIterable<string>): AsyncGenerator<ImportLine> {
  let rest = '';
  let line = 0;
  const parsed = (raw: string): ImportLine | null => {
    line++;
    if (raw.trim() === '') return null;
    try {
      const values: unknown = JSON.parse(raw);
      if (typeof values === 'object' && values !== null && !Array.isArray(values)) return { line, values: values as Record<string, unknown> };
    } catch {
      return { line, problem: 'is not JSON' };
    }
    return { line, problem: 'must be a JSON object' };
  };
  for await (const chunk of text) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    for (const raw of parts) {
      const one = parsed(raw);
      if (one) yield one;
    }
  }
  const last = parsed(rest);
  if (last) yield last;
}

async function* csvLines(d: EntityDefinition, text: AsyncIterable<string>): AsyncGenerator<ImportLine> {
  const byName = new Map<string, FieldDefinition>([...d.fields, ...d.links, ...d.virtuals].map((f) => [f.name, f]));
  let header: string[] | null = null;
  for await (const record of csvRecords(text)) {
    if ('problem' in record) {
      yield record;
      continue;
    }
    if (!header) {
      // A spreadsheet's byte-order mark is not part of the first name.
      header = record.cells.map((name, i) => (i === 0 ? name.replace(/^\uFEFF/, '') : name).trim());
      continue;
    }
    if (record.cells.length !== header.length) {
      yield { line: record.line, problem: `has ${record.cells.length} cells where the header names ${header.length}` };
      continue;
    }
    const values: Record<string, unknown> = {};
    header.forEach((name, i) => {
      const cell = record.cells[i]!;
      // An empty cell is no value: the field's default, or empty (csv cannot tell empty text from none).
      if (cell !== '') values[name] = cellValue(name === 'metas' ? { type: 'json', many: false } : byName.get(name), cell);
    });
    yield { line: record.line, values };
  }
}

/**
 * A cell as its field's value: numbers and booleans from their text, lists and JSON from JSON text;
 * text that is not what the field takes is passed on as it is, for validation to refuse with its message.
 */
function cellValue(field: Pick<FieldDefinition, 'type' | 'many'> | undefined, cell: string): unknown {
  switch (field?.type) {
    case 'number':
    case 'integer':
      return cell.trim() !== '' && Number.isFinite(Number(cell)) ? Number(cell) : cell;
    case 'boolean':
      return cell === 'true' ? true : cell === 'false' ? false : cell;
    case 'multiselect':
    case 'json':
      return jsonOf(cell);
    case 'relation':
    case 'media':
      return field.many ? jsonOf(cell) : cell;
    default:
      return cell;
  }
}

function jsonOf(cell: string): unknown {
  try {
    return JSON.parse(cell);
  } catch {
    return cell;
  }
}
