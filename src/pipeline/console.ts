// The console at /console (docs/console.md): the static files scripts/console-build.mjs writes to
// dist/console. Its page for every path under /console (the app routes in the browser), no-cache; its
// assets, named by their content's hash, cached for a year as immutable and sent compressed as the
// browser accepts (brotli, else gzip, made at build time). A policy without 'unsafe-inline': the page
// loads one script and one style sheet of this origin and talks to this origin only.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { failure } from '../rest/envelope.js';
import { reply, type HttpResponse } from '../http/exchange.js';

/** Where the build puts the console: dist/console of the repository, whether the server runs from dist/ or src/. */
export const consoleDir = fileURLToPath(new URL('../../dist/console', import.meta.url));

const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const types: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.txt': 'text/plain; charset=utf-8' };
const encodings = [
  ['br', '.br'],
  ['gzip', '.gz'],
] as const;

/** Whether `header` (Accept-Encoding) takes `coding`: named with a quality above zero, or by `*`. */
function accepts(header: string, coding: string): boolean {
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (name !== coding && name !== '*') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  }
  return false;
}

async function fileOrNull(file: string): Promise<Buffer | null> {
  return readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'EISDIR') return null;
    throw error;
  });
}

const notBuilt = () => failure(503, 'CONSOLE_NOT_BUILT', 'The console is not built: run npm run build (npm start does)');

/** The answer for `pathname` under /console: an asset, or the page. */
export async function consoleResponse(pathname: string, acceptEncoding: string | null): Promise<HttpResponse> {
  const assets = '/console/assets/';
  if (pathname.startsWith(assets)) {
    const name = pathname.slice(assets.length);
    const type = types[path.extname(name)];
    if (!/^[\w.-]+$/.test(name) || !type) return failure(404, 'NOT_FOUND', `No console asset ${name}`);
    const file = path.join(consoleDir, 'assets', name);
    const headers = { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable', vary: 'accept-encoding' };
    for (const [coding, suffix] of encodings) {
      if (!accepts(acceptEncoding ?? '', coding)) continue;
      const body = await fileOrNull(`${file}${suffix}`);
      if (body) return reply(200, body, { ...headers, 'content-encoding': coding });
    }
    const body = await fileOrNull(file);
    return body ? reply(200, body, headers) : failure(404, 'NOT_FOUND', `No console asset ${name}`);
  }
  const page = await fileOrNull(path.join(consoleDir, 'index.html'));
  if (!page) return notBuilt();
  return reply(200, page, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'content-security-policy': csp });
}
