// How a row travels: as one JSON array of its columns' text forms (null for NULL), the forms PostgreSQL
// prints and reads back for every type (under catalog.ts's setTextSettings), as pg_dump's COPY does. So a
// timestamp with its time zone, a numeric of any precision, a jsonb null (not NULL), an array, bytea or
// text with any character comes back as it was; JavaScript never parses a value, only joins lines.
import { ident, type TableShape } from './catalog.js';

/** A query of one column, `line`: each row of `table` as its JSON array of text forms. */
export function selectLines(table: TableShape): string {
  const values = table.columns.map((c) => `${ident(c.name)}::text`).join(', ');
  return `SELECT array_to_json(ARRAY[${values}]::text[])::text AS line FROM public.${ident(table.name)}`;
}

/**
 * An INSERT of lines into `table` (`$1`: a JSON array of lines), the backup's `columns` in their order,
 * each text form cast to the column's type in this database (`types`, by column name).
 */
export function insertLines(table: string, columns: string[], types: Map<string, string>): string {
  const values = columns.map((c, i) => `(r->>${i})::${types.get(c)}`).join(', ');
  return `INSERT INTO public.${ident(table)} (${columns.map(ident).join(', ')}) OVERRIDING SYSTEM VALUE SELECT ${values} FROM json_array_elements($1::json) AS r`;
}

/** The `$1` of insertLines for some lines. */
export const linesParameter = (lines: string[]) => `[${lines.join(',')}]`;
