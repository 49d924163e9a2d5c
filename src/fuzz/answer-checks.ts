// What every answer must be, whatever was asked: a status below 500; a body in the route's envelope
// (REST: the response the OpenAPI document declares for that status, else the contract's envelope,
// `success` a boolean; GraphQL: `data` or `errors`); no stack frame and no path of the server's
// files. The same rules judge the in-suite run and the long one.
import type { FuzzRequest } from './fuzz-request.js';
import type { JsonSchema } from './schema-values.js';
import type { RawResponse } from './raw-http.js';

type Schema = JsonSchema;

/** A response or request body: its schema by media type. */
export interface OpenApiContent {
  content?: Record<string, { schema?: JsonSchema }>;
}

export interface OpenApiOperation {
  parameters?: { name: string; in: 'path' | 'query' | 'header' | 'cookie'; required?: boolean; schema?: JsonSchema }[];
  requestBody?: OpenApiContent;
  responses?: Record<string, OpenApiContent>;
  /** Empty: callable without credentials. */
  security?: unknown[];
}

/** The parts of the OpenAPI document the fuzzer reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const serverRoot = process.cwd();
/** Stack frames as V8 prints them: `    at name (file:line:col)` or `    at file:line:col`. */
const stackFrame = /^\s*at (?:.+ \()?(?:file:\/\/|node:|\/|[A-Za-z]:\\)[^\n]*:\d+:\d+\)?$/m;

const isJson = (type: string | undefined) => !!type && /^application\/(?:[\w.+-]*\+)?json\b/i.test(type);

/** What leaks server internals: stack frames and our own file paths (unless the request itself said them). */
export function leakIn(text: string, sent: string): string | null {
  // In a JSON body a stack's line breaks are escapes.
  const frame = stackFrame.exec(text.replace(/\\n/g, '\n'));
  if (frame && !sent.includes(frame[0].trim())) return `a stack frame: ${frame[0].trim().slice(0, 200)}`;
  for (const marker of [serverRoot, 'node_modules/', '/src/']) {
    if (text.includes(marker) && !sent.includes(marker)) {
      const at = text.indexOf(marker);
      return `a server path: …${text.slice(Math.max(0, at - 60), at + 100)}…`;
    }
  }
  return null;
}

/** The response the document declares for `status` of `method path`, by exact status, then class (`4XX`), then default. */
function declared(doc: OpenApiDocument, method: string, template: string, status: number): OpenApiContent | undefined {
  const responses = doc.paths[template]?.[method.toLowerCase()]?.responses;
  return responses?.[String(status)] ?? responses?.[`${String(status)[0]}XX`] ?? responses?.default;
}

function deref(doc: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  const ref = schema?.$ref;
  return ref?.startsWith('#/components/schemas/') ? doc.components?.schemas?.[ref.slice('#/components/schemas/'.length)] : schema;
}

const typeOk: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  boolean: (v) => typeof v === 'boolean',
  integer: (v) => Number.isInteger(v),
  number: (v) => typeof v === 'number',
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  array: Array.isArray,
};

/** Whether `body` has the top-level shape of `schema`: required members, constants and member types. */
function shapeProblem(body: unknown, schema: Schema): string | null {
  if (!typeOk.object!(body)) return `the body is not an object: ${JSON.stringify(body)?.slice(0, 200)}`;
  const record = body as Record<string, unknown>;
  for (const name of schema.required ?? []) if (!(name in record)) return `the body has no \`${name}\`: ${JSON.stringify(body).slice(0, 300)}`;
  for (const [name, member] of Object.entries(schema.properties ?? {})) {
    // The envelope, not the payload: a path that lands on a sibling route (an empty id) answers with its data.
    if (!(name in record) || name === 'data') continue;
    if ('const' in member && record[name] !== member.const) return `\`${name}\` is ${JSON.stringify(record[name])}, not ${JSON.stringify(member.const)}`;
    const check = typeof member.type === 'string' ? typeOk[member.type] : undefined;
    if (check && !check(record[name])) return `\`${name}\` is not ${member.type as string}: ${JSON.stringify(record[name])?.slice(0, 200)}`;
  }
  return null;
}

/** The whole events of an event stream's text (a last one cut short is left out): name and data lines joined. */
export function sseEvents(text: string): { event: string | null; data: string | null }[] {
  const blocks = text.replace(/\r\n?/g, '\n').split('\n\n');
  blocks.pop();
  return blocks.map((block) => {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      const [name, value] = colon === -1 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
      if (name === 'event') event = value;
      else if (name === 'data') data.push(value);
    }
    return { event, data: data.length ? data.join('\n') : null };
  });
}

/** What is wrong with a REST event stream: not a 200, no `retry:` first, an event whose data is not JSON. */
function restStreamProblem(response: RawResponse, text: string): string | null {
  if (response.status !== 200) return `an event stream at status ${response.status}: ${text.slice(0, 200)}`;
  if (!text.startsWith('retry:')) return `an event stream that does not start with \`retry:\`: ${text.slice(0, 200)}`;
  for (const { data } of sseEvents(text)) {
    if (data === null) continue;
    try {
      JSON.parse(data);
    } catch {
      return `an event whose data is not JSON: ${data.slice(0, 200)}`;
    }
  }
  return null;
}

