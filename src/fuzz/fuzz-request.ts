// One generated request, as data: what it aims at, who sends it, and its bytes with references to
// the seeded world (`«ref:name»`) left in until it is sent. Printing it gives a curl command that
// replays it.
import type { RawRequest } from './raw-http.js';
import type { CallerKind, World } from './world.js';

/** Which protocol's rules the answer is held to. */
export type RouteKind = 'rest' | 'graphql';

export interface FuzzRequest {
  kind: RouteKind;
  /** The operation aimed at (`GET /api/v1/teams/{teamId}`, `graphql Mutation.createTask`): findings group by it. */
  route: string;
  method: string;
  /** Path and query as sent, encoded. */
  target: string;
  caller: CallerKind;
  keyHeader: 'authorization' | 'x-api-key';
  headers: [string, string][];
  /** Body chunks: strings are sent as UTF-8 (after references are resolved), bytes as they are. */
  body?: (string | Uint8Array)[];
  /** Sent twice at once (a race between two identical writes). */
  twin?: boolean;
  /** An answer that is an event stream: how it is read and left (fuzz-run.ts). */
  stream?: StreamRead;
}

/** How the client reads a stream and leaves it: the server must survive every way. */
export interface StreamRead {
  /** `read`: read `ms` after the answer's head, then close; `leave`: close `ms` after sending, whatever came. */
  how: 'read' | 'leave';
  ms: number;
  /** While the stream is open, the fuzzing caller updates its record of this entity (an event to deliver as the client goes). */
  change?: string;
  /** The stream's entity is not public: no caller but the superadmin's `*` key may receive the victim's ids on it. */
  private?: boolean;
}

const refPattern = /«ref:([^»]+)»/g;

/** `text` with every reference replaced by its value now (unknown names stay as written). */
export function resolveRefs(text: string, refs: Map<string, string>): string {
  return text.includes('«ref:') ? text.replace(refPattern, (whole, name: string) => refs.get(name) ?? whole) : text;
}

/** The request as it goes on the wire, credentials included. */
export function toRaw(request: FuzzRequest, world: World): RawRequest {
  const refs = world.refsOf(request.caller);
  const headers: [string, string][] = [...Object.entries(world.headersOf(request.caller, request.keyHeader)), ...request.headers.map(([name, value]): [string, string] => [name, resolveRefs(value, refs)])];
  const body = request.body && Buffer.concat(request.body.map((chunk) => (typeof chunk === 'string' ? Buffer.from(resolveRefs(chunk, refs), 'utf8') : chunk)));
  return { method: request.method, target: resolveRefs(request.target, refs), headers, body };
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const printable = (text: string) => /^[\t\n\x20-\x7e\u00a0-\uffff]*$/.test(text) && !/[\ud800-\udfff]/.test(text);

/** A shell command that sends `raw` again: curl when curl can say it, else the bytes through nc. */
export function replayCommand(raw: RawRequest, origin: string): string {
  const bodyText = raw.body?.toString('utf8') ?? '';
  const curlable = raw.headers.every(([n, v]) => printable(n + v) && !/[\r\n]/.test(n + v)) && (!raw.body || (printable(bodyText) && Buffer.from(bodyText, 'utf8').equals(raw.body) && raw.body.length <= 4000));
  if (curlable) {
    const parts = ['curl -sS -i', '-X', raw.method, shellQuote(origin + raw.target), ...raw.headers.flatMap(([n, v]) => ['-H', shellQuote(`${n}: ${v}`)])];
    if (raw.body?.length) parts.push('--data-binary', shellQuote(bodyText));
    return parts.join(' ');
  }
  const { host, hostname, port } = new URL(origin);
  const head = [`${raw.method} ${raw.target} HTTP/1.1`, `Host: ${host}`, 'Connection: close', ...raw.headers.map(([n, v]) => `${n}: ${v}`), `Content-Length: ${raw.body?.length ?? 0}`].join('\r\n') + '\r\n\r\n';
  const bytes = Buffer.concat([Buffer.from(head, 'latin1'), raw.body ?? Buffer.alloc(0)]);
  return `echo ${bytes.toString('base64')} | base64 -d | nc -q 10 ${hostname} ${port}${bytes.length > 8000 ? `   # ${bytes.length} bytes` : ''}`;
}

/** A short description: route, caller, method, target and the start of the body. */
export function describe(request: FuzzRequest): string {
  const body = request.body?.map((c) => (typeof c === 'string' ? c : `<${c.length} bytes>`)).join('') ?? '';
  const shown = body.length > 300 ? `${body.slice(0, 300)}… (${body.length} chars)` : body;
  const stream = request.stream ? `, ${request.stream.how === 'read' ? 'read' : 'left'} after ${request.stream.ms} ms${request.stream.change ? `, its ${request.stream.change} record changed meanwhile` : ''}` : '';
  return `${request.route} as ${request.caller}${request.twin ? ', sent twice at once' : ''}${stream}: ${request.method} ${request.target.slice(0, 300)}${request.headers.length ? ` headers ${JSON.stringify(request.headers).slice(0, 300)}` : ''}${shown ? ` body ${JSON.stringify(shown)}` : ''}`;
}
