// The OpenAPI 3.1 document, built from the same route declarations and zod schemas the router uses,
// and a docs page that renders it (Swagger UI, served from our own origin).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import { reply, type HttpResponse } from '../http/exchange.js';
import type { RestRoute } from './route.js';

type JsonSchema = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

const errorEnvelope: JsonSchema = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { const: false },
    error: { type: 'string' },
    code: { type: 'string' },
    details: { type: 'object' },
  },
};

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query') {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => ({
    name,
    in: where,
    required: where === 'path' || !field.safeParse(undefined).success,
    schema: toSchema(field, 'input'),
  }));
}

function operation(route: RestRoute) {
  const status = String(route.status ?? 200);
  const data = route.response ? toSchema(route.response, 'output') : {};
  return {
    summary: route.summary,
    tags: route.tags,
    security: route.access === 'public' ? [] : route.access === 'session' ? [{ session: [] }] : [{ session: [] }, { bearer: [] }, { apiKey: [] }],
    parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: toSchema(route.body, 'input') } } } } : {}),
    responses: {
      [status]: status === '204'
        ? { description: 'No content' }
        : { description: 'Success', content: { 'application/json': { schema: { type: 'object', properties: { success: { const: true }, data } } } } },
      '4XX': { description: 'Client error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      '500': { description: 'Unexpected error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  };
}

/** The OpenAPI 3.1 document of every declared route, and of the operations `extra` documents by hand (routes that are not declarations). */
export function buildOpenApi(routes: readonly RestRoute[], extra: Record<string, Record<string, unknown>> = {}): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = structuredClone(extra);
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  return {
    openapi: '3.1.0',
    info: { title: 'Platform API', version: '1.0.0', description: 'REST compatibility layer; every route runs the same GraphQL operation as /graphql.' },
    paths,
    components: {
      schemas: { Error: errorEnvelope },
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'sid' },
        bearer: { type: 'http', scheme: 'bearer' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  };
}

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const docsAssets: Record<string, string> = { 'swagger-ui.css': 'text/css', 'swagger-ui-bundle.js': 'text/javascript' };

// The page runs no inline script (its start-up is an asset of its own) and has no inline style (Swagger
// UI sets styles through the DOM, which a policy does not block): scripts and styles from this origin only.
const docsInit = "window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#ui' });\n";
const docsCsp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The docs page, or one of its assets; null for anything else. */
export async function docsResponse(pathname: string): Promise<HttpResponse | null> {
  if (pathname === '/api/v1/docs') {
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>Platform API</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/api/v1/docs/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/api/v1/docs/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/init.js"></script></body></html>`;
    return reply(200, html, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': docsCsp });
  }
  if (pathname === '/api/v1/docs/init.js') return reply(200, docsInit, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' });
  const asset = pathname.slice('/api/v1/docs/'.length);
  const type = pathname.startsWith('/api/v1/docs/') && Object.hasOwn(docsAssets, asset) ? docsAssets[asset] : undefined;
  if (!type) return null;
  const body = await readFile(path.join(swaggerDir, asset));
  return reply(200, body, { 'content-type': type, 'cache-control': 'public, max-age=86400' });
}