/** What is wrong with GraphQL over SSE: a `next` that is no result; a stream that ended without any. */
function graphqlStreamProblem(response: RawResponse, text: string): string | null {
  let results = 0;
  for (const { event, data } of sseEvents(text)) {
    if (data === null || event === 'complete') continue;
    try {
      const result = JSON.parse(data) as Record<string, unknown>;
      if (!typeOk.object!(result) || (!('data' in result) && !Array.isArray(result.errors))) return `a ${event ?? 'message'} event that is no GraphQL result: ${data.slice(0, 200)}`;
      results++;
    } catch {
      return `an event whose data is not JSON: ${data.slice(0, 200)}`;
    }
  }
  // A subscription read for a while and left (cut) may have had nothing to say yet.
  return results || response.cut ? null : `a ${response.headers['content-type']} answer without a result: ${text.slice(0, 200)}`;
}

const restSuccess: Schema = { required: ['success'], properties: { success: { const: true } } };
const restFailure: Schema = { required: ['success', 'error'], properties: { success: { const: false }, error: { type: 'string' } } };

function restEnvelopeProblem(doc: OpenApiDocument, request: FuzzRequest, response: RawResponse, text: string): string | null {
  const template = request.route.slice(request.route.indexOf(' ') + 1);
  const answer = declared(doc, request.method, template, response.status);
  const content = answer?.content;
  const type = response.headers['content-type'];
  if (/^text\/event-stream/i.test(type ?? '')) return restStreamProblem(response, text);
  if (content && !isJson(type) && Object.keys(content).some((declaredType) => !isJson(declaredType))) return null; // bytes the route declares (an image)
  if (!isJson(type)) return `content-type ${type ?? '(none)'} instead of JSON: ${text.slice(0, 200)}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `the body is not JSON: ${text.slice(0, 200)}`;
  }
  const schema = deref(doc, content?.['application/json']?.schema);
  return shapeProblem(body, schema && (schema.required || schema.properties) ? schema : response.status < 400 ? restSuccess : restFailure);
}

/** The Accept header the request sent ('' when none). */
const acceptOf = (request: FuzzRequest) => request.headers.filter(([name]) => name.toLowerCase() === 'accept').map(([, value]) => value).join(', ');

function graphqlEnvelopeProblem(request: FuzzRequest, response: RawResponse, text: string): string | null {
  const type = response.headers['content-type'];
  const accept = acceptOf(request);
  if (request.method === 'GET' && /^text\/html/i.test(type ?? '')) return null; // GraphiQL
  // Results as server-sent events or incremental multipart, when the client asked for them (GraphQL over SSE, incremental delivery).
  if (/^text\/event-stream/i.test(type ?? '') && accept.includes('text/event-stream')) return graphqlStreamProblem(response, text);
  if (/^multipart\/mixed/i.test(type ?? '') && accept.includes(type!.split(';')[0]!)) return /"(data|errors)"/.test(text) ? null : `a ${type} answer without a result: ${text.slice(0, 200)}`;
  if (!isJson(type)) return `content-type ${type ?? '(none)'} instead of a GraphQL result: ${text.slice(0, 200)}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `the body is not JSON: ${text.slice(0, 200)}`;
  }
  if (!typeOk.object!(body)) return `the body is not an object: ${text.slice(0, 200)}`;
  const result = body as Record<string, unknown>;
  // What the app refuses before GraphQL runs (credentials, CSRF, body size, rate limit, a request node's
  // parser refused) is answered in the app's failure envelope, on every route alike: the project's choice.
  if (response.status >= 400 && !shapeProblem(body, restFailure)) return null;
  if (!('data' in result) && !Array.isArray(result.errors)) return `neither data nor errors: ${text.slice(0, 300)}`;
  return null;
}

/** What is wrong with `response` as an answer to `request`; null when nothing is. `sent` is the request as text, to tell echoes from leaks. */
export function answerProblem(doc: OpenApiDocument, request: FuzzRequest, response: RawResponse, sent: string): string | null {
  const text = response.body.toString('utf8');
  if (response.status >= 500) return `status ${response.status}: ${text.slice(0, 300)}`;
  // Pages and their scripts (GraphiQL's bundle names its own sources) are static files, not answers that could leak.
  const page = /^(text\/html|text\/css|\w+\/javascript)/i.test(response.headers['content-type'] ?? '');
  const leak = page ? null : leakIn(text, sent);
  if (leak) return `the answer shows ${leak}`;
  if (request.method === 'HEAD' || response.status === 204 || response.status === 304) return response.body.length && request.method !== 'HEAD' ? `a ${response.status} with a body` : null;
  if (request.kind === 'graphql') return graphqlEnvelopeProblem(request, response, text);
  // A path that resolves outside the API (`/api/%2e%2e` is `/`, the landing page) is held to the status and leak rules only.
  const resolved = new URL(request.target, 'http://fuzz.invalid').pathname;
  return /^\/(api|uploads)\//.test(resolved) ? restEnvelopeProblem(doc, request, response, text) : null;
}
