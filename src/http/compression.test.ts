// Compressed answers, as a client on the wire sees them (node:http, which does not decode): brotli or
// gzip as Accept-Encoding asks (q-values honoured), the same JSON once decoded, Vary on what could be
// compressed; small answers, stored files, event streams and HEAD as they are; an export streamed
// compressed. Node's fetch (which asks for it and decodes) reads every answer as before.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { openEventStream } from '../testkit/event-stream.js';
import { pngFile, upload } from '../testkit/media.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';
import { compressionThreshold } from './compression.js';

let t: TestApp;
let user: SignedUpUser;

interface WireAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** One request over node:http: the bytes as sent, nothing decoded. */
function onTheWire(method: string, path: string, headers: Record<string, string>): Promise<WireAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, t.origin), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const decoded = (answer: WireAnswer): string => {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(answer.bytes).toString();
  if (encoding === 'gzip') return gunzipSync(answer.bytes).toString();
  return answer.bytes.toString();
};

const varies = (answer: WireAnswer) =>
  String(answer.headers.vary ?? '')
    .toLowerCase()
    .split(',')
    .map((v) => v.trim());

beforeAll(async () => {
  t = await createTestApp();
  user = await signUp(t);
  // Twenty tasks: a page of them is several kilobytes of JSON.
  for (let i = 0; i < 20; i++) {
    const res = await t.json('POST', '/api/v1/tasks', { title: `Task ${i} with a title long enough to matter`, description: 'Some words about the task, repeated as JSON repeats its keys.' }, { cookie: user.cookie });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
});
afterAll(async () => {
  await t.close();
});

describe('a JSON answer over the threshold', () => {
  test('is brotli when the client accepts it (as browsers and Node ask), gzip when only gzip, and decodes to the same JSON', async () => {
    const plain = await onTheWire('GET', '/api/v1/tasks?limit=20', { cookie: user.cookie });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.bytes.length).toBeGreaterThan(compressionThreshold);
    expect(varies(plain)).toContain('accept-encoding');

    const br = await onTheWire('GET', '/api/v1/tasks?limit=20', { cookie: user.cookie, 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(varies(br)).toContain('accept-encoding');
    expect(Number(br.headers['content-length'])).toBe(br.bytes.length);
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 3);
    expect(JSON.parse(decoded(br))).toEqual(JSON.parse(plain.bytes.toString()));

    const gz = await onTheWire('GET', '/api/v1/tasks?limit=20', { cookie: user.cookie, 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decoded(gz))).toEqual(JSON.parse(plain.bytes.toString()));
  });

  test('q-values are honoured: br;q=0 gives gzip, identity alone or every coding refused gives none', async () => {
    const noBrotli = await onTheWire('GET', '/api/v1/tasks?limit=20', { cookie: user.cookie, 'accept-encoding': 'br;q=0, gzip;q=0.5' });
    expect(noBrotli.headers['content-encoding']).toBe('gzip');
    for (const accept of ['identity', 'br;q=0, gzip;q=0', 'deflate']) {
      const answer = await onTheWire('GET', '/api/v1/tasks?limit=20', { cookie: user.cookie, 'accept-encoding': accept });
      expect(answer.headers['content-encoding'], accept).toBeUndefined();
      expect(JSON.parse(answer.bytes.toString()).data).toHaveLength(20);
    }
  });

  test('GraphQL answers too, and Node fetch reads them as before', async () => {
    const query = '{ tasks(first: 20) { edges { node { id title description } } } }';
    const res = await t.fetch('/graphql', { method: 'POST', headers: { cookie: user.cookie, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    // Node 20's fetch asks for gzip and deflate.
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const body = (await res.json()) as { data: { tasks: { edges: unknown[] } } };
    expect(body.data.tasks.edges).toHaveLength(20);
  });
});

describe('left as they are', () => {
  test('an answer under the threshold, and HEAD', async () => {
    const small = await onTheWire('GET', '/api/v1/tasks?limit=1', { cookie: user.cookie, 'accept-encoding': 'br, gzip' });
    expect(small.bytes.length).toBeLessThan(compressionThreshold);
    expect(small.headers['content-encoding']).toBeUndefined();
    const health = await onTheWire('GET', '/healthz', { 'accept-encoding': 'br, gzip' });
    expect(health.headers['content-encoding']).toBeUndefined();
    const head = await onTheWire('HEAD', '/api/v1/tasks?limit=20', { cookie: user.cookie, 'accept-encoding': 'br, gzip' });
    expect(head.headers['content-encoding']).toBeUndefined();
  });

  test('a stored file is sent as stored, with its length', async () => {
    const png = await pngFile(64, 64);
    const uploaded = await upload(t, [{ name: 'square.png', content: png, type: 'image/png' }], { cookie: user.cookie });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
    const file = await onTheWire('GET', uploaded.body.data.urls[0] as string, { cookie: user.cookie, 'accept-encoding': 'br, gzip' });
    expect(file.status).toBe(200);
    expect(file.headers['content-encoding']).toBeUndefined();
    expect(Number(file.headers['content-length'])).toBe(file.bytes.length);
    expect(file.bytes.equals(Buffer.from(png))).toBe(true);
  });

  test('an event stream: each event arrives as sent', async () => {
    const query = encodeURIComponent('subscription { taskEvents { type } }');
    const stream = await openEventStream(`${t.origin}/graphql?query=${query}`, { cookie: user.cookie, 'accept-encoding': 'br, gzip' });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-encoding') ?? 'none').toBe('none');
    } finally {
      stream.close();
    }
  });
});

test('an export streams compressed, every record in it', async () => {
  const answer = await onTheWire('GET', '/api/v1/tasks/export?format=ndjson', { cookie: user.cookie, 'accept-encoding': 'gzip' });
  expect(answer.status).toBe(200);
  expect(answer.headers['content-encoding']).toBe('gzip');
  const lines = decoded(answer).split('\n').filter(Boolean);
  expect(lines).toHaveLength(20);
  expect(JSON.parse(lines[0]!).title).toMatch(/^Task \d+/);
});
