// What a crash leaves behind (issue 14): stored files no record refers to are removed once older than
// the grace period, at start-up and periodically, on local storage and s3; recorded files (deleted
// records' too) and young files stay; spool files of a stopped process are cleaned at start-up.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import pino from 'pino';
import S3rver from 's3rver';
import { describe, expect, it } from 'vitest';
import { systemDb } from '../../db/request-db.js';
import { signUp } from '../../testkit/accounts.js';
import { pngFile, upload } from '../../testkit/media.js';
import { createTestApp } from '../../testkit/test-app.js';
import { createStorage } from './storage.js';
import { sweepOrphans } from './sweep.js';

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
const age = (file: string, when: Date) => utimes(file, when, when);

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('local storage', () => {
  it('at start-up: an unrecorded file past the grace period goes; recorded (even deleted) and young files stay; idle spool files go', async () => {
    const first = await createTestApp({ RATE_LIMIT_ENABLED: 'false' });
    const dir = first.config.media.uploadDir;
    let second: Awaited<ReturnType<typeof createTestApp>> | undefined;
    try {
      const user = await signUp(first);
      const uploaded = await upload(first, [{ name: 'kept.png', content: await pngFile(5, 5), type: 'image/png' }, { name: 'deleted.png', content: await pngFile(6, 6), type: 'image/png' }], { cookie: user.cookie });
      expect(uploaded.status).toBe(200);
      const records = await first.database.prisma.media.findMany({ select: { id: true, storageKey: true, filename: true } });
      const deleted = records.find((r) => r.filename === 'deleted.png')!;
      expect((await first.json('DELETE', `/api/v1/media/${deleted.id}`, undefined, { cookie: user.cookie })).status).toBe(200);

      const file = (name: string) => path.join(dir, name);
      const spool = path.join(dir, '.incoming');
      await mkdir(spool, { recursive: true });
      const orphan = `${randomUUID()}.png`;
      const youngOrphan = `${randomUUID()}.jpg`;
      const partial = `${randomUUID()}.webp.4242.partial`;
      const deadSpool = path.join(spool, randomUUID());
      const liveSpool = path.join(spool, randomUUID());
      for (const name of [orphan, youngOrphan, partial]) await writeFile(file(name), 'leftover');
      await writeFile(deadSpool, 'half an upload');
      await writeFile(liveSpool, 'an upload being received');
      for (const name of [orphan, partial, ...records.map((r) => r.storageKey!)]) await age(file(name), hoursAgo(2));
      await age(deadSpool, minutesAgo(10));

      // Another process on the same database and UPLOAD_DIR starts (as after a crash): it sweeps.
      second = await createTestApp({ UPLOAD_DIR: dir, RATE_LIMIT_ENABLED: 'false' }, first);
      const exists = async (name: string) => (await readdir(dir)).includes(name);
      await until(async () => !(await exists(orphan)), 'the orphan to be removed');
      expect(await exists(partial)).toBe(false);
      expect(await readdir(spool)).toEqual([path.basename(liveSpool)]);
      for (const name of [youngOrphan, ...records.map((r) => r.storageKey!)]) expect(await exists(name), name).toBe(true);
      const kept = records.find((r) => r.filename === 'kept.png')!;
      expect((await second.fetch(`/uploads/temp/${kept.storageKey}`)).status).toBe(200);
    } finally {
      await second?.close();
      await first.close();
    }
  });
});

describe('s3 storage', () => {
  it('removes the bucket’s unrecorded files of this server’s key form past the grace period; recorded ones and foreign objects stay', async () => {
    const s3Dir = await mkdtemp(path.join(tmpdir(), 's3rver-sweep-'));
    const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: 'media' }] });
    const endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
    const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const t = await createTestApp({ RATE_LIMIT_ENABLED: 'false', S3_BUCKET: 'media', S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' });
    const storage = createStorage(t.config.media, pino({ level: 'silent' }));
    try {
      const user = await signUp(t);
      expect((await upload(t, [{ name: 'in-bucket.png', content: await pngFile(4, 4), type: 'image/png' }], { cookie: user.cookie })).status).toBe(200);
      const recorded = (await t.database.prisma.media.findFirstOrThrow({ select: { storageKey: true } })).storageKey!;
      const orphan = `${randomUUID()}.png`;
      for (const key of [orphan, 'notes/readme.txt', 'not-a-key.png']) await client.send(new PutObjectCommand({ Bucket: 'media', Key: key, Body: 'x' }));
      const present = (key: string) => client.send(new GetObjectCommand({ Bucket: 'media', Key: key })).then(() => true, () => false);

      const deps = { storage, system: systemDb(t.database, 'media: orphan sweep'), uploadDir: t.config.media.uploadDir, log: pino({ level: 'silent' }) };
      // Within the grace period nothing goes; an hour and a half later, the orphan does.
      expect(await sweepOrphans({ ...deps, now: () => new Date() }, 3_600_000)).toEqual({ orphans: 0, leftovers: 0 });
      expect(await present(orphan)).toBe(true);
      expect(await sweepOrphans({ ...deps, now: () => new Date(Date.now() + 5_400_000) }, 3_600_000)).toEqual({ orphans: 1, leftovers: 0 });
      expect(await present(orphan)).toBe(false);
      for (const key of [recorded, 'notes/readme.txt', 'not-a-key.png']) expect(await present(key), key).toBe(true);
    } finally {
      await storage.close?.();
      await t.close();
      client.destroy();
      await s3.close();
      await rm(s3Dir, { recursive: true, force: true });
    }
  });
});
