// GET /api/v1/{entity}/export and POST /api/v1/{entity}/import: HTTP declarations (an export is a
// stream of bytes, an import a body of lines, neither a JSON envelope of one operation). HTTP
// declarations are matched before the JSON routes, so `export` and `import` never reach READ as ids.
// Each is a face of a GraphQL field and judged by its rule in the pipeline: export by LIST's
// (`tasks`, anonymous callers too on a public entity), import by CREATE's (`createTask`).
import { Readable } from 'node:stream';
import type { EntityDefinition } from '../../config/entity-definition.js';
import type { Database } from '../../db/database.js';
import { committing, RequestDb } from '../../db/request-db.js';
import type { Actor } from '../../auth/actor.js';
import { reply } from '../../http/exchange.js';
import { success } from '../../rest/envelope.js';
import { defineHttpRoute, type HttpRoute } from '../../rest/http-route.js';
import { assertPlainQuery } from '../../rest/query-params.js';
import { AppError } from '../../shared/errors.js';
import { exportColumns, exportedBatches, exportPlan, exportText, type BatchReader } from './export.js';
import { graphqlNames } from './graphql-names.js';
import { importRecords, type ImportMode } from './import.js';
import { formatOfContentType, importFormats, importLimits, importLines, spoolBody, type ImportFormat } from './import-body.js';
import { invalidQuery } from './query.js';
import { callerFor } from './service.js';
import { exportPathItem, importPathItem } from './transfer-openapi.js';

/** A batch reader through RLS as `actor` (anonymous: as nobody), one committed transaction per batch. */
function readingAs(database: Database, actor: Actor): BatchReader {
  return (work) => {
    const db = new RequestDb(database, actor.kind === 'user' ? actor.userId : null);
    return committing(db, async () => work(await db.tx()));
  };
}

const day = (now: Date) => now.toISOString().slice(0, 10);

function exportRoute(d: EntityDefinition): HttpRoute {
  return defineHttpRoute({
    methods: ['GET'],
    path: `/api/v1/${d.slug}/export`,
    pipeline: true,
    ruleOf: `Query.${graphqlNames(d).list}`,
    openApi: exportPathItem(d),
    start({ schema, database, logger }) {
      return async (request, ctx) => {
        assertPlainQuery(request.url);
        // Everything that can refuse is decided here, before the first byte: the answer is then 200.
        const plan = exportPlan(ctx, schema, d, Object.fromEntries(request.url.searchParams));
        const text = exportText(exportedBatches(readingAs(database, ctx.actor), d, plan), plan.format, exportColumns(d, plan.caller));
        const body = Readable.from(logged(text, (error) => logger.error({ err: error, requestId: ctx.requestId }, `export of ${d.slug} failed while streaming`)), { objectMode: false });
        return reply(200, body, {
          'content-type': plan.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
          'content-disposition': `attachment; filename="${d.slug}-${day(ctx.now())}.${plan.format}"`,
          'cache-control': 'no-store',
        });
      };
    },
  });
}

/** The chunks of `text`; a failure once the answer has started is logged (the client sees the body cut short). */
async function* logged(text: AsyncIterable<string>, report: (error: unknown) => void): AsyncGenerator<string> {
  try {
    yield* text;
  } catch (error) {
    report(error);
    throw error;
  }
}

/** `format`, `dryRun` and `mode` of an import's query string, and the body's format; 400 or 415 otherwise. */
function importOptions(url: URL, contentType: string | null): { format: ImportFormat; dryRun: boolean; mode: ImportMode } {
  const { format, dryRun = 'false', mode = 'all', ...rest } = Object.fromEntries(url.searchParams);
  const problems = Object.keys(rest).map((path) => ({ path, message: 'is not a parameter of import (format, dryRun, mode)' }));
  if (format !== undefined && !(importFormats as readonly string[]).includes(format)) problems.push({ path: 'format', message: `must be one of ${importFormats.join(', ')}` });
  if (dryRun !== 'true' && dryRun !== 'false') problems.push({ path: 'dryRun', message: 'must be true or false' });
  if (mode !== 'all' && mode !== 'lines') problems.push({ path: 'mode', message: 'must be all or lines' });
  if (problems.length) throw invalidQuery(problems);
  const chosen = (format as ImportFormat | undefined) ?? formatOfContentType(contentType);
  if (!chosen) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'An import is ndjson (Content-Type application/x-ndjson) or csv (text/csv), or says which with format=');
  return { format: chosen, dryRun: dryRun === 'true', mode: mode as ImportMode };
}

function importRoute(d: EntityDefinition): HttpRoute {
  return defineHttpRoute({
    methods: ['POST'],
    path: `/api/v1/${d.slug}/import`,
    pipeline: true,
    ruleOf: `Mutation.${graphqlNames(d).create}`,
    bodyLimitBytes: () => importLimits.bytes,
    openApi: importPathItem(d),
    start() {
      return async (request, ctx) => {
        assertPlainQuery(request.url);
        const { format, dryRun, mode } = importOptions(request.url, request.header('content-type'));
        // Who may create at all (an active team, not a viewer) is known before a byte of the body is read.
        callerFor(ctx, d, 'create');
        // The whole body is received before the transaction opens (import-body.ts).
        const body = await spoolBody(request.body, format);
        try {
          const report = await importRecords(ctx, d, importLines(d, body.file, format), { dryRun, mode });
          // A dry run keeps nothing: the request's transaction rolls back, queued after-commit work with it.
          if (dryRun) ctx.fail();
          return success(200, report);
        } finally {
          await body.discard();
        }
      };
    },
  });
}

/** The export route of every entity that may be listed, and the import route of every entity that may be created. */
export function transferRoutes(definitions: readonly EntityDefinition[]): HttpRoute[] {
  return definitions.flatMap((d) => [...(d.operations.list ? [exportRoute(d)] : []), ...(d.operations.create ? [importRoute(d)] : [])]);
}
