// S10, the media library: its dataset, its files and its requests.
// - Search: 50k media records of the bench user's active team, seeded straight in SQL like the tasks
//   (generate_series, hash functions; filenames, titles, alt texts and captions from word lists), and
//   the answer GET /api/v1/media?search=harbor&limit=20 must give, read in SQL with a regular
//   expression (not the product's text-search functions), then cross-checked against those.
// - Uploads: real JPEGs of deterministic noise made once with sharp (noise, so they do not compress
//   to nothing) and brought to an exact size with JPEG comment segments; the first comment holds a
//   counter rewritten before every request, so that no upload repeats another's content (the product
//   reports content duplicates, which would otherwise grow with every request). They go to a team of
//   their own (x-team-id), and their records and files are removed after each measurement.
// - Rendition: GET /api/v1/media/{id}/render?w=320&format=webp of a JPEG uploaded at seeding, in a
//   third team; its binary answer is checked here (status, type, ETag, Cache-Control, the image).
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { withClient } from './database.js';
import type { HttpRequest } from './scenarios.js';
import type { RecordOwner } from './tasks.js';

const KiB = 1024;
export const MiB = 1024 * KiB;

// ---- files -------------------------------------------------------------------------------------

/** The sizes uploaded (MiB and KiB, as MEDIA_CONFIG counts megabytes). */
export type UploadSize = '200kb' | '2mb' | '5mb';
const uploadBytes: Record<UploadSize, number> = { '200kb': 200 * KiB, '2mb': 2 * MiB, '5mb': 5 * MiB };

export const multipartBoundary = 'bench-media-boundary-7f3a9c1e';
export const multipartType = `multipart/form-data; boundary=${multipartBoundary}`;

/** The start of a multipart body with one file in the field `files`; the body ends with multipartEnd. */
export const multipartStart = (filename: string, type: string) =>
  Buffer.from(`--${multipartBoundary}\r\nContent-Disposition: form-data; name="files"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`);
export const multipartEnd = Buffer.from(`\r\n--${multipartBoundary}--\r\n`);

/** Digits of the counter that makes every uploaded file's content unique. */
const counterDigits = 16;
const counterText = (n: number) => String(n).padStart(counterDigits, '0');

/** One JPEG, ready to upload as a multipart body. */
export interface UploadFile {
  size: UploadSize;
  filename: string;
  /** Of the JPEG itself. */
  bytes: number;
  width: number;
  height: number;
  /** The whole multipart body, rewritten in place by fresh(). */
  body: Buffer;
  /** Where in the body the counter's 16 characters are. */
  counterAt: number;
  /** The body, its file's counter set to n (the same Buffer: autocannon copies it into each request at once). */
  fresh(n: number): Buffer;
}

/** RGB noise from xorshift32: the same pixels on every run. */
function noisePixels(width: number, height: number): Buffer {
  const pixels = Buffer.allocUnsafe(width * height * 3);
  let x = 0x9e3779b9;
  for (let i = 0; i < pixels.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    pixels[i] = x & 0xff;
  }
  return pixels;
}

