// Database errors the code reacts to (rather than answering 500).

/** A unique constraint refused the write (Prisma P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'P2002';
}

/** The PostgreSQL error code (SQLSTATE) behind a failed raw query, as the driver adapters report it. */
export function postgresCode(error: unknown): string | undefined {
  const meta = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null)?.meta;
  const code = meta?.driverAdapterError?.cause?.originalCode;
  return typeof code === 'string' ? code : undefined;
}
