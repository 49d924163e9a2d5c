// GET /api/v1/cron/process: one batch of the queue for an external scheduler. Not a GraphQL operation
// and not enveloped (contract): 200 {processed, succeeded, failed, errors}; 401 {error, message} for a
// missing or wrong x-cron-secret, compared in constant time (SHA-256 of both, then timingSafeEqual);
// while CRON_SECRET is unset or shorter than 32 characters cron is disabled (the route refuses to run
// rather than accept a guessable secret): 401 too, as the contract answers any call without the
// right secret, with a message saying it is disabled (the server logs that once at start). Outside the
// request pipeline: no user is authenticated, the secret is the credential.
import type { Logger } from 'pino';
import { sameSecret } from '../../auth/secret-token.js';
import type { HttpRequest, HttpResponse } from '../../http/exchange.js';
import { json } from '../../rest/envelope.js';
import { defineHttpRoute } from '../../rest/http-route.js';
import type { BatchReport } from './interfaces.js';
import { processBatch, queueDeps } from './processor.js';

export const cronPath = '/api/v1/cron/process';
export const minimumSecretLength = 32;

/** Whether the presented secret is the configured one, in time that does not depend on where they differ. */
export function cronSecretMatches(configured: string, presented: string | null): boolean {
  return sameSecret(configured, presented);
}

/** Why cron processing is disabled by this CRON_SECRET (unset, or too short), or null when it is enabled. */
export function cronDisabledReason(secret: string | undefined): string | null {
  if (secret === undefined) return 'CRON_SECRET is not set';
  if (secret.length < minimumSecretLength) return `CRON_SECRET is shorter than ${minimumSecretLength} characters`;
  return null;
}

/** Answers the cron call: checks the secret, then runs `processBatch`. */
export async function handleCronProcess(request: HttpRequest, secret: string | undefined, processBatch: () => Promise<BatchReport>, log: Logger): Promise<HttpResponse> {
  const disabled = cronDisabledReason(secret);
  if (disabled || secret === undefined) {
    return json(401, { error: 'Unauthorized', message: `Cron processing is disabled: ${disabled} (set it to a random string of at least ${minimumSecretLength} characters)` });
  }
  if (!cronSecretMatches(secret, request.header('x-cron-secret'))) {
    return json(401, { error: 'Unauthorized', message: 'Missing or invalid x-cron-secret header' });
  }
  try {
    return json(200, await processBatch());
  } catch (error) {
    log.error({ err: error }, 'scheduled actions batch failed');
    return json(500, { error: 'Internal Server Error', message: 'Processing failed; the next call tries again' });
  }
}

const report = {
  type: 'object',
  required: ['processed', 'succeeded', 'failed', 'errors'],
  properties: {
    processed: { type: 'integer', description: 'Attempts settled by this batch (run, or reclaimed from a stopped process).' },
    succeeded: { type: 'integer' },
    failed: { type: 'integer' },
    errors: { type: 'array', items: { type: 'object', properties: { actionId: { type: 'string' }, error: { type: 'string' } }, required: ['actionId', 'error'] } },
  },
};
const bare = (description: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object', properties: { error: { type: 'string' }, message: { type: 'string' } }, required: ['error', 'message'] } } },
});

/** The cron route in /api/v1/openapi.json (it is not a route declaration). */
export const cronOpenApiPaths: Record<string, Record<string, unknown>> = {
  [cronPath]: {
    get: {
      operationId: 'processScheduledActions',
      summary: 'Process one batch of due scheduled actions (for an external scheduler; not enveloped)',
      tags: ['Scheduled actions'],
      security: [],
      parameters: [{ name: 'x-cron-secret', in: 'header', required: true, schema: { type: 'string' }, description: 'The CRON_SECRET setting.' }],
      responses: {
        '200': { description: 'The batch', content: { 'application/json': { schema: report } } },
        '401': bare('Missing or wrong x-cron-secret, or cron disabled (CRON_SECRET unset or shorter than 32 characters; the message says so)'),
        '500': bare('The batch failed'),
      },
    },
  },
};

/** The cron route's declaration: outside the pipeline, its own answers (not enveloped). */
export const cronRoute = defineHttpRoute({
  methods: ['GET'],
  path: cronPath,
  pipeline: false,
  openApi: cronOpenApiPaths[cronPath],
  start({ config, database, now, logger, services }) {
    const secret = config.scheduledActions.cronSecret;
    const disabled = cronDisabledReason(secret);
    if (disabled) logger.warn(`${disabled}: cron is disabled, GET ${cronPath} answers 401`);
    const queue = queueDeps(database, config, now, logger.child({ module: 'scheduled-actions' }), services);
    return (request) => handleCronProcess(request, secret, () => processBatch(queue), queue.log);
  },
});