const encodeNoise = (width: number, height: number) =>
  sharp(noisePixels(width, height), { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();

/** The text opening the first comment segment; the counter follows it. */
const commentLabel = 'bench-upload ';
/** Largest JPEG segment: marker (2), length (2), 65533 bytes of data. */
const maxSegment = 65537;
/** Room the comments need at least: the label, the counter and the segment headers. */
const minComments = 64;

/** JPEG comment segments (FF FE) filling exactly `bytes`, the first opening with the label and a counter. */
function commentSegments(bytes: number): Buffer {
  const sizes: number[] = [];
  for (let left = bytes; left > 0; ) {
    let take = Math.min(left, maxSegment);
    // Never leave a rest too small to be a segment of its own.
    if (left - take > 0 && left - take < minComments) take -= minComments;
    sizes.push(take);
    left -= take;
  }
  const segments = sizes.map((size) => {
    const segment = Buffer.alloc(size, 0x20);
    segment.writeUInt16BE(0xfffe, 0);
    segment.writeUInt16BE(size - 2, 2);
    return segment;
  });
  segments[0]!.write(commentLabel + counterText(0), 4, 'latin1');
  return Buffer.concat(segments);
}

/** A 4:3 JPEG of exactly `bytes` bytes: noise encoded by sharp, then comments right after its SOI marker. */
async function exactJpeg(bytes: number): Promise<{ jpeg: Buffer; width: number; height: number; counterOffset: number }> {
  // Noise costs about the same per pixel at any size: measured once, then sized to ~97% of the target.
  const probe = await encodeNoise(256, 192);
  const perPixel = probe.length / (256 * 192);
  let unit = Math.floor(Math.sqrt((bytes * 0.97) / perPixel / 12));
  for (;;) {
    const width = 4 * unit;
    const height = 3 * unit;
    const encoded = await encodeNoise(width, height);
    const room = bytes - encoded.length;
    if (room >= minComments) {
      const jpeg = Buffer.concat([encoded.subarray(0, 2), commentSegments(room), encoded.subarray(2)]);
      return { jpeg, width, height, counterOffset: 2 + 4 + commentLabel.length };
    }
    unit = Math.floor(unit * 0.98);
  }
}

async function uploadFile(size: UploadSize): Promise<UploadFile> {
  const bytes = uploadBytes[size];
  const { jpeg, width, height, counterOffset } = await exactJpeg(bytes);
  const filename = `bench-upload-${size}.jpg`;
  const start = multipartStart(filename, 'image/jpeg');
  const body = Buffer.concat([start, jpeg, multipartEnd]);
  const at = start.length + counterOffset;
  return {
    size,
    filename,
    bytes,
    width,
    height,
    body,
    counterAt: at,
    fresh(n) {
      body.write(counterText(n), at, 'latin1');
      return body;
    },
  };
}

export type UploadFiles = Record<UploadSize, UploadFile>;

/** Every file the upload scenarios send, made in memory. */
export async function makeUploadFiles(): Promise<UploadFiles> {
  return { '200kb': await uploadFile('200kb'), '2mb': await uploadFile('2mb'), '5mb': await uploadFile('5mb') };
}

// ---- uploads -----------------------------------------------------------------------------------

export const uploadPath = { rest: '/api/v1/media/upload', raw: '/upload' } as const;

export function uploadRequest(target: 'raw' | 'rest', cookie: string, teamId: string, file: UploadFile): HttpRequest {
  return { method: 'POST', path: uploadPath[target], headers: { cookie, 'x-team-id': teamId, 'content-type': multipartType }, body: file.body };
}

const uploadAnswerStart = '{"success":true,"data":{"message":"1 file uploaded successfully"';

/** The check under load: the product's answer also reports no content duplicate (every upload is new). */
export const uploadVerifier = (target: 'raw' | 'rest') =>
  target === 'rest' ? (body: string) => body.startsWith(uploadAnswerStart) && body.includes('"duplicates":[]') : (body: string) => body.startsWith(uploadAnswerStart);

/**
 * What is wrong with an upload's answer, or undefined: one record of the file in the upload team,
 * stored locally; the product's record also has the image's dimensions and no duplicate or skipped file.
 */
export function uploadProblem(answer: unknown, file: UploadFile, teamId: string, product: boolean): string | undefined {
  const data = (answer as { data?: Record<string, unknown> } | undefined)?.data;
  const media = data?.media as Record<string, unknown>[] | undefined;
  const record = media?.[0];
  if (!data || data.count !== 1 || media?.length !== 1 || !record) return 'expected one record in data.media and count 1';
  const expected: Record<string, unknown> = { filename: file.filename, fileSize: file.bytes, mimeType: 'image/jpeg', teamId, status: 'active' };
  if (product) Object.assign(expected, { width: file.width, height: file.height });
  for (const [field, value] of Object.entries(expected)) if (record[field] !== value) return `media[0].${field} is ${JSON.stringify(record[field])}, expected ${JSON.stringify(value)}`;
  if (typeof record.url !== 'string' || !record.url.startsWith('/uploads/temp/') || (data.urls as unknown[] | undefined)?.[0] !== record.url) return 'url not a local upload, or not in urls';
  if (data.storage !== 'local') return `storage ${JSON.stringify(data.storage)}, expected "local"`;
  if (product && (JSON.stringify(data.duplicates) !== '[]' || JSON.stringify(data.skipped) !== '[]')) return 'expected no duplicates and no skipped files';
  return undefined;
}

/** Pause between removal passes: a request whose body had fully arrived may still be recorded after the load stopped. */
const removalPassMs = 500;
const maxRemovalPasses = 20;

/**
 * Removes every record of the upload team and its file (in the product's upload directory), and
 * everything in the raw baseline's directory, so that each measurement starts from the same data.
 * Run as the database owner once the measurement's load has stopped; repeated until a pass finds no
 * record (uploads still being handled when the load stopped are recorded a little later).
 */
export async function removeUploads(databaseUrl: string, teamId: string, productDir: string, rawDir: string): Promise<void> {
  await withClient(databaseUrl, async (c) => {
    for (let pass = 0; pass < maxRemovalPasses; pass++) {
      if (pass > 0) await new Promise((resolve) => setTimeout(resolve, removalPassMs));
      const { rows } = await c.query<{ storage_key: string | null }>('DELETE FROM media WHERE team_id = $1 RETURNING storage_key', [teamId]);
      // Keys are the product's generated names (a UUID and an extension): nothing else is removed there.
      const keys = rows.flatMap((r) => (r.storage_key && /^[0-9a-f-]{36}\.[a-z0-9]{1,8}$/.test(r.storage_key) ? [r.storage_key] : []));
      await Promise.all(keys.map((key) => rm(path.join(productDir, key), { force: true })));
      if (pass > 0 && !rows.length) break;
    }
  });
  const raw = await readdir(rawDir);
  await Promise.all(raw.map((name) => rm(path.join(rawDir, name), { force: true, recursive: true })));
}

// ---- rendition ---------------------------------------------------------------------------------

export const renditionWidth = 320;
export const renditionPath = (id: string) => `/api/v1/media/${encodeURIComponent(id)}/render?w=${renditionWidth}&format=webp`;

/** Uploads the 2 MB JPEG once (its own counter) to `teamId` through the product; returns its record's id. */
export async function uploadRenditionSource(baseUrl: string, cookie: string, teamId: string, file: UploadFile): Promise<string> {
  const body = Buffer.from(file.body);
  body.write('render-source'.padEnd(counterDigits), file.counterAt, 'latin1');
  const request = uploadRequest('rest', cookie, teamId, file);
  const response = await fetch(`${baseUrl}${request.path}`, { method: 'POST', headers: request.headers, body: new Uint8Array(body) });
  const text = await response.text();
  const answer = JSON.parse(text) as { data?: { media?: { id?: string }[] } };
  const problem = response.status === 200 ? uploadProblem(answer, file, teamId, true) : `status ${response.status}`;
  const id = answer.data?.media?.[0]?.id;
  if (problem || !id) throw new Error(`uploading the rendition source: ${problem ?? 'no id'}: ${text.slice(0, 500)}`);
  return id;
}

/** The check under load of a WebP answer (its bytes read as text by autocannon): RIFF, then WEBP. */
export const isWebp = (body: string) => body.startsWith('RIFF') && body.slice(4, 16).includes('WEBP');

interface Fetched {
  status: number;
  headers: Headers;
  bytes: Buffer;
  ms: number;
}

async function get(baseUrl: string, requestPath: string, cookie: string): Promise<Fetched> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${requestPath}`, { headers: { cookie } });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, ms: performance.now() - started };
}

/**
 * Checks the rendition route on a running product, requesting it twice: both 200 image/webp, with
 * ETag and Cache-Control, the same ETag and bytes, a WebP 320 pixels wide. A route that does not
 * exist (the product's "No route for" 404, or 405) is a reason to skip, not a failure; anything else
 * wrong throws.
 */
export async function checkRendition(baseUrl: string, requestPath: string, cookie: string): Promise<{ skip?: string; note?: string }> {
  const first = await get(baseUrl, requestPath, cookie);
  const text = first.bytes.toString('utf8', 0, Math.min(first.bytes.length, 300));
  if (first.status === 405 || (first.status === 404 && text.includes('"No route for'))) return { skip: `route missing (GET ${requestPath} answered ${first.status} ${text})` };
  const problems: string[] = [];
  const second = await get(baseUrl, requestPath, cookie);
  for (const [name, answer] of [['first', first], ['second', second]] as const) {
    if (answer.status !== 200) problems.push(`${name} answer: status ${answer.status} ${answer.bytes.toString('utf8', 0, 300)}`);
    if (!answer.headers.get('content-type')?.startsWith('image/webp')) problems.push(`${name} answer: content-type ${answer.headers.get('content-type')}`);
    if (!answer.headers.get('etag')) problems.push(`${name} answer: no ETag`);
    if (!answer.headers.get('cache-control')) problems.push(`${name} answer: no Cache-Control`);
  }
  if (!problems.length) {
    if (first.headers.get('etag') !== second.headers.get('etag') || !first.bytes.equals(second.bytes)) problems.push('the two answers differ (ETag or bytes)');
    const meta = await sharp(second.bytes).metadata().catch((error: Error) => ({ format: `unreadable (${error.message})`, width: 0 }));
    if (meta.format !== 'webp' || meta.width !== renditionWidth) problems.push(`the image is ${meta.format} ${meta.width} px wide, expected webp ${renditionWidth}`);
  }
  if (problems.length) throw new Error(`GET ${requestPath}: ${problems.join('; ')}`);
  return { note: `first request ${first.ms.toFixed(1)} ms, second ${second.ms.toFixed(1)} ms, ${second.bytes.length} bytes, ETag ${second.headers.get('etag')}` };
}

// ---- search ------------------------------------------------------------------------------------

export const mediaRecordCount = 50_000;
/** The word searched for: in about 7% of the records (filename 2.5%, title 2%, alt text 3%). */
export const searchWord = 'harbor';
const searchLimit = 20;
export const mediaSearchPath = `/api/v1/media?${new URLSearchParams({ search: searchWord, limit: String(searchLimit) })}`;

const adjectives = ['quiet', 'golden', 'misty', 'bright', 'rainy', 'frozen', 'dusty', 'hidden', 'silver', 'wild'];
// 40 nouns, none containing another's letters as a word: "harbor" is found only where it was put.
const nouns = [
  'harbor', 'forest', 'bridge', 'market', 'canyon', 'garden', 'station', 'meadow', 'tower', 'river',
  'island', 'desert', 'valley', 'lantern', 'temple', 'orchard', 'glacier', 'pier', 'village', 'summit',
  'lighthouse', 'cathedral', 'vineyard', 'waterfall', 'beach', 'castle', 'street', 'plaza', 'fountain', 'library',
  'museum', 'stadium', 'airport', 'factory', 'farm', 'cliff', 'lake', 'volcano', 'tunnel', 'skyline',
];
const times = ['dawn', 'noon', 'dusk', 'night', 'sunrise', 'sunset', 'midday', 'twilight', 'midnight', 'morning'];
const places = ['Lisbon', 'Porto', 'Madrid', 'Sevilla', 'Valencia', 'Bilbao', 'Granada', 'Malaga', 'Cadiz', 'Toledo'];
const projects = ['spring catalog', 'website', 'brochure', 'annual report', 'newsletter', 'press kit', 'campaign', 'exhibition', 'guidebook', 'poster'];

const sqlArray = (words: readonly string[]) => `ARRAY[${words.map((w) => `'${w}'`).join(', ')}]`;
const pick = (words: readonly string[], hash: string) => `(${sqlArray(words)})[1 + ${hash} % ${words.length}]`;

/** Ids derived from the row number: the same rows on every run. */
const mediaId = (n: string) => `md5('bench-media-' || ${n})::uuid`;

/**
 * `h1`…`h9` are independent hashes of the row number in 0..999. Types: JPEG 60%, PNG 25%, MP4 15%
 * (no dimensions); sizes 10 kB to 5 MB; a title 80%, alt text 60%, caption 50%; 2% deleted; one
 * created a minute. Registered (hosted) files: https URLs, no storage key.
 */
const seedSql = `
INSERT INTO media (id, user_id, team_id, url, filename, file_size, mime_type, width, height, title, alt, caption, status, created_at, updated_at)
SELECT ${mediaId('n')}, $1::uuid, $2::uuid,
       'https://cdn.example.com/bench/' || n || '.' || k.ext,
       ${pick(adjectives, 'h1')} || '_' || ${pick(nouns, 'h2')} || '_' || n || '.' || k.ext,
       10000 + h3 * 5000 + h4,
       k.mime,
       CASE WHEN k.ext = 'mp4' THEN NULL ELSE 640 + (h4 % 8) * 320 END,
       CASE WHEN k.ext = 'mp4' THEN NULL ELSE 480 + (h5 % 6) * 240 END,
       CASE WHEN h6 < 200 THEN NULL ELSE initcap(${pick(adjectives, 'h7')}) || ' ' || ${pick(nouns, 'h8')} || ' at ' || ${pick(times, 'h1')} END,
       CASE WHEN h9 < 400 THEN NULL ELSE 'A ' || ${pick(adjectives, 'h3')} || ' ' || ${pick(nouns, 'h5')} || ' seen from the ' || ${pick(nouns, 'h6')} END,
       CASE WHEN h7 < 500 THEN NULL ELSE 'Shot in ' || ${pick(places, 'h8')} || ' for the ' || ${pick(projects, 'h9')} END,
       CASE WHEN h4 < 20 THEN 'deleted' ELSE 'active' END,
       timestamptz '2025-01-01 00:00:00+00' + n * interval '1 minute',
       timestamptz '2025-01-01 00:00:00+00' + n * interval '1 minute'
  FROM generate_series(1, $3::int) AS n,
       LATERAL (SELECT (abs(hashint4extended(n, 11)) % 1000)::int AS h1, (abs(hashint4extended(n, 12)) % 1000)::int AS h2,
                       (abs(hashint4extended(n, 13)) % 1000)::int AS h3, (abs(hashint4extended(n, 14)) % 1000)::int AS h4,
                       (abs(hashint4extended(n, 15)) % 1000)::int AS h5, (abs(hashint4extended(n, 16)) % 1000)::int AS h6,
                       (abs(hashint4extended(n, 17)) % 1000)::int AS h7, (abs(hashint4extended(n, 18)) % 1000)::int AS h8,
                       (abs(hashint4extended(n, 19)) % 1000)::int AS h9) AS h,
       LATERAL (SELECT CASE WHEN h2 % 20 < 12 THEN 'jpg' WHEN h2 % 20 < 17 THEN 'png' ELSE 'mp4' END AS ext) AS e,
       LATERAL (SELECT e.ext, CASE e.ext WHEN 'jpg' THEN 'image/jpeg' WHEN 'png' THEN 'image/png' ELSE 'video/mp4' END AS mime) AS k`;

/** Inserts the search dataset in `owner`'s team; VACUUM ANALYZE is the caller's, once everything is seeded. */
export function seedMedia(url: string, owner: RecordOwner): Promise<void> {
  return withClient(url, async (c) => {
    await c.query(seedSql, [owner.userId, owner.teamId, mediaRecordCount]);
  });
}

/** A media record as the API shows it. */
interface MediaRecord {
  id: string;
  userId: string;
  teamId: string;
  url: string;
  filename: string;
  fileSize: number;
  mimeType: string;
  width: number | null;
  height: number | null;
  title: string | null;
  alt: string | null;
  caption: string | null;
  status: string;
  createdAt: string;
  updatedAt: string;
}

type MediaRow = Omit<MediaRecord, 'createdAt' | 'updatedAt'> & { createdAt: Date; updatedAt: Date };

/** The word as a whole word, anywhere in filename, title, alt or caption (letters and digits make words). */
const wordMatch = `concat_ws(' ', filename, title, alt, caption) ~* ('(^|[^[:alnum:]])' || $2 || '([^[:alnum:]]|$)')`;

export interface SearchAnswer {
  answer: { success: true; data: { data: MediaRecord[]; total: number; limit: number; offset: number } };
  total: number;
}

/**
 * The answer of mediaSearchPath for a caller of `teamIds`, read as the database owner (no RLS) with a
 * regular expression; throws when the product's own text search in SQL finds another number.
 */
export function expectedMediaSearch(url: string, teamIds: string[]): Promise<SearchAnswer> {
  return withClient(url, async (c) => {
    const where = `team_id = ANY($1::uuid[]) AND status = 'active' AND ${wordMatch}`;
    const values = [teamIds, searchWord];
    const page = await c.query<MediaRow>(
      `SELECT id::text AS id, user_id::text AS "userId", team_id::text AS "teamId", url, filename, file_size AS "fileSize", mime_type AS "mimeType",
              width, height, title, alt, caption, status, created_at AS "createdAt", updated_at AS "updatedAt"
         FROM media WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${searchLimit}`,
      values,
    );
    const total = (await c.query<{ total: number }>(`SELECT count(*)::int AS total FROM media WHERE ${where}`, values)).rows[0]?.total ?? 0;
    const indexed = await c.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM media m WHERE m.team_id = ANY($1::uuid[]) AND m.status = 'active'
          AND media_search_document(m.filename, m.title, m.alt, m.caption) @@ media_search_query($2)`,
      values,
    );
    if (page.rows.length !== searchLimit) throw new Error('media search: the seeded rows are missing');
    if (indexed.rows[0]?.total !== total) throw new Error(`media search: "${searchWord}" is in ${total} records, the text-search functions find ${indexed.rows[0]?.total}`);
    const data = page.rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString() }));
    return { answer: { success: true, data: { data, total, limit: searchLimit, offset: 0 } }, total };
  });
}

// ---- teams -------------------------------------------------------------------------------------

export interface MediaTeams {
  /** The bench user's active team: the 50k records. */
  search: string;
  /** Where the upload scenarios upload (emptied after each measurement). */
  uploads: string;
  /** Where the rendition's source lives. */
  rendition: string;
}

/** Three different teams of the bench user, so that the uploads never change the search's records. */
export function mediaTeams(teamIds: readonly string[], activeTeamId: string): MediaTeams {
  const others = teamIds.filter((id) => id !== activeTeamId);
  if (others.length < 2) throw new Error('S10 needs the bench user in at least three teams');
  return { search: activeTeamId, uploads: others[0]!, rendition: others[1]! };
}
