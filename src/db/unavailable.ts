// The database cannot be reached (refused, closed, terminated, timed out, not accepting connections,
// out of connections): the request is not at fault and may succeed later, so it answers 503 with
// Retry-After instead of 500. The errors come in several shapes: the pg driver's own (socket errors,
// "Connection terminated"), Prisma's (P1001…, P2024, with the adapter's DriverAdapterError kind),
// PostgreSQL's SQLSTATE (class 08, 57P0x, 53300).
import type { Logger } from 'pino';
import { AppError } from '../shared/errors.js';

/** Seconds a client is told to wait before retrying while the database is unavailable. */
export const databaseRetryAfterSeconds = 5;

const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', 'ECONNABORTED']);
// Can't reach (P1001), timed out (P1002, P1008), closed (P1017), no pooled connection in time (P2024).
const prismaCodes = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const adapterKinds = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
// admin_shutdown (pg_terminate_backend), crash_shutdown, cannot_connect_now, too_many_connections.
const sqlStates = new Set(['57P01', '57P02', '57P03', '53300']);
const messages = /connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|is not currently accepting connections|server closed the connection|can't reach database server|terminating connection due to administrator command|connection is closed/i;

function isConnectionFailure(error: unknown, depth: number): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: { cause?: unknown } }; errors?: unknown };
  if (typeof e.code === 'string' && (socketCodes.has(e.code) || prismaCodes.has(e.code) || sqlStates.has(e.code) || e.code.startsWith('08'))) return true;
  if (typeof e.kind === 'string' && adapterKinds.has(e.kind)) return true;
  const original = (e as { originalCode?: unknown }).originalCode;
  if (typeof original === 'string' && (sqlStates.has(original) || original.startsWith('08'))) return true;
  if (typeof e.message === 'string' && messages.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isConnectionFailure(inner, depth + 1))) return true;
  return isConnectionFailure(e.meta?.driverAdapterError?.cause, depth + 1) || isConnectionFailure(e.cause, depth + 1);
}

/** Whether `error` says the database cannot be reached now (not that the request was wrong). */
export function isDatabaseUnavailable(error: unknown): boolean {
  return isConnectionFailure(error, 0);
}

/** The client's answer to a database that cannot be reached: 503 SERVICE_UNAVAILABLE, retry later. */
export function databaseUnavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry later', { retryAfter: databaseRetryAfterSeconds });
}

// One line per interval for the whole process, whichever request or app instance meets the outage.
const logEveryMs = 10_000;
let lastLogged = 0;
let failedSince = 0;

/**
 * Logs a database outage at most once every 10 s (a down database fails every request; one line says
 * so, with how many failed since the last one), with the error's code only: its text may name the host.
 */
export function reportDatabaseOutage(logger: Logger | undefined, error: unknown): void {
  failedSince++;
  const at = Date.now();
  if (!logger || at - lastLogged < logEveryMs) return;
  lastLogged = at;
  const code = (error as { code?: unknown } | null)?.code;
  logger.warn({ failedRequests: failedSince, code: typeof code === 'string' ? code : undefined }, 'database unavailable (requests answer 503 until it is back)');
  failedSince = 0;
}
