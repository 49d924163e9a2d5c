// Structured JSON logs (pino). Secrets never reach a log line: headers are not logged, and the paths
// below are redacted should an object carrying them ever be logged.
import pino, { type Logger } from 'pino';
import type { Config } from './config/config.js';
import { activeTracing } from './telemetry/tracing.js';

/**
 * Errors are logged by type, code and stack frames, nothing else of their own properties (an error may
 * hold a request's context). The message of a database client error is withheld: Prisma quotes the
 * query's arguments in it, which can include secrets; other messages are cut to 1,000 characters (a
 * GraphQL coercion error quotes the value it refused, whatever it holds).
 */
function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error).slice(0, 1000) };
  const withheld = error.name.startsWith('PrismaClient') || error.name === 'DriverAdapterError';
  const frames = (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).join('\n');
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    code: typeof code === 'string' || typeof code === 'number' ? code : undefined,
    message: withheld ? '[withheld: may quote query values]' : error.message.slice(0, 1000),
    stack: frames,
  };
}

/** The configuration's secrets as they could appear in a line: whole URLs, their passwords, keys. */
function secretsOf(config: Partial<Config>): string[] {
  const found: string[] = [];
  const url = (value: string | undefined) => {
    if (!value) return;
    found.push(value);
    try {
      const password = decodeURIComponent(new URL(value).password);
      if (password) found.push(password, encodeURIComponent(password));
    } catch {
      // not a URL: the whole value is enough
    }
  };
  url(config.databaseUrl);
  url(config.redisUrl);
  url(config.mail?.smtpUrl);
  if (config.scheduledActions?.cronSecret) found.push(config.scheduledActions.cronSecret);
  if (config.webhooks?.secretKey) found.push(config.webhooks.secretKey.toString('hex'), config.webhooks.secretKey.toString('base64'));
  const storage = config.media?.storage;
  if (storage?.driver === 'hosted-blob') found.push(storage.token);
  if (storage?.driver === 's3' && storage.credentials) found.push(storage.credentials.secretAccessKey);
  // As they appear inside a JSON string, too; short values would redact ordinary words.
  return [...new Set(found.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]))].filter((secret) => secret.length >= 6);
}

/** The app's logger; `destination` (default stdout) lets a test read what would be logged. */
export function createLogger(config: Pick<Config, 'logLevel'> & Partial<Config>, destination?: pino.DestinationStream): Logger {
  const secrets = secretsOf(config);
  const tracing = activeTracing();
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    base: undefined,
    // With traces on, a line written within a span names it (trace_id, span_id): a log line joins its trace.
    ...(tracing && { mixin: tracing.logFields }),
    serializers: { err: serializeError },
    redact: {
      paths: [
        '*.password', '*.passwordHash', '*.token', '*.key', 'headers.authorization', 'headers.cookie', 'headers["x-api-key"]', 'headers["x-cron-secret"]',
        'config', '*.config', 'databaseUrl', '*.databaseUrl', '*.redisUrl', '*.cronSecret', '*.secretKey', '*.smtpUrl', '*.secretAccessKey', '*.clientSecret',
      ],
      censor: '[redacted]',
    },
    // The last line of defence: a configuration secret that reached a line by any other way (a message
    // quoting an object) is replaced before the line is written.
    hooks: secrets.length ? { streamWrite: (line) => secrets.reduce((out, secret) => (out.includes(secret) ? out.split(secret).join('[redacted]') : out), line) } : {},
  };
  return destination ? pino(options, destination) : pino(options);
}
