// Multipart bodies, well-formed and not: the parts a route expects (files in its declared field, or
// the GraphQL multipart request's operations, map and files), then damage of the kinds parsers trip
// on (an empty part after the boundary, a missing or wrong boundary, truncation, LF line ends, a
// map that names parts that never come or prototype keys, flipped bytes).
import fc from 'fast-check';
import { hostileString, prototypeKeys } from './hostile-values.js';

/** A 1×1 PNG. */
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

interface Part {
  /** The Content-Disposition and Content-Type lines, or a damaged header block. */
  head: string;
  content: Buffer;
}

export interface MultipartBody {
  headers: [string, string][];
  body: (string | Uint8Array)[];
}

const fileContent = fc.oneof(
  fc.constant(png),
  fc.constant(Buffer.alloc(0)),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  fc.constant(Buffer.concat([png.subarray(0, 24), Buffer.from('truncated')])),
  fc.constant(Buffer.from('GIF89a' + '\u0000'.repeat(10), 'latin1')),
);

const quoted = (text: string) => text.replace(/["\\\r\n]/g, (c) => `\\${c}`);

/** A file part of field `name`, sometimes with a hostile file name, type or header block. */
function filePart(name: fc.Arbitrary<string>): fc.Arbitrary<Part> {
  return fc
    .record({
      name,
      filename: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('a.png', 'photo.jpg', 'x') }, { weight: 1, arbitrary: hostileString }),
      type: fc.oneof({ weight: 4, arbitrary: fc.constant('image/png') }, { weight: 1, arbitrary: fc.constantFrom('application/octet-stream', 'text/plain', '', 'image/svg+xml', 'multipart/mixed; boundary=y') }),
      content: fileContent,
      damage: fc.oneof({ weight: 8, arbitrary: fc.constant('none') }, { weight: 1, arbitrary: fc.constantFrom('no-disposition', 'no-name', 'filename-star', 'no-colon', 'huge-header') }),
    })
    .map(({ name, filename, type, content, damage }): Part => {
      const disposition = `Content-Disposition: form-data; name="${quoted(name)}"; filename="${quoted(filename)}"`;
      const typeLine = type ? `\r\nContent-Type: ${type}` : '';
      const head =
        damage === 'no-disposition' ? `Content-Type: ${type || 'image/png'}`
        : damage === 'no-name' ? `Content-Disposition: form-data; filename="a.png"${typeLine}`
        : damage === 'filename-star' ? `Content-Disposition: form-data; name="${quoted(name)}"; filename*=utf-8''%E2%82%AC%00.png${typeLine}`
        : damage === 'no-colon' ? `Content-Disposition form-data${typeLine}`
        : damage === 'huge-header' ? `${disposition}\r\nX-Pad: ${'p'.repeat(100_000)}`
        : disposition + typeLine;
      return { head, content };
    });
}

const fieldPart = (name: string, value: string): Part => ({ head: `Content-Disposition: form-data; name="${name}"`, content: Buffer.from(value, 'utf8') });

/** The bytes of `parts` between `boundary` lines, with the damage named by `shape`. */
function assemble(boundary: string, parts: Part[], shape: string, eol: string): Buffer {
  const chunks: Buffer[] = [];
  if (shape === 'preamble') chunks.push(Buffer.from(`garbage before${eol}`));
  for (const part of parts) chunks.push(Buffer.from(`--${boundary}${eol}${part.head.replace(/\r\n/g, eol)}${eol}${eol}`, 'utf8'), part.content, Buffer.from(eol));
  if (shape === 'empty-part') chunks.push(Buffer.from(`--${boundary}${eol}${eol}`));
  if (shape !== 'unclosed') chunks.push(Buffer.from(`--${boundary}--${eol}`));
  if (shape === 'epilogue') chunks.push(Buffer.from('garbage after'));
  return Buffer.concat(chunks);
}

