// The environment, parsed once at start-up into a typed, fail-closed configuration. Nothing else in
// the code base reads process.env: it receives a Config (config.ts).
import path from 'node:path';
import { z } from 'zod';
import { logLevels, type Config } from './config.js';
import { defaultRenditionsPerSource, parseMediaConfig, parseStorageConfig, storageEnvSchema } from './media.js';
import { parseSignInProviders } from './oidc.js';

const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const list = z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));
/** `name=number,name=number` → a map (rate limits per scope or tier). */
const limits = z
  .string()
  .regex(/^\s*[\w*:.-]+\s*=\s*\d+\s*(,\s*[\w*:.-]+\s*=\s*\d+\s*)*$/, 'expected name=number pairs separated by commas')
  .transform((v) => Object.fromEntries(v.split(',').map((pair) => pair.split('=').map((s) => s.trim())).map(([k, n]) => [k!, Number(n)])));
const perMinute = z.coerce.number().int().min(1);

/** A sealing key (WEBHOOKS_SECRET_KEY, TWO_FACTOR_SECRET_KEY) as its 32 bytes (64 hex characters, or base64), or null when it is neither. */
function secretKeyBytes(value: string): Buffer | null {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(value) ? Buffer.from(value, 'base64') : null;
  return key?.length === 32 ? key : null;
}

/** An optional sealing key: its 32 bytes, or null when unset. */
const sealingKey = z
  .string()
  .refine((v) => secretKeyBytes(v) !== null, 'expected 32 bytes as 64 hexadecimal characters or base64')
  .transform((v) => secretKeyBytes(v)!)
  .optional()
  .transform((key) => key ?? null);

/**
 * The embedded database's shared buffers unless configured (PGLITE_SHARED_BUFFERS_MB). PGlite's own
 * default, 128 MiB, is resident from the start inside its WebAssembly memory, which never shrinks;
 * 32 MiB keeps a server about 35 MB smaller than 64 and lists 100k tasks at the same CPU per request
 * (measured in docs/deployment.md, Memory: at 16 MiB list queries over them took twice the CPU).
 */
