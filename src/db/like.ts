// LIKE/ILIKE patterns that match a user's text literally.

/** `term` with LIKE's `%`, `_` and escape character `\` made literal (PostgreSQL's default escape). */
export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}