/** A multipart body for `parts`, damaged or not, with its Content-Type (and `extraHeaders`). */
function multipart(parts: fc.Arbitrary<Part[]>, extraHeaders: fc.Arbitrary<[string, string][]>): fc.Arbitrary<MultipartBody> {
  return fc
    .record({
      parts,
      // Each kind of damage alone mostly, so that well-formed requests reach the upload too.
      boundary: fc.oneof({ weight: 6, arbitrary: fc.constant('fuzzboundary') }, { weight: 1, arbitrary: fc.constantFrom('----WebKitFormBoundary7MA4YWxkTrZu0gW', 'b', 'x'.repeat(80), 'a b', '"quoted"') }),
      declared: fc.oneof({ weight: 8, arbitrary: fc.constant('same') }, { weight: 1, arbitrary: fc.constantFrom('other', 'missing', 'quoted', 'empty', 'not-multipart') }),
      shape: fc.oneof({ weight: 5, arbitrary: fc.constant('ok') }, { weight: 2, arbitrary: fc.constantFrom('empty-part', 'unclosed', 'preamble', 'epilogue', 'only-empty-part') }),
      eol: fc.oneof({ weight: 8, arbitrary: fc.constant('\r\n') }, { weight: 1, arbitrary: fc.constant('\n') }),
      cut: fc.option(fc.nat(), { freq: 8, nil: null }),
      flips: fc.oneof({ weight: 6, arbitrary: fc.constant<[number, number][]>([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }) }),
      extra: extraHeaders,
    })
    .map(({ parts, boundary, declared, shape, eol, cut, flips, extra }): MultipartBody => {
      let bytes = shape === 'only-empty-part' ? Buffer.from(`--${boundary}${eol}${eol}--${boundary}--`) : assemble(boundary, parts, shape, eol);
      if (cut !== null && bytes.length) bytes = bytes.subarray(0, cut % bytes.length);
      if (flips.length && bytes.length) {
        bytes = Buffer.from(bytes);
        for (const [at, value] of flips) bytes[at % bytes.length] = value;
      }
      const type =
        declared === 'other' ? 'multipart/form-data; boundary=somethingelse'
        : declared === 'missing' ? 'multipart/form-data'
        : declared === 'quoted' ? `multipart/form-data; boundary="${boundary}"`
        : declared === 'empty' ? 'multipart/form-data; boundary='
        : declared === 'not-multipart' ? 'multipart/mixed; boundary=' + boundary
        : `multipart/form-data; boundary=${boundary}`;
      return { headers: [['content-type', type], ...extra], body: [bytes] };
    });
}

/** Uploads to a REST route whose files go in `field`. */
export function restMultipart(field: string, extraHeaders: fc.Arbitrary<[string, string][]>): fc.Arbitrary<MultipartBody> {
  const name = fc.oneof({ weight: 6, arbitrary: fc.constant(field) }, { weight: 1, arbitrary: fc.constantFrom('file', '', ...prototypeKeys) }, { weight: 1, arbitrary: hostileString });
  const parts = fc.tuple(fc.array(filePart(name), { maxLength: 3 }), fc.option(fc.tuple(fc.constantFrom('title', field, '__proto__'), hostileString), { freq: 4, nil: null })).map(([files, field]) => (field ? [...files, fieldPart(...field)] : files));
  return multipart(parts, extraHeaders);
}

/** GraphQL multipart requests (operations, map, files) for `query` whose Upload variable is `variable` (a list when `list`). */
export function graphqlMultipart(query: string, variable: string, list: boolean, extraHeaders: fc.Arbitrary<[string, string][]>): fc.Arbitrary<MultipartBody> {
  const files = fc.integer({ min: 0, max: 3 });
  const parts = fc
    .record({
      files,
      operations: fc.oneof({ weight: 8, arbitrary: fc.constant('ok') }, { weight: 1, arbitrary: fc.constantFrom('not-json', 'batch', 'no-query', 'variables-string') }),
      map: fc.oneof({ weight: 6, arbitrary: fc.constant('ok') }, { weight: 2, arbitrary: fc.constantFrom('missing-part', 'not-json', 'proto-key', 'proto-path', 'bad-path', 'not-array', 'absent') }),
      order: fc.oneof({ weight: 6, arbitrary: fc.constant('spec') }, { weight: 1, arbitrary: fc.constantFrom('files-first', 'duplicate') }),
      file: filePart(fc.constant('0')),
    })
    .map(({ files, operations, map, order, file }): Part[] => {
      const nulls = Array.from({ length: files }, () => null);
      const variables = { [variable]: list ? nulls : null };
      const ops =
        operations === 'not-json' ? '{"query":'
        : operations === 'batch' ? JSON.stringify([{ query, variables }])
        : operations === 'no-query' ? JSON.stringify({ variables })
        : operations === 'variables-string' ? JSON.stringify({ query, variables: 'x' })
        : JSON.stringify({ query, variables });
      const paths = Object.fromEntries(Array.from({ length: files }, (_, i) => [String(i), [list ? `variables.${variable}.${i}` : `variables.${variable}`]]));
      const mapText =
        map === 'missing-part' ? JSON.stringify({ ...paths, 99: [`variables.${variable}.0`] })
        : map === 'not-json' ? '{0:'
        : map === 'proto-key' ? `{"__proto__":["variables.${variable}.0"],"constructor":["variables.${variable}"]}`
        : map === 'proto-path' ? JSON.stringify({ 0: ['variables.__proto__.polluted', 'variables.constructor.prototype.x'] })
        : map === 'bad-path' ? JSON.stringify({ 0: ['variables', '', `variables.${variable}.99999999`, 'query'] })
        : map === 'not-array' ? JSON.stringify({ 0: `variables.${variable}.0` })
        : JSON.stringify(paths);
      const fileParts = Array.from({ length: files }, (_, i) => ({ ...file, head: file.head.replace('name="0"', `name="${i}"`) }));
      const head = [fieldPart('operations', ops), ...(map === 'absent' ? [] : [fieldPart('map', mapText)])];
      if (order === 'files-first') return [...fileParts, ...head];
      if (order === 'duplicate') return [...head, ...head, ...fileParts];
      return [...head, ...fileParts];
    });
  return multipart(parts, extraHeaders);
}
