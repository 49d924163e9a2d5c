// The media library's upload rules, from the MEDIA_CONFIG environment variable: a JSON object merged
// over the defaults below (unknown keys and bad values stop the server, like any other setting).
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

export interface MediaConfig {
  allowedMimeTypes: readonly string[];
  maxSizeBytes: number;
  maxImageBytes: number;
  maxVideoBytes: number;
  maxFiles: number;
  /** Where the local storage driver keeps files (absolute). */
  uploadDir: string;
}

const mb = (value: number) => Math.floor(value * 1024 * 1024);

/** MEDIA_CONFIG (JSON, optional) over the defaults; throws with every problem listed. */
export function parseMediaConfig(json: string | undefined, uploadDir: string): MediaConfig {
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
  };
}
