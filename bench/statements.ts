// S8 and issue 16: SQL statements per request, counted on the wire. A small TCP proxy sits between
// one product server and PostgreSQL and reads the message types the product sends: every simple
// Query ('Q') and every Execute of the extended protocol ('E') is one statement run (a prepared
// statement is parsed once per connection but executed on every use). Requests are sent one at a
// time, so the count between two moments is what those requests cost. Used only for counting, never
// under load.
import { createConnection, createServer, type Socket } from 'node:net';
import { fetchBody, type HttpRequest } from './scenarios.js';

const simpleQuery = 'Q'.charCodeAt(0);
const execute = 'E'.charCodeAt(0);
/** Requests that ask for encryption before the real startup message (answered 'N' without TLS). */
const sslRequest = 80877103;
const gssEncRequest = 80877104;

/** Splits what a client sends into protocol messages and reports each one's type. */
class FrontendMessages {
  private pending: Buffer = Buffer.alloc(0);
  /** Startup messages have no type byte: a length, then a protocol code. */
  private startup = true;

  constructor(private readonly onMessage: (type: number) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    for (;;) {
      const typeBytes = this.startup ? 0 : 1;
      if (this.pending.length < typeBytes + 4) return;
      const length = this.pending.readInt32BE(typeBytes);
      if (this.pending.length < typeBytes + length) return;
      if (this.startup) {
        const code = this.pending.readInt32BE(4);
        this.startup = code === sslRequest || code === gssEncRequest;
      } else {
        this.onMessage(this.pending[0]!);
      }
      this.pending = this.pending.subarray(typeBytes + length);
    }
  }
}

export interface StatementCounter {
  /** DATABASE_URL for the product: the same database, through the proxy. */
  url: string;
  /** Statements run through the proxy so far. */
  statements(): number;
  close(): Promise<void>;
}

/** Starts the proxy on a free port in front of the server of `databaseUrl` (which must not use TLS). */
export async function startStatementCounter(databaseUrl: string): Promise<StatementCounter> {
  const upstream = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let statements = 0;
  const proxy = createServer((client) => {
    const server = createConnection({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    const messages = new FrontendMessages((type) => {
      if (type === simpleQuery || type === execute) statements++;
    });
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk: Buffer) => {
      messages.push(chunk);
      server.write(chunk);
    });
    server.pipe(client);
    client.on('end', () => server.end());
    client.on('error', () => server.destroy());
    server.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    proxy.once('error', reject);
    proxy.listen(0, '127.0.0.1', resolve);
  });
  const address = proxy.address();
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: url.toString(),
    statements: () => statements,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}

/** S8's figure for one scenario on one face (REST or GraphQL): SQL statements one request of it costs. */
export interface StatementCount {
  scenario: string;
  target: string;
  perRequest: number;
}

/** Requests sent before counting: the pool's connections opened and the statements prepared. */
const warmupRequests = 10;

/** Statements per request of `request`, sent `count` times one after the other (each answer must pass `verify`). */
export async function statementsPerRequest(
  baseUrl: string,
  counter: StatementCounter,
  request: HttpRequest,
  verify: (body: string) => boolean,
  count: number,
): Promise<number> {
  const sendOnce = async () => {
    const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers: request.headers, body: fetchBody(request.body) });
    const body = await response.text();
    if (response.status !== 200 || !verify(body)) throw new Error(`statement count: ${request.method} ${request.path} answered ${response.status} ${body.slice(0, 500)}`);
  };
  for (let i = 0; i < warmupRequests; i++) await sendOnce();
  const before = counter.statements();
  for (let i = 0; i < count; i++) await sendOnce();
  return (counter.statements() - before) / count;
}
