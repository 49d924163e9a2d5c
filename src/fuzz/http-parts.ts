// The parts of a request every generator shares: who calls, with which method, extra and hostile
// headers, path segments and query values as bytes on the wire, and malformed JSON texts.
import fc from 'fast-check';
import { oddNumberTexts, prototypeKeys, refText, shortHostileString } from './hostile-values.js';
import { jsonText, type JsonTree } from './json-text.js';
import type { CallerKind } from './world.js';

/** Who sends a request: credentials are added when it is sent (world.ts). */
export const caller: fc.Arbitrary<{ caller: CallerKind; keyHeader: 'authorization' | 'x-api-key' }> = fc.record({
  caller: fc.oneof(
    { weight: 3, arbitrary: fc.constant<CallerKind>('session') },
    { weight: 3, arbitrary: fc.constant<CallerKind>('wildcardKey') },
    { weight: 2, arbitrary: fc.constant<CallerKind>('narrowKey') },
    { weight: 2, arbitrary: fc.constant<CallerKind>('anonymous') },
    { weight: 1, arbitrary: fc.constant<CallerKind>('unknownKey') },
  ),
  keyHeader: fc.constantFrom<'authorization' | 'x-api-key'>('authorization', 'x-api-key'),
});

/** A write sent twice at once, one time in eight. */
export const racing = fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });

/** The declared method mostly, sometimes another (405, 404, HEAD and OPTIONS answers). */
export const method = (declared: string) => fc.oneof({ weight: 12, arbitrary: fc.constant(declared) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'get') });

const unreserved = /[A-Za-z0-9\-._~]/;

/** `text` percent-encoded byte by byte (lone surrogates as U+FFFD, as UTF-8 writes them); references stay as they are, wherever they are (a `filter` JSON naming a seeded id). */
export function percentEncode(text: string): string {
  if (/^«ref:[^»]+»$/.test(text)) return text;
  if (text.includes('«ref:')) return text.split(/(«ref:[^»]+»)/).map((part, i) => (i % 2 ? part : percentEncode(part))).join('');
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && unreserved.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Path segments as sent: odd ones written raw (already "encoded"), the rest percent-encoded. */
export const rawSegment = fc.constantFrom('', '.', '..', '%2e%2e', '%2F', '%2f..%2f', '%00', '%zz', '%', '%C0%AE', ';', '%3B', '%20', '~', '%E2%80%AE', '%EF%BB%BF');

/** A query value as text: strings as they are, numbers as JSON writes them, lists comma-separated. */
export function queryText(tree: JsonTree): string {
  if (typeof tree === 'string') return tree;
  if (tree === null) return '';
  if (Array.isArray(tree)) return tree.map(queryText).join(',');
  return jsonText(tree);
}

/** Query parameters the entity routes read (their names are not in the document) and other usual ones. */
export const usualQueryNames = ['page', 'limit', 'offset', 'sortBy', 'sortOrder', 'sort', 'order', 'fields', 'distinct', 'ids', 'search', 'from', 'to', 'dateField', 'metas', 'child', 'filter', 'status', 'type', 'tagId', 'first', 'after'];

/** Extra query parameters: names the app reads (fields with `_min`/`_max`), prototype keys, junk; odd values. */
export function extraQuery(names: readonly string[], idRefs: readonly string[]): fc.Arbitrary<[string, string][]> {
  const name = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...usualQueryNames) },
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...names), fc.constantFrom('', '', '_min', '_max', '[]', '.x')).map(([n, suffix]) => n + suffix) },
    { weight: 1, arbitrary: fc.constantFrom(...prototypeKeys) },
    { weight: 1, arbitrary: shortHostileString },
  );
  const value = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...oddNumberTexts) },
    { weight: 2, arbitrary: shortHostileString },
    { weight: 1, arbitrary: fc.constantFrom(...names, 'all', 'true', 'asc', 'desc') },
    { weight: 1, arbitrary: fc.constantFrom(...idRefs).map(refText) },
  );
  return fc.array(fc.tuple(name, value), { maxLength: 4 });
}

