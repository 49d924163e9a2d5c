// What each configuration variable means, for the configuration reference (docs/configuration.md,
// written by `npm run generate` from this table and the schemas in env.ts and media.ts; a test fails
// when the page is not what they make). Keyed by the variables the configuration reads: a variable
// missing here or one it does not read is a type error. The default shown is the schema's own unless
// `default` says it better (one that depends on NODE_ENV or on other variables, a list).
import { z } from 'zod';
import { configShape, type ConfigVariable } from './env.js';

interface Entry {
  /** The page's section. */
  section: Section;
  /** What it does, in Markdown. */
  meaning: string;
  /** Shown instead of the schema's default. */
  default?: string;
}

/** The page's sections, in order. */
export const configSections = [
  'Server',
  'Database and Redis',
  'GraphQL',
  'Accounts and sign-in',
  'API keys and rate limits',
  'Teams and plans',
  'Realtime',
  'Scheduled actions',
  'Webhooks',
  'Mail',
  'Media',
] as const;
type Section = (typeof configSections)[number];

export const configReference = {
  // Server
  PORT: { section: "Server", meaning: "HTTP port" },
  HOST: { section: "Server", meaning: "Interface to listen on" },
  NODE_ENV: { section: "Server", meaning: "`development`, `production` or `test`" },
  LOG_LEVEL: { section: "Server", meaning: "`fatal` `error` `warn` `info` `debug` `trace` `silent`" },
  BODY_LIMIT_BYTES: { section: "Server", meaning: "Largest accepted request body" },
  SHUTDOWN_TIMEOUT_MS: { section: "Server", meaning: "On SIGTERM or SIGINT the process exits within this long, whatever hangs: requests in flight get most of it, then their connections are closed, then Redis, storage and the database get what remains (see [deployment](deployment.md))" },
  TRUST_PROXY: { section: "Server", meaning: "Trust `X-Forwarded-For` / `X-Forwarded-Proto` from a reverse proxy" },
  CORS_ORIGINS: { section: "Server", meaning: "Comma-separated browser origins allowed with credentials. Empty: any origin may call without credentials (API keys), none with the cookie" },
  PUBLIC_URL: { section: "Server", default: "(unset: the request's origin)", meaning: "This server's origin as browsers reach it (`https://api.example.com`): the providers' callback URLs are `PUBLIC_URL/api/auth/oidc/<id>/callback`. Set it behind a proxy" },
  APP_URL: { section: "Server", default: "(unset: the console)", meaning: "Front-end base URL for links in e-mails (`<APP_URL>/invitations/<token>`, `<APP_URL>/reset-password?token=…`, `<APP_URL>/verify-email?token=…`; the page posts the token to the API), and where provider sign-ins return (`redirectTo` paths). Unset, the links open the console's pages (`<PUBLIC_URL>/console/…`; a path alone without `PUBLIC_URL`, never the request's host), or this server's origin with `CONSOLE=false`" },
  CONSOLE: { section: "Server", meaning: "Serve the console, the browser app to sign in and manage the platform, at `/console` ([console](console.md)); `false`: not served (404)" },
  METRICS_ENABLED: { section: "Server", meaning: "Serve `GET /metrics` (Prometheus)" },
  METRICS_TOKEN: { section: "Server", meaning: "When set (32 characters or more), `GET /metrics` answers only to `Authorization: Bearer <token>` (compared in constant time; otherwise 401 with `WWW-Authenticate: Bearer`); unset, it is open to whoever reaches it (keep it off the public network)" },
  // Database and Redis
  DATABASE_URL: { section: "Database and Redis", meaning: "PostgreSQL connection string (`postgresql://` or `postgres://`; another scheme stops the server); unset uses embedded PGlite" },
  DATA_DIR: { section: "Database and Redis", meaning: "Where PGlite keeps its files (`$DATA_DIR/pglite`); one process at a time holds it (`pglite.lock`, see [deployment](deployment.md#the-embedded-database-one-process))" },
  DB_POOL_SIZE: { section: "Database and Redis", meaning: "PostgreSQL connection pool size" },
  PGLITE_SHARED_BUFFERS_MB: { section: "Database and Redis", meaning: "Shared buffers of the embedded database, in MiB (1–4096; a PostgreSQL server keeps its own setting). Resident from the start and never handed back (WebAssembly memory only grows): raise it for a large embedded database read more than its buffers hold, at that cost in memory (see [deployment](deployment.md#memory))" },
  REDIS_URL: { section: "Database and Redis", meaning: "`redis://…`: instances share API-key evictions and rate-limit counters. Unset: one instance, in memory. Unreachable: the service keeps running (limits per instance, no key cache) and reconnects by itself" },
  // GraphQL
  GRAPHIQL: { section: "GraphQL", default: "`true`, in production `false`", meaning: "Serve the GraphiQL page at `/graphql` to browsers (`Accept: text/html`)" },
  GRAPHQL_INTROSPECTION: { section: "GraphQL", default: "`true`, in production `false`", meaning: "Answer introspection (`__schema`, `__type`); off, such queries fail validation (GraphiQL then has no schema to explore)" },
  GRAPHQL_MAX_DEPTH: { section: "GraphQL", meaning: "Deepest selection nesting of a `/graphql` operation (see [GraphQL limits](api/README.md#graphql-limits))" },
  GRAPHQL_MAX_ALIASES: { section: "GraphQL", meaning: "Aliased fields in one operation" },
  GRAPHQL_MAX_TOKENS: { section: "GraphQL", meaning: "Tokens in one GraphQL document (100 or more)" },
  GRAPHQL_MAX_COST: { section: "GraphQL", meaning: "Highest cost of an operation (objects it may return, lists weighted by their `limit`)" },
  GRAPHQL_COST_PER_RATE_POINT: { section: "GraphQL", meaning: "A keyed `/graphql` request takes `ceil(cost / this)` points (at least 1) of its key's per-minute limit" },
  // Accounts and sign-in
  SESSION_TTL_HOURS: { section: "Accounts and sign-in", meaning: "Session lifetime (7 days)" },
  COOKIE_SECURE: { section: "Accounts and sign-in", meaning: "`auto` (Secure when the request was HTTPS), `true`, `false`" },
  REQUIRE_EMAIL_VERIFICATION: { section: "Accounts and sign-in", default: "`true` in production, else `false`", meaning: "Public signups get no session until they follow the link mailed to them (needs `SMTP_URL`: without it a warning is logged at start)" },
  EMAIL_VERIFICATION_TTL_HOURS: { section: "Accounts and sign-in", meaning: "How long an e-mail verification link works" },
  PASSWORD_RESET_TTL_MINUTES: { section: "Accounts and sign-in", meaning: "How long a password reset link works (5–1440)" },
  SIGNIN_MAX_FAILURES_PER_ACCOUNT: { section: "Accounts and sign-in", meaning: "Consecutive failed sign-ins for one e-mail from one address before sign-ins for it from there are refused (a success clears them)" },
  SIGNIN_MAX_FAILURES_PER_IP: { section: "Accounts and sign-in", meaning: "Failed sign-ins from one address (any e-mails) within `SIGNIN_WINDOW_SECONDS` before it is refused" },
  SIGNIN_MAX_SECOND_FACTOR_FAILURES: { section: "Accounts and sign-in", meaning: "Wrong second-factor codes (sign-in's second step, confirming or turning off two-factor) for one account, from any addresses, within `SIGNIN_WINDOW_SECONDS`; the attempt past them refuses that account's codes (429) for `SIGNIN_WINDOW_SECONDS`, from every address, the right code too" },
  SIGNIN_MAX_CODES_PER_CHALLENGE: { section: "Accounts and sign-in", meaning: "Codes tried with one two-factor sign-in challenge (1–100); the attempt past them ends the challenge (400 `INVALID_TOKEN`, the right code too): the user signs in with the password again" },
  SIGNUP_MAX_PER_IP: { section: "Accounts and sign-in", meaning: "Signup attempts (public and by invitation) from one address within `SIGNIN_WINDOW_SECONDS`" },
  MAIL_LINK_MAX_PER_EMAIL: { section: "Accounts and sign-in", meaning: "Requests for a mailed link (password reset, verification resend) for one e-mail (any address, account or not) within `SIGNIN_WINDOW_SECONDS`" },
  MAIL_LINK_MAX_PER_IP: { section: "Accounts and sign-in", meaning: "Requests for a mailed link from one address (any e-mails) within `SIGNIN_WINDOW_SECONDS`" },
  PROVIDER_SIGNIN_MAX_PER_IP: { section: "Accounts and sign-in", meaning: "Sign-ins with a provider started from one address within `SIGNIN_WINDOW_SECONDS` (each stores a 10-minute flow); past it, 429" },
  SIGNIN_WINDOW_SECONDS: { section: "Accounts and sign-in", meaning: "How long failed sign-ins, signups and mailed-link requests are counted" },
  SIGNIN_BLOCK_SECONDS: { section: "Accounts and sign-in", meaning: "How long sign-ins are refused (429, `Retry-After`) once a failure limit is reached" },
  TWO_FACTOR_ISSUER: { section: "Accounts and sign-in", meaning: "The name authenticator apps show beside the account" },
  TWO_FACTOR_SECRET_KEY: { section: "Accounts and sign-in", meaning: "32 bytes (64 hex characters or base64) sealing users' TOTP secrets at rest (AES-256-GCM); unset, they are stored unsealed. Set it in production; keep it (secrets sealed under a lost key cannot be opened: turn two-factor off with the CLI)" },
  OIDC_PROVIDERS: { section: "Accounts and sign-in", default: "(unset: none)", meaning: "Sign-in providers, a JSON array. Each: `id` (lower-case, in the callback URL), `clientId`, `clientSecret`, optional `name` (button text) and `trustEmail` (default `false`), and either `issuer` (any OpenID Connect provider, discovered; `scopes` default `openid email profile`) or a `preset`: `google`, `microsoft` (with `tenant`: a tenant id or domain; the multi-tenant `common` endpoint cannot be verified by issuer), `github` (GitHub's OAuth2; `webUrl`/`apiUrl` for GitHub Enterprise). Issuers must be `https://` (`http://` on loopback only). Example: `[{\"id\":\"google\",\"preset\":\"google\",\"clientId\":\"…\",\"clientSecret\":\"…\"}]`" },
  // API keys and rate limits
  API_KEY_ENV: { section: "API keys and rate limits", default: "`live` in production, else `test`", meaning: "Environment of new keys (`sk_live_…` / `sk_test_…`)" },
  API_KEY_CACHE_TTL_SECONDS: { section: "API keys and rate limits", meaning: "How long a verified key is cached (revocation evicts it at once)" },
  API_KEY_USAGE_FLUSH_MS: { section: "API keys and rate limits", meaning: "How often usage counters and `lastUsedAt` are written (one batch)" },
  API_KEY_FAILURE_DELAY_MS: { section: "API keys and rate limits", meaning: "Least time before a failed key validation answers (min 100)" },
  RATE_LIMIT_ENABLED: { section: "API keys and rate limits", meaning: "`false` turns rate limits off" },
  RATE_LIMIT_SCOPES: { section: "API keys and rate limits", meaning: "Per key and scope per minute, for every REST route and GraphQL operation whose fields require the scope (read from their `authScopes`)" },
  RATE_LIMIT_WILDCARD: { section: "API keys and rate limits", meaning: "Per key per minute for keys holding `*`" },
  RATE_LIMIT_TIERS: { section: "API keys and rate limits", meaning: "Per key per minute by the plan of the owner's active team" },
  RATE_LIMIT_SESSION: { section: "API keys and rate limits", meaning: "Per signed-in user per minute (browser sessions); must not be below any key limit (`RATE_LIMIT_WILDCARD`, `RATE_LIMIT_SCOPES`, `RATE_LIMIT_TIERS`)" },
  RATE_LIMIT_ANONYMOUS: { section: "API keys and rate limits", meaning: "Per client address per minute (IPv6: per /64 network) for anonymous requests (REST, `/graphql`, event streams, each graphql-ws connection and operation), shared through Redis as the key limits are. The address is the connection's, or behind `TRUST_PROXY` the proxy's last `X-Forwarded-For` entry" },
  // Teams and plans
  TEAMS_MODE: { section: "Teams and plans", meaning: "`single-user`, `single-tenant` or `multi-tenant` (see [teams](api/teams.md))" },
  ALLOW_CREATE_TEAMS: { section: "Teams and plans", meaning: "In `multi-tenant` mode, whether users may create teams" },
  GLOBAL_TEAM_NAME: { section: "Teams and plans", meaning: "Name of the one team a `single-tenant` deployment's first signup creates" },
  INVITATION_TTL_DAYS: { section: "Teams and plans", meaning: "How long an invitation stays valid" },
  AUDIT_RETENTION_DAYS: { section: "Teams and plans", meaning: "How long entries of the teams' audit log (`GET /api/v1/teams/{teamId}/audit-log`) are kept; older ones are deleted by an hourly sweep (see [data safety](data-safety.md#audit-trail))" },
  PLANS_JSON: { section: "Teams and plans", meaning: "JSON merged over the default plans (limits, names, rate tiers)" },
  // Realtime
  REALTIME_REPLAY_SECONDS: { section: "Realtime", meaning: "How long changes stay in the event log for reconnecting subscribers (`Last-Event-ID`); older ids get a `GAP` event" },
  REALTIME_MAX_SUBSCRIPTIONS: { section: "Realtime", meaning: "Open subscriptions per API key, and per anonymous client address (IPv6: per /64), on one instance; one more is 429" },
  REALTIME_MAX_SUBSCRIPTIONS_PER_USER: { section: "Realtime", default: "`REALTIME_MAX_SUBSCRIPTIONS`", meaning: "Open subscriptions per user on one instance, its sessions and all its API keys together (keys cost nothing to mint: they do not multiply the limit); one more is 429. Set it above `REALTIME_MAX_SUBSCRIPTIONS` to let a user's keys and sessions each have that many" },
  REALTIME_BUFFER_EVENTS: { section: "Realtime", meaning: "Events waiting unread for one subscriber before it is ended as a slow consumer" },
  REALTIME_RECHECK_MS: { section: "Realtime", meaning: "How often open subscriptions' credentials are checked again (logout, revocation, membership)" },
  REALTIME_HEARTBEAT_SECONDS: { section: "Realtime", meaning: "A comment line this often on idle SSE streams, for proxies" },
  REALTIME_MAX_FILTER_GROUPS: { section: "Realtime", meaning: "Distinct filters that are read from the database (case-insensitive text, text order, `search`, relations: see [realtime](api/realtime.md)) one user, or one anonymous client address (IPv6: per /64), may have open subscriptions with at once on one instance; one more is 429. Other filters are decided in memory and cost nothing per filter" },
  REALTIME_BATCH_MS: { section: "Realtime", meaning: "Longest wait between two batches of changes handed to subscribers (each batch is followed by a wait as long as its delivery took, up to this; `0`: none)" },
  // Scheduled actions
  CRON_SECRET: { section: "Scheduled actions", meaning: "Secret of `GET /api/v1/cron/process` (header `x-cron-secret`); unset or shorter than 32 characters: cron is disabled, the route answers 401 saying so, and the server warns once at start" },
  CRON_INTERVAL_SECONDS: { section: "Scheduled actions", meaning: "The server processes a batch of scheduled actions itself this often (1–86400); unset: only when the cron route is called" },
  SCHEDULED_ACTIONS_BATCH_SIZE: { section: "Scheduled actions", meaning: "Actions claimed per batch (1–1000)" },
  SCHEDULED_ACTIONS_RETRY_BASE_SECONDS: { section: "Scheduled actions", meaning: "Linear backoff: attempt n failed → due again after n × this" },
  SCHEDULED_ACTIONS_TIMEOUT_MS: { section: "Scheduled actions", meaning: "Handler timeout" },
  SCHEDULED_ACTIONS_TIMEOUTS: { section: "Scheduled actions", meaning: "Per action type, `type=ms` pairs (`webhook:send=10000,content:publish=5000`)" },
  SCHEDULED_ACTIONS_RECLAIM_GRACE_SECONDS: { section: "Scheduled actions", meaning: "A running action older than its timeout plus this is reclaimed as a failed attempt" },
  SCHEDULED_ACTIONS_RETENTION_DAYS: { section: "Scheduled actions", meaning: "Completed and failed actions are deleted this long after their last change" },
  SCHEDULED_ACTIONS_DEDUP_WINDOW_MS: { section: "Scheduled actions", meaning: "`scheduleAction` merges into a pending action about the same entity scheduled within this" },
  // Webhooks
  WEBHOOKS_ALLOW_PRIVATE: { section: "Webhooks", meaning: "`true` lets webhook endpoints be private, loopback, link-local, unique-local, CGNAT or metadata addresses (checked when saved and at every delivery). Development and tests only" },
  WEBHOOKS_TIMEOUT_MS: { section: "Webhooks", meaning: "One delivery request (connect, send, answer) fails after this long (100–60000); the action's handler timeout (`webhook:send` in `SCHEDULED_ACTIONS_TIMEOUTS`, else 30000) bounds all of an event's requests" },
  WEBHOOKS_SECRET_KEY: { section: "Webhooks", meaning: "32 bytes (64 hex characters or base64): endpoints' signing secrets are stored sealed with AES-256-GCM under it. Unset: stored unsealed (never returned or logged either way). Secrets sealed under a key need that key to be delivered" },
  WEBHOOKS_DELIVERY_RETENTION_DAYS: { section: "Webhooks", meaning: "Delivery log entries older than this are pruned (as new deliveries to the endpoint are recorded)" },
  // Mail
  SMTP_URL: { section: "Mail", meaning: "`smtp(s)://user:pass@host:port` to send e-mail; unset: e-mails are only recorded" },
  MAIL_FROM: { section: "Mail", meaning: "Sender of e-mails" },
  // Media
  UPLOAD_DIR: { section: "Media", meaning: "Where the local storage driver keeps uploaded files (and hosted-blob its fallback files); spool files of every driver in its `.incoming/`" },
  MEDIA_CONFIG: { section: "Media", meaning: "JSON over the upload defaults: `allowedMimeTypes` (`image/jpeg`, `image/png`, `image/gif`, `image/webp`, `image/avif`, `video/mp4`, `video/webm`, `video/quicktime`), `maxSizeMB` (100, any file), `maxSizeImageMB` (10), `maxSizeVideoMB` (100), `maxFiles` (20 per request). Sizes in MiB, fractions allowed, at most 2047" },
  UPLOAD_IDLE_TIMEOUT_SECONDS: { section: "Media", meaning: "A multipart body (REST upload or GraphQL multipart request) that sends no data for this long is abandoned with 400 (1–3600): a file part the `map` names that never arrives is answered, not waited for" },
  MEDIA_STORAGE: { section: "Media", default: "(see meaning)", meaning: "`local`, `hosted-blob` or `s3`. Unset: `hosted-blob` when `BLOB_READ_WRITE_TOKEN` starts with `hosted_blob_`, else `s3` when `S3_BUCKET` is set, else `local`. `S3_*` settings without `S3_BUCKET` (and no `MEDIA_STORAGE=local`) stop the server" },
  BLOB_READ_WRITE_TOKEN: { section: "Media", meaning: "The hosted-blob token (`hosted_blob_…`, sent as a bearer token, never logged). Another kind of token is ignored (local storage) unless `MEDIA_STORAGE=hosted-blob`, which refuses it" },
  BLOB_API_URL: { section: "Media", default: "`http://127.0.0.1:3900`", meaning: "Base http(s) URL of the blob service (files at `<BLOB_API_URL>/uploads/temp/<key>`). A `hosted_blob_` token alone chooses `hosted-blob`, as the contract says; the default is a blob service beside the server (a sidecar), so the token is sent nowhere off the machine until you set this to your service. A service that is unreachable or refuses an upload makes it fall back to local storage" },
  BLOB_TIMEOUT_MS: { section: "Media", meaning: "A blob request that makes no progress for this long fails (the upload falls back to local)" },
  BLOB_RETRY_AFTER_MS: { section: "Media", meaning: "After a failed blob upload, uploads go local for this long without trying the service (`0`: try every time)" },
  S3_BUCKET: { section: "Media", meaning: "Bucket of the `s3` driver; required for it" },
  S3_REGION: { section: "Media", meaning: "Region (`auto` for R2)" },
  S3_ENDPOINT: { section: "Media", meaning: "http(s) URL of an S3-compatible store (MinIO, R2, a local server); unset: AWS" },
  S3_ACCESS_KEY_ID: { section: "Media", meaning: "Access key id, with `S3_SECRET_ACCESS_KEY` (both or neither; neither: the AWS SDK's default chain: `AWS_*` variables, profile, instance role)" },
  S3_SECRET_ACCESS_KEY: { section: "Media", meaning: "Secret access key, with `S3_ACCESS_KEY_ID` (both or neither). Never logged" },
  S3_FORCE_PATH_STYLE: { section: "Media", default: "`true` with `S3_ENDPOINT`, else `false`", meaning: "Path-style requests (`<endpoint>/<bucket>/<key>`) instead of virtual-hosted (`<bucket>.<host>/<key>`)" },
  S3_PUBLIC_URL: { section: "Media", default: "the bucket's URL", meaning: "Base of the files' public URLs (`<S3_PUBLIC_URL>/<key>`), e.g. a CDN. Default: `<S3_ENDPOINT>/<bucket>` (path style), `<bucket>.<endpoint host>`, or `https://<bucket>.s3.<region>.amazonaws.com`" },
  MEDIA_RENDITIONS_PER_SOURCE: { section: "Media", meaning: "Renditions (`GET /api/v1/media/{id}/render`) of one image kept in storage (1–1000); storing one more evicts the oldest. 24 covers a responsive `srcset` of 6–8 widths in 3 formats, so ordinary use never re-renders (see [media](api/media.md), renditions)" },
  MEDIA_ORPHAN_GRACE_MINUTES: { section: "Media", meaning: "The orphan sweep removes a stored file no record refers to (and a leftover spool or partial file) once it is this old (1–43200; see [media](api/media.md), orphan sweep)" },
  MEDIA_ORPHAN_SWEEP_MINUTES: { section: "Media", meaning: "How often each process sweeps after the sweep at start-up (0: only at start-up; at most 43200)" },
} satisfies Record<ConfigVariable, Entry>;

