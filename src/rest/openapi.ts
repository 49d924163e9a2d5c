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

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** `GET /api/v1/media/{id}/render` → `getMediaByIdRender`: an operationId for an operation that names none. */
function methodPathId(method: string, path: string): string {
  const words = path.split('/').filter((s) => s && s !== 'api' && !/^v\d+$/.test(s));
  const parts = words.map((s) => (s.startsWith('{') ? `By${upperFirst(s.slice(1, -1))}` : s.split(/[^A-Za-z0-9]+/).map(upperFirst).join('')));
  return method.toLowerCase() + parts.join('');
}

/** The route's own operationId, else its GraphQL operation's name (`Login` → `login`). */
function operationIdOf(route: RestRoute): string | undefined {
  if (route.openapi?.operationId) return route.openapi.operationId;
  const definition = route.operation.definitions.find((d) => d.kind === 'OperationDefinition');
  const name = definition && 'name' in definition ? definition.name?.value : undefined;
  return name ? name.charAt(0).toLowerCase() + name.slice(1) : undefined;
}

/**
 * What the route's description says of the scopes its operation requires (derived by the router from
 * the root fields' authScopes): a caller without them is refused with 403. Nothing when it names none.
 */
function scopesNote(scopes: readonly string[]): string | null {
  if (!scopes.length) return null;
  const named = scopes.map((s) => `\`${s}\``).join(', ');
  return scopes.length === 1 ? `Requires scope ${named}.` : `Requires scopes ${named}.`;
}

function operation(route: RestRoute) {
  const status = String(route.status ?? 200);
  const data = route.response ? toSchema(route.response, 'output') : {};
  const written = route.openapi ?? {};
  const scopes = route.scopes ?? [];
  const description = [written.description, scopesNote(scopes)].filter(Boolean).join('\n\n');
  const declared = new Set((written.parameters ?? []).map((p) => `${(p as { in?: string }).in}:${(p as { name?: string }).name}`));
  // Written parameters replace the derived query ones; path parameters the route's schema names stay unless written.
  const derivedPath = parameters(route.params, 'path').filter((p) => !declared.has(`path:${p.name}`));
  return {
    operationId: operationIdOf(route),
    summary: written.summary ?? route.summary,
    ...(description ? { description } : {}),
    ...(scopes.length ? { 'x-required-scopes': scopes } : {}),
    tags: route.tags,
    security: route.access === 'public' ? [] : route.access === 'session' ? [{ session: [] }] : [{ session: [] }, { bearer: [] }, { apiKey: [] }],
    parameters: written.parameters ? [...derivedPath, ...written.parameters] : [...derivedPath, ...parameters(route.query, 'query')],
    ...(written.requestBody ? { requestBody: written.requestBody } : route.body ? { requestBody: { required: true, content: { 'application/json': { schema: toSchema(route.body, 'input') } } } } : {}),
    responses: written.responses
      ? { ...written.responses, '500': { ...errorResponse('Unexpected error'), content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { success: false, error: 'Internal server error', code: 'INTERNAL_ERROR' } } } } }
      : {
          [status]: status === '204'
            ? { description: 'No content' }
            : { description: 'Success', content: { 'application/json': { schema: { type: 'object', properties: { success: { const: true }, data } } } } },
          '4XX': errorResponse('Client error'),
          '500': errorResponse('Unexpected error'),
        },
  };
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

type Operations = Record<string, Record<string, Record<string, unknown>>>;
const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation gets an operationId, unique in the document: a taken one becomes method + path. */
function uniqueOperationIds(paths: Operations): void {
  const taken = new Set<string>();
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!methods.includes(method)) continue;
      let id = typeof op.operationId === 'string' && !taken.has(op.operationId) ? op.operationId : methodPathId(method, path);
      for (let n = 2; taken.has(id); n++) id = `${methodPathId(method, path)}${n}`;
      taken.add(id);
      op.operationId = id;
    }
  }
}

/** The document's tags, in order of first use. */
function tagsOf(paths: Operations): { name: string }[] {
  const names = new Set<string>();
  for (const item of Object.values(paths)) for (const op of Object.values(item)) for (const tag of (op.tags as string[] | undefined) ?? []) names.add(tag);
  return [...names].map((name) => ({ name }));
}

/**
 * The OpenAPI 3.1 document of every declared route, and of the operations `extra` documents by hand
 * (routes that are not declarations). Give it the router's routes (RestRouter.routes): they carry the
 * scopes derived from their operations, which each operation states (description, x-required-scopes).
 * A route switched off by configuration (an entity operation a definition disables) is not in it. Served at /api/v1/openapi.json and linted in CI (`npm run lint:openapi`).
 */
export function buildOpenApi(routes: readonly RestRoute[], extra: Record<string, Record<string, unknown>> = {}): JsonSchema {
  const paths = structuredClone(extra) as Operations;
  const schemas: Record<string, unknown> = { Error: errorEnvelope };
  for (const route of routes) {
    if (route.enabled && !route.enabled({})) continue;
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
    Object.assign(schemas, route.openapi?.schemas);
  }
  uniqueOperationIds(paths);
  return {
    openapi: '3.1.0',
    info: { title: 'Platform API', version: '1.0.0', description: 'REST compatibility layer; every route runs the same GraphQL operation as /graphql.' },
    // Relative: the server that served this document (any host, behind any proxy).
    servers: [{ url: '/', description: 'This server' }],
    tags: tagsOf(paths),
    paths,
    components: {
      schemas,
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
