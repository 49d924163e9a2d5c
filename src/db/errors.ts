// Database errors the code reacts to (rather than answering 500).
import { AppError } from '../shared/errors.js';

/** A unique constraint refused the write (Prisma P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'P2002';
}

/**
 * A foreign key refused the write: a related record that is gone (Prisma P2003, SQLSTATE 23503), or a
 * deletion of a record that a restricting key still names (23001 restrict_violation; 23503 for NO ACTION).
 */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = postgresCode(error);
  return (typeof error === 'object' && error !== null && (error as { code?: string }).code === 'P2003') || code === '23503' || code === '23001';
}

/** A row-level security policy refused a written row (SQLSTATE 42501, through the driver adapter: Prisma P2039). */
export function isRowSecurityViolation(error: unknown): boolean {
  return postgresCode(error) === '42501';
}

/** The PostgreSQL error code (SQLSTATE) behind a failed raw query, as the driver adapters report it. */
export function postgresCode(error: unknown): string | undefined {
  const meta = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null)?.meta;
  const code = meta?.driverAdapterError?.cause?.originalCode;
  return typeof code === 'string' ? code : undefined;
}

/** SQLSTATEs of values PostgreSQL cannot hold or read, as the client's error (22: data exception). */
const refusedValues: Record<string, string> = {
  '22P05': 'Text cannot contain NUL (\\u0000) characters',
  '22021': 'Text cannot contain NUL (\\u0000) characters',
  '22003': 'A number is out of range (integers are 32-bit)',
  '22008': 'A date or time is out of range',
  '22007': 'A date or time is not valid',
  '22001': 'A value is too long',
  '22P02': 'A value is not valid for its type',
  '22023': 'A value is not valid',
  '22004': 'A required value is null',
  '2201B': 'A pattern is not a valid regular expression',
  '22025': 'A pattern ends with an escape character',
};
/** Prisma's own codes for the same refusals (its query engine checks some values before PostgreSQL does). */
const prismaRefusals: Record<string, string> = {
  P2000: 'A value is too long',
  P2006: 'A value is not valid for its field',
  P2007: 'A value is not valid for its field',
  P2020: 'A value is out of range',
  P2023: 'A value is not valid for its column',
};

/**
 * A database error the request caused (a value PostgreSQL cannot hold, a record already gone), as
 * the client's 4xx; undefined for anything else (an unexpected error). The last line behind the
 * validation at the edges: whatever slips past it answers 400 or 404, never 500.
 */
export function databaseRefusal(error: unknown): AppError | undefined {
  for (let e: unknown = error, depth = 0; depth < 6 && typeof e === 'object' && e !== null; depth++) {
    const { code, originalCode, meta, cause } = e as { code?: unknown; originalCode?: unknown; meta?: { driverAdapterError?: { cause?: unknown } }; cause?: unknown };
    for (const state of [code, originalCode]) {
      if (typeof state !== 'string') continue;
      // A deletion or update of a record another request removed in between (Prisma P2025).
      if (state === 'P2025') return new AppError('NOT_FOUND', 'Record not found');
      if (Object.hasOwn(prismaRefusals, state)) return new AppError('VALIDATION_ERROR', prismaRefusals[state]!);
      if (Object.hasOwn(refusedValues, state)) return new AppError('VALIDATION_ERROR', refusedValues[state]!);
    }
    e = meta?.driverAdapterError?.cause ?? cause;
  }
  return undefined;
}
