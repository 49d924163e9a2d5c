// The s3 driver: files in a bucket of any S3-compatible store (AWS, MinIO, R2, a local server) through
// the official AWS SDK. Objects are named by their key at the bucket's root; their public URL is
// S3_PUBLIC_URL/<key> (a CDN, or the bucket's own URL by default): serving them is the store's job,
// this server never proxies them. Uploads stream from the spool file as a multipart upload with
// bounded memory (at most `queueSize` parts of `partSize` bytes in flight per file). The SDK (about
// 200 ms and 25 MB to load) is loaded on first use, so deployments on other drivers never pay for it.
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';
import type { StorageConfig } from '../../config/media.js';
import { isStorageKey } from './storage-key.js';
import type { MediaStorage } from './storage.js';

type S3Config = Extract<StorageConfig, { driver: 's3' }>;

/** 5 MiB, the smallest part S3 accepts, two at a time: about 10 MiB per upload in flight. */
const partSize = 5 * 1024 * 1024;
const queueSize = 2;
/** Keys are never reused, so stored objects never change. */
const cacheControl = 'public, max-age=31536000, immutable';

/** The s3 driver; spool files are kept in `spoolDir` (local disk) until they are uploaded. */
export function s3Storage(config: S3Config, spoolDir: () => Promise<string>): MediaStorage {
  let loaded: Promise<{ sdk: typeof S3; Upload: typeof LibStorage.Upload; client: S3.S3Client }> | undefined;
  const load = () =>
    (loaded ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([sdk, { Upload }]) => ({
      sdk,
      Upload,
      client: new sdk.S3Client({
        region: config.region,
        ...(config.endpoint ? { endpoint: config.endpoint } : {}),
        forcePathStyle: config.forcePathStyle,
        ...(config.credentials ? { credentials: config.credentials } : {}),
        // A store that does not answer fails the request instead of holding it (the SDK retries first).
        requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
      }),
    })));
  const { bucket } = config;
  const urlOf = (key: string) => `${config.publicUrl}/${key}`;
  return {
    driver: 's3',
    spoolDir,
    async put(spoolPath, key, contentType) {
      const { Upload, client } = await load();
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: createReadStream(spoolPath), ContentType: contentType, CacheControl: cacheControl },
        partSize,
        queueSize,
        leavePartsOnError: false,
      });
      await upload.done();
      await rm(spoolPath, { force: true });
      return { driver: 's3', key, url: urlOf(key) };
    },
    async write(key, data, contentType) {
      const { sdk, client } = await load();
      await client.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: data, ContentType: contentType, CacheControl: cacheControl }));
    },
    async remove(key) {
      const { sdk, client } = await load();
      // DeleteObject succeeds for a missing key.
      await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async open(key) {
      const { sdk, client } = await load();
      try {
        const object = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
        return { stream: object.Body as Readable, size: object.ContentLength ?? 0 };
      } catch (error) {
        if (error instanceof sdk.S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)) return null;
        throw error;
      }
    },
    async *listWrittenBefore(before) {
      const { sdk, client } = await load();
      let token: string | undefined;
      do {
        const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token, MaxKeys: 1000 }));
        for (const object of page.Contents ?? []) {
          // Only this server's keys at the bucket's root: nothing else in the bucket is ever touched.
          if (object.Key && isStorageKey(object.Key) && object.LastModified && object.LastModified < before) yield object.Key;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    async close() {
      if (loaded) (await loaded).client.destroy();
    },
  };
}