const pageHead = `<!-- Generated by \`npm run generate\` from src/config/reference.ts and the schemas in src/config/env.ts and media.ts: edit those, not this page. -->
# Configuration

Environment variables, read once at start-up. An invalid value stops the server with every problem
listed, naming the variable (never quoting a secret). An empty value counts as unset.`;

const pageFoot = `## Elsewhere

- Traces: the standard \`OTEL_*\` variables, see [observability](observability.md).
- Tests read \`TEST_DATABASE_URL\` (run the suite on PostgreSQL) and \`TEST_REDIS_URL\` (default
  \`redis://127.0.0.1:6379\`, for the tests of several instances); the benchmark reads
  \`BENCH_DATABASE_URL\` (see [benchmarks](benchmarks.md)).`;

/** A schema's default as the page shows it: the value, or "(unset)" for an optional variable. */
function schemaDefault(name: ConfigVariable): string {
  const field = configShape[name];
  if (!(field instanceof z.ZodDefault)) return '(unset)';
  const value: unknown = field.def.defaultValue;
  // A list, or name=number pairs (rate limits, timeouts), as the variable would spell it.
  const spelled = Array.isArray(value) ? value.join(',') : typeof value === 'object' && value !== null ? Object.entries(value).map(([k, v]) => `${k}=${String(v)}`).join(',') : String(value);
  return spelled === '' ? '(empty)' : `\`${spelled}\``;
}

/** docs/configuration.md: every variable by section, with its default and meaning. */
export function configurationPage(): string {
  const entries = Object.entries(configReference) as Array<[ConfigVariable, Entry]>;
  const sections = configSections.map((section) => {
    const rows = entries
      .filter(([, entry]) => entry.section === section)
      .map(([name, entry]) => `| \`${name}\` | ${entry.default ?? schemaDefault(name)} | ${entry.meaning} |`);
    return [`## ${section}`, '', '| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
  });
  return [pageHead, ...sections, pageFoot].join('\n\n') + '\n';
}
