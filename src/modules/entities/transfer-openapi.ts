// The OpenAPI path items of an entity's export and import routes (transfer-routes.ts): export takes
// LIST's filter and sort parameters (the same list, openapi-parameters.ts) and answers bytes; import
// takes ndjson or csv and answers counts and the errors of each refused line.
import type { EntityDefinition } from '../../config/entity-definition.js';
import { graphqlNames } from './graphql-names.js';
import { importLimits } from './import-body.js';
import { json, listParameters, query, upperFirst } from './openapi-parameters.js';
import { exportBatchSize } from './export.js';

type Schema = Record<string, unknown>;

const security = (d: EntityDefinition, op: 'list' | 'create') => [{ session: [] }, { bearer: [] }, { apiKey: [] }, ...(d.access.public && op === 'list' ? [{}] : [])];
const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const notExported = ['page', 'limit', 'cursor', 'fields', 'distinct', 'metas', 'child', 'expand'];

/** GET /api/v1/{entity}/export. */
export function exportPathItem(d: EntityDefinition): Schema {
  const parameters = [
    query('format', { type: 'string', enum: ['ndjson', 'csv'], default: 'ndjson' }, 'ndjson: one JSON record a line. csv: a header row of field names, then a row per record (RFC 4180; lists, JSON and metas as JSON text in a cell).'),
    ...listParameters(d)
      .filter((p) => !notExported.includes(p.name as string))
      .map((p) => (p.name === 'sortOrder' ? { ...p, schema: { ...(p.schema as Schema), default: 'asc' } } : p)),
  ];
  return {
    get: {
      tags: [d.pluralName],
      operationId: `export${upperFirst(graphqlNames(d).list)}`,
      summary: `Export ${d.pluralName}`,
      description:
        `Every ${d.name} LIST would answer for the same filters (no pages), oldest first unless sortBy/sortOrder say otherwise, streamed: read ${exportBatchSize} at a time, each batch in a transaction of its own as the caller (not one snapshot: none is exported twice). ` +
        'Each record as READ shows it: relations and media as ids, many-to-many as lists of ids, decimals as text, instants as ISO 8601. ' +
        `Scope: ${d.permissions.list.join(' or ') || 'none grants it'}. An export imports back through POST /api/v1/${d.slug}/import.`,
      security: security(d, 'list'),
      parameters,
      responses: {
        200: {
          description: 'The records, as an attachment',
          headers: { 'Content-Disposition': { schema: { type: 'string' }, description: `attachment; filename="${d.slug}-<date>.<format>"` } },
          content: { 'application/x-ndjson': { schema: { type: 'string' } }, 'text/csv': { schema: { type: 'string' } } },
        },
        400: error('Invalid query parameters (an unknown format, a filter that does not apply, a parameter of pages)'),
        401: error('Not signed in (entities that are not public)'),
        403: error(`Missing scope (${d.permissions.list.join(' or ')}, or the read scope of an entity a filter reaches), or no active team`),
        405: error('LIST is disabled for this entity'),
      },
    },
  };
}

const lineError = {
  type: 'object',
  required: ['line', 'status', 'code', 'error'],
  properties: { line: { type: 'integer' }, status: { type: 'integer' }, code: { type: 'string' }, error: { type: 'string' }, details: { type: 'object', additionalProperties: true } },
};
const report = {
  type: 'object',
  required: ['dryRun', 'mode', 'lines', 'created', 'refused', 'records', 'errors'],
  properties: {
    dryRun: { type: 'boolean' },
    mode: { type: 'string', enum: ['all', 'lines'] },
    lines: { type: 'integer', description: 'Records read (empty lines apart)' },
    created: { type: 'integer', description: 'Records created (a dry run: that each line would create)' },
    refused: { type: 'integer' },
    records: { type: 'array', items: { type: 'object', required: ['line', 'id'], properties: { line: { type: 'integer' }, id: { type: 'string', format: 'uuid' } } } },
    errors: { type: 'array', items: lineError },
  },
};

/** POST /api/v1/{entity}/import. */
export function importPathItem(d: EntityDefinition): Schema {
  return {
    post: {
      tags: [d.pluralName],
      operationId: `import${upperFirst(graphqlNames(d).list)}`,
      summary: `Import ${d.pluralName}`,
      description:
        `Creates a ${d.name} per line through CREATE's write path (validation, hooks, relation ids, plan limit, events), as the caller, in its active team. ` +
        'id, createdAt, updatedAt, userId, teamId and virtual fields are ignored (an export imports as new records); any other field CREATE does not take refuses the line. ' +
        `At most ${importLimits.lines} lines and ${importLimits.bytes} bytes. Format by Content-Type (application/x-ndjson, text/csv) or \`format\`. ` +
        `Scope: ${d.permissions.create.join(' or ')}.`,
      security: security(d, 'create'),
      parameters: [
        query('format', { type: 'string', enum: ['ndjson', 'csv'] }, 'The body’s format, when its Content-Type does not say it.'),
        query('dryRun', { type: 'boolean', default: false }, 'Run every line through the write path, report, and keep nothing.'),
        query('mode', { type: 'string', enum: ['all', 'lines'], default: 'all' }, 'all: every line or none (any refused line: 422, nothing kept). lines: keep the good lines, report the refused ones.'),
      ],
      requestBody: {
        required: true,
        content: {
          'application/x-ndjson': { schema: { type: 'string' }, example: '{"title":"Write the report","status":"todo"}\n' },
          'text/csv': { schema: { type: 'string' }, example: 'title,status\r\nWrite the report,todo\r\n' },
        },
      },
      responses: {
        200: json('What was created and refused, by line', { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data: report } }),
        400: error('Invalid query parameters'),
        401: error('Not signed in'),
        403: error(`Missing scope ${d.permissions.create.join(' or ')}, a viewer, or no active team`),
        405: error('CREATE is disabled for this entity'),
        413: error(`More than ${importLimits.lines} lines or ${importLimits.bytes} bytes`),
        415: error('A Content-Type that is neither ndjson nor csv, and no format'),
        422: json('Mode all: some lines were refused and nothing was imported (details: the report)', { type: 'object', required: ['success', 'error', 'details'], properties: { success: { const: false }, error: { type: 'string' }, code: { type: 'string' }, details: report } }),
      },
    },
  };
}
