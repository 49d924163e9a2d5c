// The media library's upload rules, from the MEDIA_CONFIG environment variable: a JSON object merged
// over the defaults below (unknown keys and bad values stop the server, like any other setting); and
// where uploads are stored (MEDIA_STORAGE, BLOB_*, S3_*), chosen and checked once here.
import { z } from 'zod';

const megabytes = z.number().positive().max(2047, 'must be at most 2047 (file sizes are 32-bit integers)');

const mediaConfigSchema = z.strictObject({
  /** Types a file's content may be detected as (magic bytes); anything else is refused. */
  allowedMimeTypes: z.array(z.string().regex(/^[a-z]+\/[a-z0-9.+-]+$/, 'must be a MIME type such as image/png')).min(1),
  /** Largest file of any type. */
  maxSizeMB: megabytes,
  /** Largest image (image/*); the smaller of this and maxSizeMB applies. */
  maxSizeImageMB: megabytes,
  /** Largest video (video/*); the smaller of this and maxSizeMB applies. */
  maxSizeVideoMB: megabytes,
  /** Most files in one upload request. */
  maxFiles: z.number().int().min(1).max(100),
});

export type MediaConfigJson = z.infer<typeof mediaConfigSchema>;

export const defaultMediaConfig: MediaConfigJson = {
  allowedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'video/mp4', 'video/webm', 'video/quicktime'],
  maxSizeMB: 100,
  maxSizeImageMB: 10,
  maxSizeVideoMB: 100,
  maxFiles: 20,
};

/**
 * How many renditions (render.ts) of one image stay cached in storage; storing one more evicts the
 * oldest. 24 holds what front ends ask of one image: a responsive `srcset` of 6 to 8 widths in 3
 * formats (AVIF, WebP, a JPEG fallback) is 18 to 24 renditions, so legitimate use does not churn (an
 * evicted rendition asked for again is rendered again: up to 3 s of CPU for AVIF), while a caller
 * enumerating parameters only ever replaces the same 24 files. A rendition is never larger than its
 * source in pixels and is usually much smaller in bytes (tens to hundreds of kB at web sizes).
 */
export const defaultRenditionsPerSource = 24;

export interface MediaConfig {
  allowedMimeTypes: readonly string[];
  maxSizeBytes: number;
  maxImageBytes: number;
  maxVideoBytes: number;
  maxFiles: number;
  /** Where the local storage driver keeps files (absolute); also spool files and hosted-blob's fallback. */
  uploadDir: string;
  /** The storage driver for uploads and its settings. */
  storage: StorageConfig;
  /** MEDIA_RENDITIONS_PER_SOURCE: renditions of one image kept in storage; one more evicts the oldest. */
  renditionsPerSource: number;
  /** The orphan sweep (src/modules/media/sweep.ts). */
  orphans: OrphanSweepConfig;
}

export interface OrphanSweepConfig {
  /** MEDIA_ORPHAN_GRACE_MINUTES: a stored file no record refers to is removed once it is this old. */
  graceMs: number;
  /** MEDIA_ORPHAN_SWEEP_MINUTES: how often the sweep runs after the one at start-up; 0: only at start-up. */
  intervalMs: number;
}

/** An hour each: far beyond an upload's commit, and soon enough for what a crash leaves behind. */
export const defaultOrphanSweep: OrphanSweepConfig = { graceMs: 3_600_000, intervalMs: 3_600_000 };

const mb = (value: number) => Math.floor(value * 1024 * 1024);

