// Structured JSON logs (pino). Secrets never reach a log line: headers are not logged, and the paths
// below are redacted should an object carrying them ever be logged.
import pino, { type Logger } from 'pino';
import type { Config } from './config/env.js';

/**
 * Errors are logged by type, code and stack frames. The message of a database client error is withheld:
 * Prisma quotes the query's arguments in it, which can include secrets.
 */
function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const withheld = error.name.startsWith('PrismaClient') || error.name === 'DriverAdapterError';
  const frames = (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).join('\n');
  return {
    type: error.name,
    code: (error as { code?: unknown }).code,
    message: withheld ? '[withheld: may quote query values]' : error.message,
    stack: frames,
  };
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    base: undefined,
    serializers: { err: serializeError },
    redact: {
      paths: ['*.password', '*.passwordHash', '*.token', '*.key', 'headers.authorization', 'headers.cookie', 'headers["x-api-key"]', 'headers["x-cron-secret"]'],
      censor: '[redacted]',
    },
  });
}
