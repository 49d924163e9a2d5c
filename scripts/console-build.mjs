// The console's build (docs/console.md): console/src bundled by esbuild into one script and one style
// sheet named by their content's hash, an index.html that loads them (no inline script or style, so
// the page's content-security policy needs no 'unsafe-inline'), and each asset compressed beforehand
// (brotli and gzip beside it) for the server to send as the browser accepts. Run by scripts/build.mjs
// into dist/console.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/** The files whose change needs a new console build. */
export const consoleSources = ['console/src', 'console/tsconfig.json', 'client/src'];

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

export async function buildConsole(root, outDir) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { app: 'console/src/main.tsx' },
    outdir: path.join(outDir, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: path.join(root, 'console', 'tsconfig.json'),
    metafile: true,
    legalComments: 'linked',
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.resolve(root, file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const sheet = outputs.find((file) => file.endsWith('.css'));
  if (!script || !sheet) throw new Error(`the console's build made no ${script ? 'style sheet' : 'script'}`);
  const asset = (file) => `/console/assets/${path.basename(file)}`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Console</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${asset(sheet)}">
<script type="module" src="${asset(script)}"></script></head>
<body><div id="console"></div><noscript>The console needs JavaScript.</noscript></body></html>
`;
  await writeFile(path.join(outDir, 'index.html'), html);
  for (const file of outputs) {
    const body = await readFile(file);
    await writeFile(`${file}.br`, await brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    await writeFile(`${file}.gz`, await gzipped(body, { level: 9 }));
  }
  return { script: path.basename(script), sheet: path.basename(sheet) };
}
