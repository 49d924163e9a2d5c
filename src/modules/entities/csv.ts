// CSV as RFC 4180 writes it, for the export and import of records (export.ts, import-body.ts): rows of
// cells separated by commas, ended by CRLF; a cell holding a comma, a quote, CR or LF is quoted, its
// quotes doubled. Written here rather than taken from a package: the format is this small, the parser
// must stream (one record at a time, whatever the file's size) and report the line each record starts
// on, and neither csv-parse nor csv-stringify was in the dependencies.

/** A cell's text: empty for no value, JSON text for lists and objects (many-to-many ids, json fields, metas). */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const needsQuotes = /[",\r\n]/;

/** One row, CRLF-terminated, each cell quoted when it must be. */
export function csvRow(cells: readonly string[]): string {
  return `${cells.map((c) => (needsQuotes.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join(',')}\r\n`;
}

/** A record of a CSV text: its cells and the line it starts on (1-based); a problem instead when it is malformed. */
export type CsvRecord = { line: number; cells: string[] } | { line: number; problem: string };

/**
 * The records of a CSV text given in chunks, one at a time as they complete. CRLF and LF both end a
 * record; an empty line is no record. A quote inside an unquoted cell is taken as text (lenient, as
 * spreadsheets write); a quoted cell left open at the end is a problem.
 */
export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord> {
  let cells: string[] = [];
  let cell = '';
  let quoted = false; // inside a quoted cell
  let afterQuote = false; // a quote just closed (or was the first of a doubled pair)
  let started = false; // the record has a character
  let line = 1;
  let start = 1;
  let previous = '';
  const endCell = () => {
    cells.push(cell);
    cell = '';
    afterQuote = false;
  };
  for await (const chunk of chunks) {
    const out: CsvRecord[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i]!;
      const lastWasCR = previous === '\r';
      previous = ch;
      if (quoted) {
        if (ch === '"') [quoted, afterQuote] = [false, true];
        else {
          // A line break inside a quoted cell: part of the cell, but the next record starts lines later.
          if (ch === '\n') line++;
          cell += ch;
        }
        continue;
      }
      if (ch === '"') {
        // A doubled quote inside a quoted cell, or the opening quote of a cell.
        if (afterQuote) cell += '"';
        if (afterQuote || cell === '') [quoted, afterQuote, started] = [true, false, true];
        else cell += ch;
        continue;
      }
      afterQuote = false;
      if (ch === ',') {
        endCell();
        started = true;
      } else if (ch === '\n' && lastWasCR) {
        // The LF of a CRLF (possibly split between two chunks): the CR ended the record.
      } else if (ch === '\n' || ch === '\r') {
        if (started || cell !== '') {
          endCell();
          out.push({ line: start, cells });
        }
        cells = [];
        started = false;
        line++;
        start = line;
      } else {
        cell += ch;
        started = true;
      }
    }
    yield* out;
  }
  if (quoted) yield { line: start, problem: 'a quoted cell is not closed' };
  else if (started || cell !== '') {
    endCell();
    yield { line: start, cells };
  }
}
