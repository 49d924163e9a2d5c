// The environment, parsed once at start-up into a typed, fail-closed configuration. Nothing else in
// the code base reads process.env: it receives a Config.
import path from 'node:path';
import { z } from 'zod';
import { defaultRenditionsPerSource, parseMediaConfig, parseStorageConfig, storageEnvSchema, type MediaConfig } from './media.js';
import { parseSignInProviders, type SignInProvider } from './oidc.js';

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
 * 64 MiB keeps a server 60–90 MB smaller and still holds the working set of 100k tasks (measured in
 * docs/deployment.md, Memory: at 16 MiB list queries over them took twice the CPU).
 */
export const defaultPgliteSharedBuffersMb = 64;

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Only PostgreSQL: another scheme (mysql://…) would otherwise be tried as PostgreSQL on its port.
  DATABASE_URL: z.string().url().regex(/^postgres(ql)?:\/\//i, 'expected a PostgreSQL URL (postgresql://user:password@host:5432/db); unset, the embedded database is used').optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(4096).default(defaultPgliteSharedBuffersMb),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 365).default(24 * 7),
  COOKIE_SECURE: z.enum(['auto', 'true', 'false']).default('auto'),
  TRUST_PROXY: flag.default(false),
  CORS_ORIGINS: list.default([]),
  METRICS_ENABLED: flag.default(true),
  METRICS_TOKEN: z.string().min(32, 'must be at least 32 characters (a random secret: openssl rand -hex 32)').optional(),
  GRAPHIQL: flag.optional(),
  GRAPHQL_INTROSPECTION: flag.optional(),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'expected redis:// or rediss://').optional(),
  API_KEY_ENV: z.enum(['live', 'test']).optional(),
  API_KEY_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(3600).default(300),
  REALTIME_REPLAY_SECONDS: z.coerce.number().int().min(0).max(7 * 24 * 3600).default(3600),
  REALTIME_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).max(100_000).default(100),
  REALTIME_BUFFER_EVENTS: z.coerce.number().int().min(1).max(100_000).default(1000),
  REALTIME_RECHECK_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  REALTIME_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(3600).default(15),
  REALTIME_BATCH_MS: z.coerce.number().int().min(0).max(1000).default(40),
  API_KEY_USAGE_FLUSH_MS: z.coerce.number().int().min(10).default(5_000),
  API_KEY_FAILURE_DELAY_MS: z.coerce.number().int().min(100).default(100),
  RATE_LIMIT_ENABLED: flag.default(true),
  RATE_LIMIT_SCOPES: limits.default({ 'tasks:read': 1000, 'tasks:write': 500, 'tasks:delete': 100 }),
  RATE_LIMIT_WILDCARD: perMinute.default(10_000),
  RATE_LIMIT_TIERS: limits.default({ free: 60, pro: 300, enterprise: 1000 }),
  // Above the highest key limit (RATE_LIMIT_WILDCARD's 10000): the contract's "higher than key limits".
  RATE_LIMIT_SESSION: perMinute.default(20_000),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).max(100).default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).max(1000).default(15),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).max(1_000_000).default(2000),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(5000),
  GRAPHQL_COST_PER_RATE_POINT: z.coerce.number().int().min(1).default(200),
  SIGNIN_MAX_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).default(10),
  SIGNIN_MAX_FAILURES_PER_IP: z.coerce.number().int().min(1).default(100),
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

