// What stopped the server from starting, as the one line an operator reads: the setting at fault and what
// to do, never a stack trace. server.ts prints it on stderr and exits with a non-zero status.
import { DataDirLockedError, DataDirUnusableError } from './db/data-dir-lock.js';

/** A step of the start-up that failed, with what the operator configured for it. */
export class StartStepError extends Error {
  constructor(
    readonly step: 'listen' | 'database' | 'migrations',
    readonly detail: { host?: string; port?: number; databaseUrl?: string },
    override readonly cause: unknown,
  ) {
    super(`${step} failed`);
    this.name = 'StartStepError';
  }
}

/** The failure in one line (at most 600 characters, no line breaks). */
export function describeStartFailure(error: unknown): string {
  const line = describe(error).replace(/\s*\n\s*/g, ' ').trim();
  return line.length > 600 ? `${line.slice(0, 597)}...` : line;
}

function describe(error: unknown): string {
  if (error instanceof StartStepError) return describeStep(error);
  if (error instanceof DataDirLockedError) {
    const { owner, dataDir } = error;
    if (!owner) return `another process is using the data directory (DATA_DIR ${dataDir}); PGlite allows one process at a time`;
    if (owner.holder !== 'server') return `a ${owner.holder === 'cli' ? 'CLI' : 'migration'} command (pid ${owner.pid}) is using the data directory (DATA_DIR ${dataDir}): wait for it to finish`;
    return `another server (pid ${owner.pid}) is running on this data directory (DATA_DIR ${dataDir}): stop it first; several instances need PostgreSQL (DATABASE_URL)`;
  }
  if (error instanceof DataDirUnusableError) return error.message;
  return messageOf(error);
}

function describeStep({ step, detail, cause }: StartStepError): string {
  const code = (cause as { code?: unknown } | null)?.code;
  if (step === 'listen') {
    const where = `${detail.host}:${detail.port}`;
    if (code === 'EADDRINUSE') return `port ${detail.port} is already in use (PORT, on ${where}): stop the other process or choose another port`;
    if (code === 'EACCES') return `no permission to listen on ${where} (PORT): ports below 1024 need privileges; use a higher port behind a reverse proxy`;
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot listen on ${detail.host} (HOST): no such address on this machine`;
    return `cannot listen on ${where}: ${messageOf(cause)}`;
  }
  if (step === 'database') return `cannot use PostgreSQL at ${safeLocation(detail.databaseUrl)} (DATABASE_URL): ${messageOf(cause)}`;
  return `applying migrations failed: ${messageOf(cause)}`;
}

/** host:port/database of a connection string: never its user name or password. */
function safeLocation(url: string | undefined): string {
  try {
    const parsed = new URL(url ?? '');
    return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof AggregateError && error.errors.length) return messageOf(error.errors[0]); // a host with several addresses
  const code = (error as { code?: unknown }).code;
  const message = error.message || error.name;
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}
