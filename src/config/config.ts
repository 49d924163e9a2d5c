// The configuration the server runs with: what loadConfig (env.ts) makes of the environment, checked,
// with its defaults and units applied (milliseconds, bytes, absolute paths). Everything but config/
// receives it, or the part it needs, and never reads the environment itself.
import type { MediaConfig } from './media.js';
import type { SignInProvider } from './oidc.js';

/** LOG_LEVEL's values: pino's levels, and `silent`. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The configuration, as loadConfig returns it. */
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
  logLevel: (typeof logLevels)[number];
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
  /** CONSOLE: serve the console (the browser app of console/) at /console (default: on, also in production). */
  console: boolean;
  /** GRAPHQL_INTROSPECTION: answer `__schema`/`__type` queries (default: on, except in production). */
  graphqlIntrospection: boolean;
  shutdownTimeoutMs: number;
  /** Shared state between instances (key revocations, rate-limit counters); absent: this process alone. */
  redisUrl: string | undefined;
  /** The audit trail (src/modules/audit/). */
  audit: {
    /** AUDIT_RETENTION_DAYS: entries older than this are deleted by the audit module's sweep. */
    retentionMs: number;
  };
  /** Subscriptions to entity changes (src/realtime/, src/modules/realtime/). */
  realtime: {
    /** How long events stay replayable for a reconnecting client (Last-Event-ID). */
    replayMs: number;
    /** Open subscriptions per API key, and per anonymous address (IPv6: per /64), on one instance; one more is 429. */
    maxSubscriptions: number;
    /** Open subscriptions per user on one instance, its sessions and API keys together (default: maxSubscriptions); one more is 429. */
    maxSubscriptionsPerUser: number;
    /** Events waiting for one subscriber before it is ended as a slow consumer. */
    bufferEvents: number;
    /** How often open subscriptions' credentials are checked again (logout, revocation, membership). */
    recheckMs: number;
    /** An SSE comment this often keeps proxies from closing an idle stream. */
    heartbeatMs: number;
    /** The longest wait between two batches of changes handed to subscribers (a batch is followed by a wait as long as it took). */
    batchMs: number;
    /** Distinct filters read from the database (not decidable in memory) one user, or one anonymous address, may subscribe with at once on one instance; one more is 429. */
    maxFilterGroups: number;
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
    /** Per client address per minute (IPv6: per /64) for anonymous requests. */
    anonymous: number;
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
  /** Throttling of failed sign-ins and signups, per e-mail and client address, and of second factors per account (auth/sign-in-throttle.ts). */
  signInThrottle: {
    /** Consecutive failed sign-ins for one e-mail from one address before it is refused there. */
    maxFailuresPerAccount: number;
    /** Failed sign-ins from one address (any e-mails) within the window before it is refused. */
    maxFailuresPerIp: number;
    /** Wrong second-factor codes for one account, from any addresses, within the window; past them its codes are refused for a window. */
    maxSecondFactorFailures: number;
    /** Codes tried with one two-factor sign-in challenge; past them the challenge is ended (sign in with the password again). */
    maxCodesPerChallenge: number;
    /** Signup attempts (public and by invitation) from one address within the window. */
    maxSignupsPerIp: number;
    /** Requests for a mailed link (password reset, verification resend) for one e-mail (from any address) within the window. */
    maxMailLinksPerAccount: number;
    /** Requests for a mailed link from one address (any e-mails) within the window. */
    maxMailLinksPerIp: number;
    /** Sign-ins with a provider started from one address within the window (each stores a flow). */
    maxProviderSignInsPerIp: number;
    /** How long failures and signups are counted. */
    windowSeconds: number;
    /** How long sign-ins are refused once a failure limit is reached. */
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
    /** Where the front end lives (APP_URL): provider sign-ins return there. */
    appUrl: string | undefined;
    /**
     * What the links of e-mails start with (`<linkBase>/reset-password?token=…`): APP_URL; else the
     * console's pages (`<PUBLIC_URL>/console`, a path alone without PUBLIC_URL); else PUBLIC_URL. Never
     * the request's Host, which a caller chooses.
     */
    linkBase: string;
  };
  /** Upload rules (MEDIA_CONFIG), where local storage keeps files (UPLOAD_DIR), the storage driver (MEDIA_STORAGE, BLOB_*, S3_*), cached renditions per image (MEDIA_RENDITIONS_PER_SOURCE). */
  media: MediaConfig;
  /** UPLOAD_IDLE_TIMEOUT_SECONDS: a multipart body that sends nothing for this long is abandoned (400). */
  uploadIdleTimeoutMs: number;
};
