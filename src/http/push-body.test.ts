// A push body (an event stream) whose client left while the handler still ran (a subscription opens
// after reading the database): the connection's 'close' came before the body was written, and the
// body must still be stopped at once, so what it holds (a subscription, counted against
// REALTIME_MAX_SUBSCRIPTIONS and fed by the hub) is let go. Found while writing the fuzzer's event
// stream cases (this probe; the fuzz runs themselves never hit the window): subscriptions of clients
// gone before their answer stayed open and counted, until the holder got only 429s.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PushBody, reply } from './exchange.js';
import { writeNodeResponse } from './node.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server that answers with a push body once its client is gone; resolves with what the body saw. */
async function answeredAfterTheClientLeft(): Promise<{ started: Promise<void>; stopped: Promise<boolean>; written: boolean[] }> {
  let started!: () => void;
  let stopped!: (value: boolean) => void;
  const result = { started: new Promise<void>((resolve) => (started = resolve)), stopped: new Promise<boolean>((resolve) => (stopped = resolve)), written: [] as boolean[] };
  server = createServer((req, res) => {
    // As a handler that was still awaiting the database when the client left.
    req.socket.once('close', () =>
      setImmediate(() => {
        const body = new PushBody((sink) => {
          started();
          result.written.push(sink.write('retry: 2000\n\n'));
          return () => stopped(true);
        });
        writeNodeResponse(res, reply(200, body, { 'content-type': 'text/event-stream; charset=utf-8' }), 'GET');
      }),
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => {});
  socket.on('connect', () => {
    socket.write('GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
    setTimeout(() => socket.destroy(), 20);
  });
  setTimeout(() => stopped(false), 2_000);
  return result;
}

describe('a push body whose client left before the answer was written', () => {
  it('is stopped at once (its subscription let go), and nothing is written to the closed connection', async () => {
    const seen = await answeredAfterTheClientLeft();
    await seen.started;
    expect(await seen.stopped).toBe(true);
    expect(seen.written).toEqual([false]);
  });
});
