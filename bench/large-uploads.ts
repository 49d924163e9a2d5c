// S10's memory check: 20 uploads of a 50 MB video at once, one file per request, each body streamed
// from a generator through node:http (the bench never holds a whole video either), while the
// product server's resident memory is sampled (rss.ts). The product must stream every file to disk:
// its peak RSS must stay under 300 MB. Every answer is checked (one video/mp4 record of the full size).
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MiB, multipartEnd, multipartStart, multipartType, uploadPath } from './media.js';
import { rssIntervalMs, sampleRss, type RssPeak } from './rss.js';

export const largeUploadCount = 20;
export const largeUploadBytes = 50 * MiB;
/** The limit on the product's peak RSS during the large uploads. */
export const largeUploadRssLimitMb = 300;
const requestTimeoutMs = 300_000;

export interface LargeUploadCheck extends RssPeak {
  round: number;
  files: number;
  bytesEach: number;
  seconds: number;
  /** Of file content, all uploads together. */
  mbPerSec: number;
  /** VmRSS samples were taken every this many ms. */
  intervalMs: number;
}

/** 64 KiB of noise, sent over and over after each video's header. */
const padding = (() => {
  const chunk = Buffer.allocUnsafe(64 * 1024);
  let x = 0x2545f491;
  for (let i = 0; i < chunk.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    chunk[i] = x & 0xff;
  }
  return chunk;
})();

/**
 * The start of an MP4 file of `bytes` bytes: an ftyp box (brand isom: detected as video/mp4), then the
 * header of a free box holding the rest, opening with `marker` so that no two videos are the same.
 */
function mp4Head(bytes: number, marker: string): Buffer {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2')]);
  const free = Buffer.alloc(8);
  free.writeUInt32BE(bytes - ftyp.length, 0);
  free.write('free', 4, 'latin1');
  return Buffer.concat([ftyp, free, Buffer.from(marker, 'latin1')]);
}

/** The multipart body of one video, chunk by chunk. */
async function* videoBody(filename: string, bytes: number, marker: string): AsyncGenerator<Buffer> {
  yield multipartStart(filename, 'video/mp4');
  const head = mp4Head(bytes, marker);
  yield head;
  for (let left = bytes - head.length; left > 0; left -= padding.length) yield left >= padding.length ? padding : padding.subarray(0, left);
  yield multipartEnd;
}

/** Sends one video upload and resolves with the answer's status and text. */
function uploadVideo(baseUrl: string, cookie: string, teamId: string, filename: string, marker: string): Promise<{ status: number; text: string }> {
  const url = new URL(uploadPath.rest, baseUrl);
  const length = multipartStart(filename, 'video/mp4').length + largeUploadBytes + multipartEnd.length;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { cookie, 'x-team-id': teamId, 'content-type': multipartType, 'content-length': String(length) },
      timeout: requestTimeoutMs,
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${requestTimeoutMs} ms`)));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    // Backpressure from the socket paces the generator: only a few chunks are ever in memory.
    pipeline(Readable.from(videoBody(filename, largeUploadBytes, marker)), req).catch(reject);
  });
}

function answerProblem(status: number, text: string, filename: string, teamId: string): string | undefined {
  if (status !== 200) return `status ${status}`;
  const record = (JSON.parse(text) as { data?: { media?: Record<string, unknown>[]; count?: number } }).data?.media?.[0];
  const expected = { filename, fileSize: largeUploadBytes, mimeType: 'video/mp4', teamId, width: null, height: null };
  for (const [field, value] of Object.entries(expected)) if (record?.[field] !== value) return `media[0].${field} is ${JSON.stringify(record?.[field])}, expected ${JSON.stringify(value)}`;
  return undefined;
}

/** Uploads the videos at once to the product at `baseUrl` (process `pid`) and reports its memory meanwhile. */
export async function uploadLargeVideos(baseUrl: string, pid: number, cookie: string, teamId: string, round: number): Promise<LargeUploadCheck> {
  const sampler = await sampleRss(pid);
  const started = performance.now();
  const sent = await Promise.allSettled(
    Array.from({ length: largeUploadCount }, async (_, i) => {
      const filename = `bench-video-${i + 1}.mp4`;
      return { ...(await uploadVideo(baseUrl, cookie, teamId, filename, `bench-video round ${round} file ${i + 1}`)), filename };
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // Stopped whatever happened, so that no timer outlives the check.
  const peak = await sampler.stop();
  const failed = sent.find((s) => s.status === 'rejected');
  if (failed) throw new Error(`large upload: ${(failed.reason as Error).message}`);
  const answers = sent.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  for (const a of answers) {
    const problem = answerProblem(a.status, a.text, a.filename, teamId);
    if (problem) throw new Error(`large upload ${a.filename}: ${problem}: ${a.text.slice(0, 500)}`);
  }
  return {
    round,
    files: largeUploadCount,
    bytesEach: largeUploadBytes,
    seconds,
    mbPerSec: (largeUploadCount * largeUploadBytes) / MiB / seconds,
    intervalMs: rssIntervalMs,
    ...peak,
  };
}
