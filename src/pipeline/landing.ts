// The page at `/`: what a first visitor needs to find their way (the console, GraphiQL, the API docs,
// the OpenAPI document, the health routes). Static HTML with no script; its one inline style is allowed by hash.
import { inlineHashes } from '../http/headers.js';
import { reply, type HttpResponse } from '../http/exchange.js';

export interface LandingOptions {
  /** GraphiQL is served at /graphql (GRAPHIQL). */
  graphiql: boolean;
  /** The console is served at /console (CONSOLE). */
  console: boolean;
}

const style = 'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{font-size:.9em}';

function render({ graphiql, console }: LandingOptions): { html: string; csp: string } {
  const links = [
    ...(console ? ['<li><a href="/console">Console</a>: sign in, manage your data, media, team and keys in the browser</li>'] : []),
    graphiql ? '<li><a href="/graphql">GraphiQL</a>: explore and run GraphQL operations at <code>/graphql</code></li>' : '<li>GraphQL: <code>POST /graphql</code></li>',
    '<li><a href="/api/v1/docs">REST API documentation</a></li>',
    '<li><a href="/api/v1/openapi.json">OpenAPI document</a> (<code>/api/v1/openapi.json</code>)</li>',
    '<li><a href="/healthz">Liveness</a> (<code>/healthz</code>) and <a href="/readyz">readiness</a> (<code>/readyz</code>)</li>',
  ];
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Platform API</title><style>${style}</style></head>
<body><h1>Platform API</h1><ul>${links.join('')}</ul></body></html>`;
  const csp = `default-src 'none'; style-src ${inlineHashes(html, 'style').join(' ')}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  return { html, csp };
}

const pages = new Map<string, { html: string; csp: string }>();

/** The landing page's answer (HTML, with its own content-security policy). */
export function landingPage(options: LandingOptions): HttpResponse {
  const key = `${options.graphiql} ${options.console}`;
  let page = pages.get(key);
  if (!page) pages.set(key, (page = render(options)));
  return reply(200, page.html, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': page.csp });
}