export const defaultPgliteSharedBuffersMb = 32;

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Only PostgreSQL: another scheme (mysql://…) would otherwise be tried as PostgreSQL on its port.
  DATABASE_URL: z.string().url().regex(/^postgres(ql)?:\/\//i, 'expected a PostgreSQL URL (postgresql://user:password@host:5432/db); unset, the embedded database is used').optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(4096).default(defaultPgliteSharedBuffersMb),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 365).default(24 * 7),
  COOKIE_SECURE: z.enum(['auto', 'true', 'false']).default('auto'),
  TRUST_PROXY: flag.default(false),
  CORS_ORIGINS: list.default([]),
  METRICS_ENABLED: flag.default(true),
  METRICS_TOKEN: z.string().min(32, 'must be at least 32 characters (a random secret: openssl rand -hex 32)').optional(),
  GRAPHIQL: flag.optional(),
  CONSOLE: flag.default(true),
  GRAPHQL_INTROSPECTION: flag.optional(),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'expected redis:// or rediss://').optional(),
  API_KEY_ENV: z.enum(['live', 'test']).optional(),
  API_KEY_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(3600).default(300),
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(365),
  REALTIME_REPLAY_SECONDS: z.coerce.number().int().min(0).max(7 * 24 * 3600).default(3600),
  REALTIME_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).max(100_000).default(100),
  REALTIME_MAX_SUBSCRIPTIONS_PER_USER: z.coerce.number().int().min(1).max(1_000_000).optional(),
  REALTIME_BUFFER_EVENTS: z.coerce.number().int().min(1).max(100_000).default(1000),
  REALTIME_RECHECK_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  REALTIME_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
  REALTIME_BATCH_MS: z.coerce.number().int().min(0).max(1000).default(40),
  REALTIME_MAX_FILTER_GROUPS: z.coerce.number().int().min(1).max(10_000).default(10),
  API_KEY_USAGE_FLUSH_MS: z.coerce.number().int().min(10).default(5_000),
  API_KEY_FAILURE_DELAY_MS: z.coerce.number().int().min(100).default(100),
  RATE_LIMIT_ENABLED: flag.default(true),
  RATE_LIMIT_SCOPES: limits.default({ 'tasks:read': 1000, 'tasks:write': 500, 'tasks:delete': 100 }),
  RATE_LIMIT_WILDCARD: perMinute.default(10_000),
  RATE_LIMIT_TIERS: limits.default({ free: 60, pro: 300, enterprise: 1000 }),
  // Above the highest key limit (RATE_LIMIT_WILDCARD's 10000): the contract's "higher than key limits".
  RATE_LIMIT_SESSION: perMinute.default(20_000),
  RATE_LIMIT_ANONYMOUS: perMinute.default(600),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).max(100).default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).max(1000).default(15),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).max(1_000_000).default(2000),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(5000),
  GRAPHQL_COST_PER_RATE_POINT: z.coerce.number().int().min(1).default(200),
  SIGNIN_MAX_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).default(10),
  SIGNIN_MAX_FAILURES_PER_IP: z.coerce.number().int().min(1).default(100),
  SIGNIN_MAX_SECOND_FACTOR_FAILURES: z.coerce.number().int().min(1).default(10),
  SIGNIN_MAX_CODES_PER_CHALLENGE: z.coerce.number().int().min(1).max(100).default(5),
  SIGNUP_MAX_PER_IP: z.coerce.number().int().min(1).default(30),
  MAIL_LINK_MAX_PER_EMAIL: z.coerce.number().int().min(1).default(5),
  MAIL_LINK_MAX_PER_IP: z.coerce.number().int().min(1).default(30),
  PROVIDER_SIGNIN_MAX_PER_IP: z.coerce.number().int().min(1).default(300),
  REQUIRE_EMAIL_VERIFICATION: flag.optional(),
  TWO_FACTOR_ISSUER: z.string().trim().min(1).max(100).default('Platform'),
  TWO_FACTOR_SECRET_KEY: sealingKey,
  EMAIL_VERIFICATION_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 30).default(48),
  PASSWORD_RESET_TTL_MINUTES: z.coerce.number().int().min(5).max(24 * 60).default(30),
  SIGNIN_WINDOW_SECONDS: z.coerce.number().int().min(1).max(30 * 86_400).default(3600),
  SIGNIN_BLOCK_SECONDS: z.coerce.number().int().min(1).max(30 * 86_400).default(900),
  TEAMS_MODE: z.enum(['single-user', 'single-tenant', 'multi-tenant']).default('multi-tenant'),
  ALLOW_CREATE_TEAMS: flag.default(true),
  GLOBAL_TEAM_NAME: z.string().trim().min(2).max(100).default('Team'),
  INVITATION_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(7),
  CRON_SECRET: z.string().optional(),
  CRON_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).optional(),
  SCHEDULED_ACTIONS_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  SCHEDULED_ACTIONS_RETRY_BASE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  SCHEDULED_ACTIONS_TIMEOUT_MS: z.coerce.number().int().min(1).max(3_600_000).default(30_000),
  SCHEDULED_ACTIONS_TIMEOUTS: limits.default({}),
  SCHEDULED_ACTIONS_RECLAIM_GRACE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  SCHEDULED_ACTIONS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
  SCHEDULED_ACTIONS_DEDUP_WINDOW_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  WEBHOOKS_ALLOW_PRIVATE: flag.default(false),
  WEBHOOKS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOKS_SECRET_KEY: sealingKey,
  WEBHOOKS_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'expected smtp:// or smtps://').optional(),
  MAIL_FROM: z.string().min(3).default('Platform <no-reply@localhost>'),
  APP_URL: z.string().url().optional(),
  PUBLIC_URL: z.string().url().regex(/^https?:\/\/[^/?#]+\/?$/, 'expected an origin such as https://api.example.com (no path)').optional(),
  OIDC_PROVIDERS: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      try {
        parseSignInProviders(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^OIDC_PROVIDERS: /, '') });
      }
    }),
  PLANS_JSON: z.string().optional(),
  UPLOAD_DIR: z.string().min(1).default('./.data/uploads'),
  MEDIA_RENDITIONS_PER_SOURCE: z.coerce.number().int().min(1).max(1000).default(defaultRenditionsPerSource),
  MEDIA_ORPHAN_GRACE_MINUTES: z.coerce.number().int().min(1).max(43_200).default(60),
  MEDIA_ORPHAN_SWEEP_MINUTES: z.coerce.number().int().min(0).max(43_200).default(60),
  UPLOAD_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  MEDIA_CONFIG: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      try {
        parseMediaConfig(value, '.');
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^MEDIA_CONFIG: /, '') });
      }
    }),
}).superRefine((e, ctx) => {
  // A signed-in user must never be throttled before the keys they mint (contract: "higher than key limits").
  const keyLimits = [e.RATE_LIMIT_WILDCARD, ...Object.values(e.RATE_LIMIT_SCOPES), ...Object.values(e.RATE_LIMIT_TIERS)];
  const highest = Math.max(...keyLimits);
  if (e.RATE_LIMIT_SESSION < highest) ctx.addIssue({ code: 'custom', path: ['RATE_LIMIT_SESSION'], message: `must not be below the highest key limit (${highest} per minute)` });
});

