// The query string of a REST request, checked once before any route reads it: a parameter given twice
// is refused (a single value was meant, and "last one wins" would hide the client's mistake; lists are
// comma-separated values of one parameter), and so is a NUL character (PostgreSQL text cannot hold it).
import { AppError } from '../shared/errors.js';

/** Throws 400 when a query parameter is given more than once or holds a NUL character. */
export function assertPlainQuery(url: URL): void {
  const seen = new Set<string>();
  for (const [name, value] of url.searchParams) {
    if (name.includes('\u0000') || value.includes('\u0000')) throw new AppError('VALIDATION_ERROR', 'Query parameters cannot contain NUL (\\u0000) characters', { parameter: name.split('\u0000').join('\\u0000') });
    if (seen.has(name)) throw new AppError('VALIDATION_ERROR', `Query parameter "${name}" is given more than once: give it once (lists are comma-separated)`, { parameter: name });
    seen.add(name);
  }
}
