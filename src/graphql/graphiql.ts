// The GraphiQL page and its content-security policy. @graphql-yoga/render-graphiql inlines everything
// (its script, its styles, Monaco's workers as blob: URLs), so the page loads nothing from any other
// origin. Its one inline script is allowed by hash, not by 'unsafe-inline': the page is the same for
// every request, rendered once. Styles need 'unsafe-inline': Monaco and GraphiQL's React components
// add <style> elements and style attributes at run time, which no hash or nonce can cover.
// The renderer is imported on the first page asked for: its module is ~9 MB of inlined script, which a
// static import would keep in the heap (twice: its source and its string) of every server, GraphiQL
// enabled or not (it is off in production by default).
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { inlineHashes } from '../http/headers.js';

interface Page {
  key: string;
  html: string;
  csp: string;
}

let page: Page | undefined;

/** The GraphiQL page for `options` (rendered once per distinct options, in practice once). */
export async function graphiqlPage(options?: GraphiQLOptions): Promise<string> {
  const key = JSON.stringify(options ?? {});
  if (page?.key !== key) {
    const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
    const html = renderGraphiQL(options);
    const csp = [
      "default-src 'none'",
      `script-src ${inlineHashes(html, 'script').join(' ')}`,
      "style-src 'self' 'unsafe-inline'",
      // Monaco's language workers are blob: URLs made by the page's own script.
      'worker-src blob:',
      "img-src 'self' data:",
      "font-src 'self' data:",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; ');
    page = { key, html, csp };
  }
  return page.html;
}

/** Gives yoga's GraphiQL answer (its only HTML) the page's policy; every other answer keeps the API's. */
export const graphiqlPolicy: Plugin = {
  onResponse({ response }) {
    if (page && response.headers.get('content-type')?.startsWith('text/html')) response.headers.set('content-security-policy', page.csp);
  },
};