export type Config = {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /** PostgreSQL connection string; when absent the embedded PGlite database under dataDir is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  dbPoolSize: number;
  /** PGLITE_SHARED_BUFFERS_MB: the embedded database's shared buffers, in MiB. */
  pgliteSharedBuffersMb: number;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  bodyLimitBytes: number;
  sessionTtlMs: number;
  /** How long a password reset link works. */
  passwordResetTtlMs: number;
  /** REQUIRE_EMAIL_VERIFICATION: public signups verify their e-mail by a mailed link before they can sign in (default: in production). */
  requireEmailVerification: boolean;
  /** How long an e-mail verification link works. */
  emailVerificationTtlMs: number;
  twoFactor: {
    /** The name authenticator apps show beside the account. */
    issuer: string;
    /** AES-256-GCM key sealing users' TOTP secrets at rest; null: stored unsealed. */
    secretKey: Buffer | null;
  };
  /** Sign-in with OpenID Connect (and GitHub's OAuth2) providers: OIDC_PROVIDERS; none configured by default. */
  signIn: {
    providers: SignInProvider[];
    /** PUBLIC_URL: this server's origin as browsers reach it (the providers' callback URLs); unset: the request's own. */
    publicUrl: string | undefined;
  };
  /** 'auto' marks the session cookie Secure when the request arrived over HTTPS. */
  cookieSecure: 'auto' | boolean;
  /** Trust X-Forwarded-For / X-Forwarded-Proto from a reverse proxy. */
  trustProxy: boolean;
  /** Browser origins allowed to call with credentials; empty means any origin, without credentials. */
  corsOrigins: string[];
  metricsEnabled: boolean;
  /** METRICS_TOKEN: when set, GET /metrics answers only to `Authorization: Bearer <token>`. */
  metricsToken: string | null;
  /** GRAPHIQL: serve the GraphiQL page at /graphql to browsers (default: on, except in production). */
  graphiql: boolean;
  /** GRAPHQL_INTROSPECTION: answer `__schema`/`__type` queries (default: on, except in production). */
  graphqlIntrospection: boolean;
  shutdownTimeoutMs: number;
  /** Shared state between instances (key revocations, rate-limit counters); absent: this process alone. */
  redisUrl: string | undefined;
  /** Subscriptions to entity changes (src/realtime/, src/modules/realtime/). */
  realtime: {
    /** How long events stay replayable for a reconnecting client (Last-Event-ID). */
    replayMs: number;
    /** Open subscriptions per user (or API key) on one instance; one more is 429. */
    maxSubscriptions: number;
    /** Events waiting for one subscriber before it is ended as a slow consumer. */
    bufferEvents: number;
    /** How often open subscriptions' credentials are checked again (logout, revocation, membership). */
    recheckMs: number;
    /** An SSE comment this often keeps proxies from closing an idle stream. */
    heartbeatMs: number;
    /** The longest wait between two batches of changes handed to subscribers (a batch is followed by a wait as long as it took). */
    batchMs: number;
  };
  apiKeys: {
    /** `live` or `test`: the environment new keys are minted for (`sk_<env>_…`). */
    environment: 'live' | 'test';
    cacheTtlMs: number;
    usageFlushMs: number;
    /** Every failed key validation answers after at least this long (contract: 100 ms). */
    failureDelayMs: number;
  };
  rateLimit: {
    enabled: boolean;
    /** Per key per minute for requests whose operation requires the scope. */
    scopes: Record<string, number>;
    /** Per key per minute for keys holding `*` (when no scope limit applies). */
    wildcard: number;
    /** Per key per minute by the plan of the key owner's active team. */
    tiers: Record<string, number>;
    /** Per user per minute for browser sessions. */
    session: number;
  };
  /** Operation limits on /graphql (graphql/limits.ts), and how much of a key's rate limit a request's cost takes. */
  graphqlLimits: {
    maxDepth: number;
    maxAliases: number;
    maxTokens: number;
    maxCost: number;
    /** A keyed /graphql request takes ceil(cost / this) points (at least 1) of its per-minute limit. */
    costPerRatePoint: number;
  };
  /** Throttling of failed sign-ins and signups, per e-mail and client address (auth/sign-in-throttle.ts). */
  signInThrottle: {
    maxFailuresPerAccount: number;
    maxFailuresPerIp: number;
    maxSignupsPerIp: number;
    maxMailLinksPerAccount: number;
    maxMailLinksPerIp: number;
    maxProviderSignInsPerIp: number;
    windowSeconds: number;
    blockSeconds: number;
  };
  teams: {
    mode: 'single-user' | 'single-tenant' | 'multi-tenant';
    allowCreateTeams: boolean;
    /** Name of the one team of a single-tenant deployment (created by the first signup). */
    globalTeamName: string;
    invitationTtlMs: number;
    /** Plan overrides (JSON, merged over the defaults of src/modules/teams/plans.ts). */
    plansJson: string | undefined;
  };
  scheduledActions: {
    /** CRON_SECRET: the cron route's shared secret; it refuses to run (503) when unset or under 32 characters. */
    cronSecret: string | undefined;
    /** CRON_INTERVAL_SECONDS: the server processes a batch itself this often; undefined: only when the route is called. */
    intervalMs: number | undefined;
    batchSize: number;
    /** A failed attempt n runs again after n × this (linear backoff). */
    retryBaseMs: number;
    /** Handler timeout, unless `timeouts` names the action type. */
    timeoutMs: number;
    timeouts: Record<string, number>;
    /** A running action older than its timeout plus this was left by a dead process: reclaimed as a failed attempt. */
    reclaimGraceMs: number;
    /** Completed and failed actions are deleted this long after they finished. */
    retentionMs: number;
    /** scheduleAction merges into a pending action about the same entity scheduled within this of the new one. */
    dedupWindowMs: number;
  };
  webhooks: {
    /** WEBHOOKS_ALLOW_PRIVATE: endpoints may be private, loopback, link-local… addresses (development and tests only). */
    allowPrivate: boolean;
    /** One delivery request (connect, send, answer) fails after this long. */
    timeoutMs: number;
    /** AES-256-GCM key sealing the endpoints' signing secrets at rest; null: stored unsealed. */
    secretKey: Buffer | null;
    /** Delivery log entries older than this are pruned. */
    deliveryRetentionMs: number;
  };
  mail: {
    /** smtp(s)://… to send e-mail; unset: e-mails are recorded in the outbox and not sent. */
    smtpUrl: string | undefined;
    from: string;
    /** Where the front end lives, for links in e-mails (invitation accept page). */
    appUrl: string | undefined;
  };
  /** Upload rules (MEDIA_CONFIG), where local storage keeps files (UPLOAD_DIR), the storage driver (MEDIA_STORAGE, BLOB_*, S3_*), cached renditions per image (MEDIA_RENDITIONS_PER_SOURCE). */
  media: MediaConfig;
  /** UPLOAD_IDLE_TIMEOUT_SECONDS: a multipart body that sends nothing for this long is abandoned (400). */
  uploadIdleTimeoutMs: number;
};