/** MEDIA_CONFIG (JSON, optional) over the defaults; throws with every problem listed. */
export function parseMediaConfig(
  json: string | undefined,
  uploadDir: string,
  storage: StorageConfig = { driver: 'local' },
  renditionsPerSource = defaultRenditionsPerSource,
  orphans: OrphanSweepConfig = defaultOrphanSweep,
): MediaConfig {
  let raw: unknown = {};
  if (json !== undefined) {
    try {
      raw = JSON.parse(json);
    } catch {
      throw new Error('MEDIA_CONFIG: not valid JSON');
    }
  }
  const parsed = mediaConfigSchema.partial().safeParse(raw);
  if (!parsed.success) throw new Error(`MEDIA_CONFIG: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  const c = { ...defaultMediaConfig, ...parsed.data };
  return {
    allowedMimeTypes: c.allowedMimeTypes,
    maxSizeBytes: mb(c.maxSizeMB),
    maxImageBytes: Math.min(mb(c.maxSizeImageMB), mb(c.maxSizeMB)),
    maxVideoBytes: Math.min(mb(c.maxSizeVideoMB), mb(c.maxSizeMB)),
    maxFiles: c.maxFiles,
    uploadDir,
    storage,
    renditionsPerSource,
    orphans,
  };
}

// ---- storage -------------------------------------------------------------------------------------

/** Where uploads go. Secrets (the blob token, the S3 secret key) are here only to be sent, never logged. */
export type StorageConfig =
  | { driver: 'local' }
  | {
      driver: 'hosted-blob';
      /** Base of the blob API: files are PUT/GET/DELETE at `<apiUrl>/uploads/temp/<key>`. */
      apiUrl: string;
      token: string;
      /** A blob request with no progress for this long fails (and the upload falls back to local). */
      timeoutMs: number;
      /** After a failed blob upload, uploads go straight to local storage for this long. */
      retryAfterMs: number;
    }
  | {
      driver: 's3';
      bucket: string;
      region: string;
      /** An S3-compatible endpoint (MinIO, R2, a local server); absent: AWS. */
      endpoint: string | undefined;
      /** Absent: the AWS SDK's default credential chain (environment, profile, instance role). */
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      forcePathStyle: boolean;
      /** Base of the public URLs of stored files: `<publicUrl>/<key>`. */
      publicUrl: string;
    };

/** The prefix that makes BLOB_READ_WRITE_TOKEN a hosted-blob token (contract). */
export const hostedBlobTokenPrefix = 'hosted_blob_';

/**
 * The blob service hosted-blob storage talks to when BLOB_API_URL is not set: one beside the server on
 * this machine (a sidecar), so the token is never sent off the machine unless an operator says where.
 * The contract chooses the driver by the token alone; an unreachable or refusing service makes uploads
 * fall back to local storage (storage-hosted-blob.ts), so a missing service costs a warning, not an outage.
 */
export const defaultBlobApiUrl = 'http://127.0.0.1:3900';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
export const storageEnvSchema = z.object({
  MEDIA_STORAGE: z.enum(['local', 'hosted-blob', 's3']).optional(),
  BLOB_READ_WRITE_TOKEN: z.string().optional(),
  BLOB_API_URL: httpUrl.optional(),
  BLOB_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  BLOB_RETRY_AFTER_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name (3-63 characters: a-z, 0-9, dots and hyphens)').optional(),
  S3_REGION: z.string().regex(/^[a-z0-9-]+$/, 'must be a region name such as us-east-1').default('us-east-1'),
  S3_ENDPOINT: httpUrl.optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1').optional(),
  S3_PUBLIC_URL: httpUrl.optional(),
});

/** The storage environment variables. */
const storageEnvNames = Object.keys(storageEnvSchema.shape);

/**
 * Chooses the storage driver from the environment: MEDIA_STORAGE when set, else hosted-blob when
 * BLOB_READ_WRITE_TOKEN starts with `hosted_blob_` (BLOB_API_URL defaults to defaultBlobApiUrl), else
 * s3 when S3_BUCKET is set, else local.
 * Returns the configuration or every problem (messages name variables, never quote secrets).
 */
export function parseStorageConfig(env: Record<string, string | undefined>): { storage: StorageConfig; problems: [] } | { storage: null; problems: string[] } {
  const parsed = storageEnvSchema.safeParse(env);
  // zod's messages for these fields never include the value, so a secret cannot leak through them.
  if (!parsed.success) return { storage: null, problems: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
  const e = parsed.data;
  const blobToken = e.BLOB_READ_WRITE_TOKEN?.startsWith(hostedBlobTokenPrefix) ? e.BLOB_READ_WRITE_TOKEN : undefined;
  const driver = e.MEDIA_STORAGE ?? (blobToken ? 'hosted-blob' : e.S3_BUCKET ? 's3' : 'local');
  const problems: string[] = [];
  if (driver === 'hosted-blob') {
    if (!blobToken) return { storage: null, problems: [`BLOB_READ_WRITE_TOKEN: hosted-blob storage needs a token starting with ${hostedBlobTokenPrefix}`] };
    const apiUrl = (e.BLOB_API_URL ?? defaultBlobApiUrl).replace(/\/+$/, '');
    return { storage: { driver, apiUrl, token: blobToken, timeoutMs: e.BLOB_TIMEOUT_MS, retryAfterMs: e.BLOB_RETRY_AFTER_MS }, problems: [] };
  }
  if (driver === 'local') {
    // S3_* settings without a bucket are a half-made s3 configuration: refused rather than ignored.
    const s3Given = storageEnvNames.some((name) => name.startsWith('S3_') && env[name] !== undefined);
    if (s3Given && !e.MEDIA_STORAGE) problems.push('S3_BUCKET: S3_* settings are given without S3_BUCKET (set it, or MEDIA_STORAGE=local)');
    return problems.length ? { storage: null, problems } : { storage: { driver }, problems: [] };
  }
  if (!e.S3_BUCKET) problems.push('S3_BUCKET: s3 storage needs a bucket');
  if ((e.S3_ACCESS_KEY_ID === undefined) !== (e.S3_SECRET_ACCESS_KEY === undefined)) {
    problems.push('S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both, or neither (the AWS default credential chain)');
  }
  if (problems.length) return { storage: null, problems };
  const forcePathStyle = e.S3_FORCE_PATH_STYLE ?? e.S3_ENDPOINT !== undefined;
  return {
    storage: {
      driver,
      bucket: e.S3_BUCKET!,
      region: e.S3_REGION,
      endpoint: e.S3_ENDPOINT?.replace(/\/+$/, ''),
      credentials: e.S3_ACCESS_KEY_ID === undefined ? undefined : { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY! },
      forcePathStyle,
      publicUrl: (e.S3_PUBLIC_URL ?? defaultS3PublicUrl(e.S3_BUCKET!, e.S3_REGION, e.S3_ENDPOINT, forcePathStyle)).replace(/\/+$/, ''),
    },
    problems: [],
  };
}

/** Where a bucket's objects are read without S3_PUBLIC_URL: the endpoint's (or AWS's) own object URL. */
function defaultS3PublicUrl(bucket: string, region: string, endpoint: string | undefined, pathStyle: boolean): string {
  const base = new URL(endpoint ?? `https://s3.${region}.amazonaws.com`);
  const root = base.pathname.replace(/\/+$/, '');
  return pathStyle ? `${base.origin}${root}/${bucket}` : `${base.protocol}//${bucket}.${base.host}${root}`;
}
