// Delivering one `webhook:send` action: a POST of the event to every active endpoint of the action's
// team subscribed to its event type, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`,
// `webhook-signature`, made by the `standardwebhooks` package), each attempt recorded in the delivery
// log. An endpoint *succeeds* with a 2xx answer; anything else (another status, redirects included,
// which are never followed; a network error; a refused destination; the timeout) fails it, and the
// action fails when any endpoint failed, so the queue retries it. A retry sends only to the endpoints
// that have not yet succeeded for this action, with the same `webhook-id` (receivers deduplicate on it:
// delivery is at least once).
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../../config/config.js';
import type { Tx } from '../../db/request-db.js';
import { checkUrlShape, DestinationRefused, guardedLookup } from './destination-guard.js';
import { patternsFor } from './event-types.js';
import * as repo from './repository.js';
import { openSecret } from './signing-secret.js';

/** The event a `webhook:send` action carries (the contract's payload). */
export interface WebhookEvent {
  eventType: string;
  entityType: string;
  entityId: string;
  data: Record<string, unknown>;
}

export interface DeliveryContext {
  actionId: string;
  teamId: string | null;
  /** The action's attempt (1 for the first execution). */
  attempt: number;
  /** Named system access: delivery is the queue's work. */
  db: Tx;
  settings: Config['webhooks'];
  now(): Date;
  /** The handler's signal: aborted when the action's timeout passes. */
  signal: AbortSignal;
  log: Logger;
}

/** Bytes of a response body kept in the log, characters of an error, old log entries pruned per delivery. */
const excerptBytes = 1024;
const errorChars = 500;
const pruneLimit = 100;
const userAgent = 'Platform-Webhooks/1';

interface Answer {
  statusCode: number;
  excerpt: string;
}

interface Outcome {
  endpointId: string;
  succeeded: boolean;
  statusCode: number | null;
  error: string | null;
}

/** Delivers an action's event; throws (failing the attempt) when any endpoint failed. Its result says where it went. */
export async function deliverEvent(event: WebhookEvent, ctx: DeliveryContext): Promise<Record<string, unknown>> {
  if (!ctx.teamId) throw new Error('webhook:send needs the action’s teamId: webhook endpoints belong to a team');
  const targets = await repo.subscribedEndpoints(ctx.db, ctx.teamId, patternsFor(event.eventType));
  const done = await repo.deliveredEndpointIds(ctx.db, ctx.actionId);
  const pending = targets.filter((target) => !done.has(target.id));
  const alreadyDelivered = targets.filter((target) => done.has(target.id)).map((target) => target.id);
  const messageId = `msg_${ctx.actionId}`;
  if (!pending.length) {
    const message = targets.length ? 'Already delivered to every subscribed endpoint' : `No active endpoint of the team is subscribed to ${event.eventType}`;
    return { eventType: event.eventType, messageId, delivered: [], alreadyDelivered, message };
  }
  const outcomes = await Promise.all(pending.map((target) => deliverTo(target, event, messageId, ctx)));
  const failed = outcomes.filter((o) => !o.succeeded);
  if (failed.length) {
    throw new Error(`Delivery failed for ${failed.length} of ${outcomes.length} endpoint(s): ${failed.map((o) => `${o.endpointId}: ${o.error}`).join('; ')}`);
  }
  return { eventType: event.eventType, messageId, delivered: outcomes.map(({ endpointId, statusCode }) => ({ endpointId, statusCode })), alreadyDelivered };
}

/** The request body: the Standard Webhooks shape `{type, timestamp, data}`. */
export function eventBody(event: WebhookEvent, at: Date): string {
  return JSON.stringify({ type: event.eventType, timestamp: at.toISOString(), data: { entityType: event.entityType, entityId: event.entityId, record: event.data } });
}

async function deliverTo(target: repo.TargetRow, event: WebhookEvent, messageId: string, ctx: DeliveryContext): Promise<Outcome> {
  const at = ctx.now();
  const body = eventBody(event, at);
  const started = performance.now();
  let answer: Answer | null = null;
  let error: string | null = null;
  try {
    const signature = new Webhook(openSecret(target.secretSealed, ctx.settings.secretKey)).sign(messageId, at, body);
    answer = await post(new URL(target.url), body, {
      'content-type': 'application/json',
      'user-agent': userAgent,
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    }, ctx);
    if (answer.statusCode < 200 || answer.statusCode > 299) {
      error = `HTTP ${answer.statusCode}${answer.statusCode >= 300 && answer.statusCode < 400 ? ' (redirects are not followed)' : ''}`;
    }
  } catch (thrown) {
    error = describe(thrown, ctx);
  }
  const durationMs = Math.round(performance.now() - started);
  const outcome: Outcome = { endpointId: target.id, succeeded: error === null, statusCode: answer?.statusCode ?? null, error };
  if (error) ctx.log.warn({ endpointId: target.id, statusCode: outcome.statusCode, error }, 'webhook delivery failed');
  try {
    await repo.recordDelivery(ctx.db, {
      endpointId: target.id,
      teamId: ctx.teamId!,
      actionId: ctx.actionId,
      messageId,
      eventType: event.eventType,
      attempt: ctx.attempt,
      succeeded: outcome.succeeded,
      statusCode: outcome.statusCode,
      durationMs,
      error,
      responseBody: answer?.excerpt ?? null,
      createdAt: at,
    }, new Date(at.getTime() - ctx.settings.deliveryRetentionMs), pruneLimit);
  } catch (recordError) {
    // A success that is not recorded is sent again by the retry (receivers deduplicate on webhook-id).
    ctx.log.error({ err: recordError, endpointId: target.id }, 'could not record a webhook delivery');
  }
  return outcome;
}

/** Why a delivery did not get an answer, in words for the log (never the URL: it may carry a token). */
function describe(error: unknown, ctx: DeliveryContext): string {
  let text: string;
  if (ctx.signal.aborted) text = 'Aborted: the action’s handler timeout passed';
  else if (error instanceof DestinationRefused) text = `Refused: ${error.message}`;
  else if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) text = `Timed out after ${ctx.settings.timeoutMs}ms`;
  else if (error instanceof Error) text = `${(error as NodeJS.ErrnoException).code ? `${(error as NodeJS.ErrnoException).code}: ` : ''}${error.message}`;
  else text = String(error);
  return text.slice(0, errorChars);
}

/**
 * One POST, connected only to an address the guard accepted (literal hosts checked here, names by the
 * connection's lookup), with no redirect followed, no connection reuse, and the handler's signal and
 * the per-request timeout both able to abort it. Reads at most `excerptBytes` of the answer.
 */
function post(url: URL, body: string, headers: IncomingHttpHeaders, ctx: DeliveryContext): Promise<Answer> {
  checkUrlShape(url, ctx.settings.allowPrivate);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.settings.timeoutMs)]);
  return new Promise<Answer>((resolve, reject) => {
    const request = send(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: false, lookup: guardedLookup(ctx.settings.allowPrivate), signal }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      // The status decides; the body is an excerpt for the log, cut at excerptBytes or wherever it stops.
      const finish = () => resolve({ statusCode: response.statusCode ?? 0, excerpt: Buffer.concat(chunks).subarray(0, excerptBytes).toString('utf8').replaceAll('\u0000', '') });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= excerptBytes) {
          finish();
          response.destroy();
        }
      });
      response.on('end', finish);
      response.on('error', finish);
      response.on('close', finish);
    });
    request.on('error', reject);
    request.end(body);
  });
}