/** Every variable the configuration reads, with its schema (docs/configuration.md lists each). */
export const configShape = { ...envSchema.shape, ...storageEnvSchema.shape };
export type ConfigVariable = keyof typeof configShape;

/** Parses an environment (process.env by default) into a Config, or throws with every problem listed. */
/** Where e-mails' links point (Config.mail.linkBase): the app, else the console, else this server. */
function mailLinkBase(e: { APP_URL?: string; PUBLIC_URL?: string; CONSOLE: boolean }): string {
  if (e.APP_URL) return e.APP_URL.replace(/\/+$/, '');
  const origin = e.PUBLIC_URL?.replace(/\/+$/, '') ?? '';
  return e.CONSOLE ? `${origin}/console` : origin;
}

export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  // Storage settings depend on each other: checked apart (src/config/media.ts), listed with the rest.
  const storage = parseStorageConfig(cleaned);
  if (!parsed.success || !storage.storage) {
    const problems = [...(parsed.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? []), ...storage.problems].join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    dbPoolSize: e.DB_POOL_SIZE,
    pgliteSharedBuffersMb: e.PGLITE_SHARED_BUFFERS_MB,
    logLevel: e.LOG_LEVEL,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    sessionTtlMs: e.SESSION_TTL_HOURS * 3_600_000,
    passwordResetTtlMs: e.PASSWORD_RESET_TTL_MINUTES * 60_000,
    requireEmailVerification: e.REQUIRE_EMAIL_VERIFICATION ?? e.NODE_ENV === 'production',
    emailVerificationTtlMs: e.EMAIL_VERIFICATION_TTL_HOURS * 3_600_000,
    twoFactor: { issuer: e.TWO_FACTOR_ISSUER, secretKey: e.TWO_FACTOR_SECRET_KEY },
    signIn: { providers: parseSignInProviders(e.OIDC_PROVIDERS), publicUrl: e.PUBLIC_URL?.replace(/\/$/, '') },
    cookieSecure: e.COOKIE_SECURE === 'auto' ? 'auto' : e.COOKIE_SECURE === 'true',
    trustProxy: e.TRUST_PROXY,
    corsOrigins: e.CORS_ORIGINS,
    metricsEnabled: e.METRICS_ENABLED,
    metricsToken: e.METRICS_TOKEN ?? null,
    graphiql: e.GRAPHIQL ?? e.NODE_ENV !== 'production',
    console: e.CONSOLE,
    graphqlIntrospection: e.GRAPHQL_INTROSPECTION ?? e.NODE_ENV !== 'production',
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
    audit: { retentionMs: e.AUDIT_RETENTION_DAYS * 86_400_000 },
    realtime: {
      replayMs: e.REALTIME_REPLAY_SECONDS * 1000,
      maxSubscriptions: e.REALTIME_MAX_SUBSCRIPTIONS,
      maxSubscriptionsPerUser: e.REALTIME_MAX_SUBSCRIPTIONS_PER_USER ?? e.REALTIME_MAX_SUBSCRIPTIONS,
      bufferEvents: e.REALTIME_BUFFER_EVENTS,
      recheckMs: e.REALTIME_RECHECK_MS,
      heartbeatMs: e.REALTIME_HEARTBEAT_SECONDS * 1000,
      batchMs: e.REALTIME_BATCH_MS,
      maxFilterGroups: e.REALTIME_MAX_FILTER_GROUPS,
    },
    apiKeys: {
      environment: e.API_KEY_ENV ?? (e.NODE_ENV === 'production' ? 'live' : 'test'),
      cacheTtlMs: e.API_KEY_CACHE_TTL_SECONDS * 1000,
      usageFlushMs: e.API_KEY_USAGE_FLUSH_MS,
      failureDelayMs: e.API_KEY_FAILURE_DELAY_MS,
    },
    rateLimit: {
      enabled: e.RATE_LIMIT_ENABLED,
      scopes: e.RATE_LIMIT_SCOPES,
      wildcard: e.RATE_LIMIT_WILDCARD,
      tiers: e.RATE_LIMIT_TIERS,
      session: e.RATE_LIMIT_SESSION,
      anonymous: e.RATE_LIMIT_ANONYMOUS,
    },
    graphqlLimits: {
      maxDepth: e.GRAPHQL_MAX_DEPTH,
      maxAliases: e.GRAPHQL_MAX_ALIASES,
      maxTokens: e.GRAPHQL_MAX_TOKENS,
      maxCost: e.GRAPHQL_MAX_COST,
      costPerRatePoint: e.GRAPHQL_COST_PER_RATE_POINT,
    },
    signInThrottle: {
      maxFailuresPerAccount: e.SIGNIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerIp: e.SIGNIN_MAX_FAILURES_PER_IP,
      maxSecondFactorFailures: e.SIGNIN_MAX_SECOND_FACTOR_FAILURES,
      maxCodesPerChallenge: e.SIGNIN_MAX_CODES_PER_CHALLENGE,
      maxSignupsPerIp: e.SIGNUP_MAX_PER_IP,
      maxMailLinksPerAccount: e.MAIL_LINK_MAX_PER_EMAIL,
      maxMailLinksPerIp: e.MAIL_LINK_MAX_PER_IP,
      maxProviderSignInsPerIp: e.PROVIDER_SIGNIN_MAX_PER_IP,
      windowSeconds: e.SIGNIN_WINDOW_SECONDS,
      blockSeconds: e.SIGNIN_BLOCK_SECONDS,
    },
    teams: {
      mode: e.TEAMS_MODE,
      allowCreateTeams: e.ALLOW_CREATE_TEAMS,
      globalTeamName: e.GLOBAL_TEAM_NAME,
      invitationTtlMs: e.INVITATION_TTL_DAYS * 86_400_000,
      plansJson: e.PLANS_JSON,
    },
    scheduledActions: {
      cronSecret: e.CRON_SECRET,
      intervalMs: e.CRON_INTERVAL_SECONDS === undefined ? undefined : e.CRON_INTERVAL_SECONDS * 1000,
      batchSize: e.SCHEDULED_ACTIONS_BATCH_SIZE,
      retryBaseMs: e.SCHEDULED_ACTIONS_RETRY_BASE_SECONDS * 1000,
      timeoutMs: e.SCHEDULED_ACTIONS_TIMEOUT_MS,
      timeouts: e.SCHEDULED_ACTIONS_TIMEOUTS,
      reclaimGraceMs: e.SCHEDULED_ACTIONS_RECLAIM_GRACE_SECONDS * 1000,
      retentionMs: e.SCHEDULED_ACTIONS_RETENTION_DAYS * 86_400_000,
      dedupWindowMs: e.SCHEDULED_ACTIONS_DEDUP_WINDOW_MS,
    },
    webhooks: {
      allowPrivate: e.WEBHOOKS_ALLOW_PRIVATE,
      timeoutMs: e.WEBHOOKS_TIMEOUT_MS,
      secretKey: e.WEBHOOKS_SECRET_KEY,
      deliveryRetentionMs: e.WEBHOOKS_DELIVERY_RETENTION_DAYS * 86_400_000,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, appUrl: e.APP_URL, linkBase: mailLinkBase(e) },
    media: parseMediaConfig(e.MEDIA_CONFIG, path.resolve(e.UPLOAD_DIR), storage.storage, e.MEDIA_RENDITIONS_PER_SOURCE, {
      graceMs: e.MEDIA_ORPHAN_GRACE_MINUTES * 60_000,
      intervalMs: e.MEDIA_ORPHAN_SWEEP_MINUTES * 60_000,
    }),
    uploadIdleTimeoutMs: e.UPLOAD_IDLE_TIMEOUT_SECONDS * 1000,
  };
}
