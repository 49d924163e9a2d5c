// Seed builders for webhooks: endpoints created through the front door, and a local receiver (a real
// HTTP server on 127.0.0.1) that records what it is sent and answers as a test scripts it.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SignedUpUser } from './accounts.js';
import type { TestApp } from './test-app.js';

export interface CreatedEndpoint {
  id: string;
  url: string;
  eventTypes: string[];
  secret: string;
}

/** POST /api/v1/webhooks as `user` (an owner or admin of their active team). */
export async function createEndpoint(t: TestApp, user: SignedUpUser, body: { url: string; eventTypes?: string[]; active?: boolean; description?: string }): Promise<CreatedEndpoint> {
  const res = await t.json('POST', '/api/v1/webhooks', { eventTypes: ['*'], ...body }, { cookie: user.cookie });
  if (res.status !== 201) throw new Error(`endpoint creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers: a status (and body, headers), or `hang` (never answers). */
export type Reply = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  url(path: string): string;
  /** Every request, in arrival order. */
  received: Received[];
  on(path: string): Received[];
  /** Replies for `path`, used in turn; the last one repeats. Default: 200 "ok". */
  script(path: string, ...replies: Reply[]): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const scripts = new Map<string, Reply[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const replies = scripts.get(path) ?? [];
      const reply = (replies.length > 1 ? replies.shift() : replies[0]) ?? { status: 200, body: 'ok' };
      if (reply === 'hang') return;
      res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${origin}${path}`,
    received,
    on: (path) => received.filter((r) => r.path === path),
    script: (path, ...replies) => void scripts.set(path, replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