/** `[name, value]` pairs as a query string (with odd raw pieces sometimes); '' when there are none. */
export function queryString(pairs: [string, string][], raw: string | null): string {
  const parts = pairs.map(([n, v]) => `${percentEncode(n)}=${percentEncode(v)}`);
  if (raw !== null) parts.push(raw);
  return parts.length ? `?${parts.join('&')}` : '';
}

export const rawQueryPiece = fc.option(fc.constantFrom('%', '%zz', '&&', '=', 'a=b=c', 'a[b]=c', 'limit', 'page=1&page=2', '%00=%00', '__proto__[x]=1', '+', ';'), { freq: 6, nil: null });

/** Headers a client may add: content types, team and request ids, origins, odd credentials, prototype-named headers. */
export function extraHeaders(idRefs: readonly string[]): fc.Arbitrary<[string, string][]> {
  const teamRefs = idRefs.filter((ref) => /team/i.test(ref));
  const header: fc.Arbitrary<[string, string]> = fc.oneof(
    fc.tuple(fc.constant('content-type'), fc.constantFrom('application/json', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/graphql', '', 'application/json;;;', '*/*')),
    fc.tuple(fc.constant('x-team-id'), fc.oneof(fc.constantFrom(...teamRefs).map(refText), shortHostileString)),
    fc.tuple(fc.constant('x-request-id'), shortHostileString),
    fc.tuple(fc.constant('origin'), fc.constantFrom('http://evil.example', 'null', 'http://127.0.0.1', 'https://127.0.0.1', '')),
    fc.tuple(fc.constant('sec-fetch-site'), fc.constantFrom('cross-site', 'same-origin', 'none')),
    fc.tuple(fc.constant('accept'), fc.constantFrom('application/json', 'text/html', 'application/graphql-response+json', 'text/event-stream', 'multipart/mixed', '*/*', 'image/avif', '')),
    fc.tuple(fc.constant('x-forwarded-for'), fc.constantFrom('1.2.3.4', '::1', 'garbage', '')),
    fc.tuple(fc.constant('cookie'), fc.oneof(fc.constant('sid=garbage'), shortHostileString.map((s) => `sid=${s}`), shortHostileString)),
    fc.tuple(fc.constantFrom('authorization', 'x-api-key'), fc.oneof(shortHostileString.map((s) => `Bearer ${s}`), fc.constantFrom('Basic YTpi', 'Bearer', 'Bearer ', 'bearer sk_test_' + 'x'.repeat(40)), shortHostileString)),
    fc.tuple(fc.constantFrom(...prototypeKeys, 'x-fuzz'), shortHostileString),
    fc.tuple(fc.constant('x-fuzz-large'), fc.constantFrom(8_000, 20_000).map((n) => 'h'.repeat(n))),
    fc.tuple(fc.constant('if-none-match'), fc.constantFrom('*', '"x"', 'W/"1"')),
    fc.tuple(fc.constant('range'), fc.constantFrom('bytes=0-0', 'bytes=-1', 'bytes=5-1', 'bytes=0-99999999999999999999', 'bytes=a-b')),
  );
  // Mostly none: each of these can stop a request early (a forged origin, a team the caller is not in).
  return fc.oneof({ weight: 3, arbitrary: fc.constant<[string, string][]>([]) }, { weight: 2, arbitrary: fc.array(header, { minLength: 1, maxLength: 3 }) });
}

/** JSON texts no parser accepts, or accepts in ways one does not expect. */
export const malformedJson = fc.oneof(
  fc.constantFrom('{', '}', '[', '{"a":', '[1,2', '{"a" 1}', "{'a':1}", 'nul', 'undefined', '{"a":1,}', '[,]', '\u0000', '"\\u0000"', '{"a":"\\ud800"}', '{"a":1}{"b":2}', '\ufeff{}', '1e999', '--1', '{"a":1e999}', ' ', '\r\n', 'true', '0', '"str"', '[]', '{"__proto__":{"isAdmin":true}}', '{"constructor":{"prototype":{"x":1}}}', '{"a":"\\x41"}', '{"a":01}', '{"a":NaN}', '{"a":Infinity}', '{"a":"b"\u0000}', '{"\\u0000":1}'),
  fc.tuple(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', '{', '[')).map(([s, prefix]) => prefix + s),
);
