// Parsing input at a boundary with zod: one place that turns zod issues into VALIDATION_ERROR.
import { z } from 'zod';
import { AppError } from './errors.js';

export interface FieldIssue {
  path: string;
  code: string;
  message: string;
}

/** zod issues in the flat form clients read: `{path: "a.b", code, message}`. */
export function describeIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.join('.'), code: issue.code, message: issue.message }));
}

/** Parses `value` or throws a 400 VALIDATION_ERROR listing every problem. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what = 'Invalid input'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = describeIssues(result.error);
  const first = issues[0];
  const message = first ? `${what}: ${first.path ? `${first.path}: ` : ''}${first.message}` : what;
  throw new AppError('VALIDATION_ERROR', message, { errors: issues });
}

/** zod's own issues, JSON-safe: `{code, path: ["limit"], message, maximum…}` (the media contract's form). */
export function zodIssues(error: z.ZodError): Record<string, unknown>[] {
  return error.issues.map(({ input: _input, ...issue }) => ({ ...issue, path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)) }));
}

/** Parses `value` or throws a 400 VALIDATION_ERROR whose message is exactly `message`, with zod's issues in details.errors. */
export function parseInputExactly<S extends z.ZodType>(schema: S, value: unknown, message: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new AppError('VALIDATION_ERROR', message, { errors: zodIssues(result.error) });
}

/**
 * Ids are UUIDs in the form PostgreSQL's uuid type reads (8-4-4-4-12 hex, any version or variant: rows
 * may come from imports or SQL, not only from our generator). Anything else names no record (callers
 * answer 404 without reaching the database).
 */
const guid = z.guid();
export const isUuid = (id: string): boolean => guid.safeParse(id).success;

/** An e-mail address as accounts and invitations take it: trimmed, checked, stored lower-cased. */
export const emailAddress = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email('must be a valid e-mail address'))
  .transform((value) => value.toLowerCase());
