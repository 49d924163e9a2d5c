// S10's memory drift: 1,000 uploads of the 200 kB JPEG, 4 in flight, one file per request, on a
// product server of its own, its resident memory read (rss.ts) after the first 100 (warm: modules
// loaded, pools and caches filled) and after the last. What grows between the two is what uploads leave
// behind; it must stay under 50 MB. Every answer is checked like the throughput runs' (one record of
// the file sent, no duplicate), and every file's content is new.
import { takeFresh } from './load.js';
import { uploadPath, uploadProblem, multipartType, type UploadFile } from './media.js';
import { readRss } from './rss.js';

export const driftUploads = 1_000;
export const driftWarmUploads = 100;
export const driftInFlight = 4;
/** The BENCHMARKS limit on what 1,000 uploads may add to the product's resident memory. */
export const driftLimitMb = 50;

export interface UploadDriftCheck {
  round: number;
  uploads: number;
  /** RSS right after start, after the warm uploads, and after the last one (MiB). */
  startMb: number;
  warmMb: number;
  endMb: number;
  /** endMb − warmMb. */
  driftMb: number;
  seconds: number;
}

async function uploadOnce(baseUrl: string, cookie: string, teamId: string, file: UploadFile): Promise<void> {
  // fresh() rewrites one shared buffer: each request sends its own copy.
  const body = Buffer.from(file.fresh(takeFresh()));
  const response = await fetch(new URL(uploadPath.rest, baseUrl), {
    method: 'POST',
    headers: { cookie, 'x-team-id': teamId, 'content-type': multipartType },
    body,
  });
  const text = await response.text();
  const problem = response.status === 200 ? uploadProblem(JSON.parse(text) as unknown, file, teamId, true) : `status ${response.status}`;
  if (problem) throw new Error(`upload drift: ${problem}: ${text.slice(0, 300)}`);
}

/** `count` uploads, `driftInFlight` at a time. */
async function uploadMany(count: number, send: () => Promise<void>): Promise<void> {
  let left = count;
  await Promise.all(
    Array.from({ length: driftInFlight }, async () => {
      while (left > 0) {
        left--;
        await send();
      }
    }),
  );
}

/** Runs the uploads against the product at `baseUrl` (process `pid`, freshly started) and reads its memory. */
export async function measureUploadDrift(baseUrl: string, pid: number, cookie: string, teamId: string, file: UploadFile, round: number): Promise<UploadDriftCheck> {
  const send = () => uploadOnce(baseUrl, cookie, teamId, file);
  const started = performance.now();
  const start = await readRss(pid);
  await uploadMany(driftWarmUploads, send);
  const warm = await readRss(pid);
  await uploadMany(driftUploads - driftWarmUploads, send);
  const end = await readRss(pid);
  return {
    round,
    uploads: driftUploads,
    startMb: start.rssMb,
    warmMb: warm.rssMb,
    endMb: end.rssMb,
    driftMb: end.rssMb - warm.rssMb,
    seconds: (performance.now() - started) / 1000,
  };
}