/** Every variable the configuration reads, with its schema (docs/configuration.md lists each). */
export const configShape = { ...envSchema.shape, ...storageEnvSchema.shape };
export type ConfigVariable = keyof typeof configShape;

/** Parses an environment (process.env by default) into a Config, or throws with every problem listed. */
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
    graphqlIntrospection: e.GRAPHQL_INTROSPECTION ?? e.NODE_ENV !== 'production',
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
    realtime: {
      replayMs: e.REALTIME_REPLAY_SECONDS * 1000,
      maxSubscriptions: e.REALTIME_MAX_SUBSCRIPTIONS,
      bufferEvents: e.REALTIME_BUFFER_EVENTS,
      recheckMs: e.REALTIME_RECHECK_MS,
      heartbeatMs: e.REALTIME_HEARTBEAT_SECONDS * 1000,
      batchMs: e.REALTIME_BATCH_MS,
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
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, appUrl: e.APP_URL },
    media: parseMediaConfig(e.MEDIA_CONFIG, path.resolve(e.UPLOAD_DIR), storage.storage, e.MEDIA_RENDITIONS_PER_SOURCE, {
      graceMs: e.MEDIA_ORPHAN_GRACE_MINUTES * 60_000,
      intervalMs: e.MEDIA_ORPHAN_SWEEP_MINUTES * 60_000,
    }),
    uploadIdleTimeoutMs: e.UPLOAD_IDLE_TIMEOUT_SECONDS * 1000,
  };
}
