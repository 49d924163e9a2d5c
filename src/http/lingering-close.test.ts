// Early refusals reach the client: an upload refused before its body is read (401 without credentials,
// 413 past the limit) is answered, the rest of the body is read and dropped within bounds (lingering
// close), and only then is the connection closed, so Node's fetch and curl read the status instead of
// failing with EPIPE. Past the bound, the server stops reading and closes the connection. The server
// runs as its own process: in the test's own process the client happened to read the answer anyway.
import { execFile } from 'node:child_process';
import { writeFile, rm, mkdtemp } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../testkit/server-process.js';
import { lingerLimits } from './node.js';

let server: ServerProcess;
let dir: string;
const mb = 1024 * 1024;
beforeAll(async () => {
  // Three files of at most 2 MB: an upload request of at most 7 MB (6 MB + 1 MB for the form).
  server = await startServerProcess({ RATE_LIMIT_ENABLED: 'false', MEDIA_CONFIG: JSON.stringify({ maxSizeMB: 2, maxFiles: 3 }) });
  dir = await mkdtemp(path.join(tmpdir(), 'linger-'));
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

const post = (path: string, init: RequestInit) => fetch(new URL(path, server.origin), { method: 'POST', ...init });

/** A multipart body of `bytes` bytes: one file part of noise. */
function multipartBody(bytes: number): { body: Uint8Array<ArrayBuffer>; contentType: string } {
  const head = Buffer.from('--b\r\nContent-Disposition: form-data; name="files"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n');
  const tail = Buffer.from('\r\n--b--\r\n');
  return { body: new Uint8Array(Buffer.concat([head, Buffer.alloc(bytes - head.length - tail.length, 7), tail])), contentType: 'multipart/form-data; boundary=b' };
}

const curlAvailable = await promisify(execFile)('curl', ['--version']).then(() => true, () => false);

describe('an upload refused before its body is read', () => {
  it('without credentials: Node fetch reads the 401 of 3 MB and 6.5 MB uploads', async () => {
    for (const size of [3 * mb, 6.5 * mb]) {
      const { body, contentType } = multipartBody(size);
      for (let i = 0; i < 5; i++) {
        const response = await post('/api/v1/media/upload', { headers: { 'content-type': contentType }, body });
        expect(response.status).toBe(401);
        expect(await response.json()).toMatchObject({ success: false, error: 'Unauthorized' });
      }
    }
  }, 60_000);

  it('without credentials: Node fetch reads the 401 of a streamed (chunked) 3 MB upload', async () => {
    const { body, contentType } = multipartBody(3 * mb);
    const stream = new Blob([body]).stream();
    const response = await post('/api/v1/media/upload', { headers: { 'content-type': contentType }, body: stream, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ success: false });
  });

  it('over the limit: Node fetch reads the 413 of a 7.5 MB upload', async () => {
    const { body, contentType } = multipartBody(7.5 * mb);
    for (let i = 0; i < 5; i++) {
      const response = await post('/api/v1/media/upload', { headers: { 'content-type': contentType }, body });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ success: false });
    }
  }, 60_000);

  it('signed in, streamed past the limit: the server reads up to the limit, answers 413, and Node fetch reads it', async () => {
    const signup = await post('/api/auth/signup', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'linger@example.com', password: 'correct horse battery', firstName: 'L', lastName: 'C' }) });
    expect(signup.status).toBe(201);
    const cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0]!;
    const { body, contentType } = multipartBody(7.5 * mb);
    for (let i = 0; i < 3; i++) {
      // No Content-Length: the limit is found while reading, part of the body is already in.
      const stream = new Blob([body]).stream();
      const response = await post('/api/v1/media/upload', { headers: { 'content-type': contentType, cookie }, body: stream, duplex: 'half' } as RequestInit);
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ success: false });
    }
  }, 60_000);

  it('GraphQL multipart without the preflight header: Node fetch reads the 403 of a 6.5 MB upload', async () => {
    const { body, contentType } = multipartBody(6.5 * mb);
    for (let i = 0; i < 5; i++) {
      const response = await post('/graphql', { headers: { 'content-type': contentType }, body });
      expect(response.status).toBe(403);
      await response.text();
    }
  }, 60_000);

  it.runIf(curlAvailable)('curl reads the 401 of a 6.5 MB upload', async () => {
    const { body, contentType } = multipartBody(6.5 * mb);
    const file = path.join(dir, 'body.bin');
    await writeFile(file, body);
    const { stdout } = await promisify(execFile)('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-H', `content-type: ${contentType}`, '-H', 'expect:', '--data-binary', `@${file}`, `${server.origin}/api/v1/media/upload`]);
    expect(stdout).toBe('401');
  });

  it('a body past the linger bound: the answer comes first, then the server stops reading and closes the connection', async () => {
    const total = lingerLimits.bytes * 4;
    const { port } = new URL(server.origin);
    const outcome = await new Promise<{ answer: string; written: number; closed: boolean }>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      let answer = '';
      let written = 0;
      let done = false;
      const finish = (closed: boolean) => {
        if (done) return;
        done = true;
        socket.destroy();
        resolve({ answer, written, closed });
      };
      socket.on('data', (chunk) => void (answer += chunk.toString('latin1')));
      socket.on('error', () => finish(true));
      socket.on('close', () => finish(true));
      setTimeout(() => finish(false), 60_000);
      socket.write(`POST /api/v1/media/upload HTTP/1.1\r\nhost: localhost\r\ncontent-type: multipart/form-data; boundary=b\r\ncontent-length: ${total}\r\n\r\n`);
      // One chunk per turn of the event loop, as a client polling its socket both ways does: a write
      // that completes at once would otherwise start the next from the same turn, the client would never
      // read, and the reset that follows the server's close would reach its write before the answer.
      const chunk = Buffer.alloc(64 * 1024, 7);
      const pump = () => {
        if (done || written >= total) return;
        written += chunk.length;
        if (socket.write(chunk)) setImmediate(pump);
        else socket.once('drain', () => setImmediate(pump));
      };
      pump();
    });
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.answer.toLowerCase()).toContain('connection: close');
    expect(outcome.closed).toBe(true);
    // The server read at most the bound (plus what sat in socket buffers), not the whole body.
    expect(outcome.written).toBeLessThan(total);
    expect(outcome.written).toBeGreaterThan(lingerLimits.bytes);
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
  }, 90_000);
});
