// Webhooks: a team's endpoints (managed by its owners and admins, in the caller's active team), their
// delivery log, the entity events that feed them, and delivery itself for the `webhook:send` handler.
// Every operation acts in the caller's active team (a key's x-team-id picks it); another team's
// endpoint is 404, like a missing one, and RLS hides it too.
import type { AuthenticatedActor } from '../../auth/actor.js';
import type { Statement, Tx } from '../../db/request-db.js';
import { AppError, forbidden, unauthenticated } from '../../shared/errors.js';
import { pageOf, type Page } from '../../shared/pagination.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { isUuid } from '../../shared/validation.js';
import { recordAudit } from '../audit/service.js';
import { scheduleAction, type QueueScope } from '../scheduled-actions/service.js';
import { assertCanManageTeamSettings } from '../teams/service.js';
import { deliverEvent, type DeliveryContext, type WebhookEvent } from './delivery.js';
import { checkDestination, DestinationRefused } from './destination-guard.js';
import { patternsFor } from './event-types.js';
import type { CreateWebhookInput, ListDeliveriesQuery, ListWebhooksQuery, UpdateWebhookInput } from './inputs.js';
import * as repo from './repository.js';
import { newSigningSecret, sealSecret } from './signing-secret.js';

export type { WebhookEvent } from './delivery.js';
export type EndpointView = repo.EndpointRow;
export type DeliveryView = repo.DeliveryRow;

/** An endpoint with its signing secret: the answer to creation and rotation, and only to them. */
export interface EndpointWithSecret extends EndpointView {
  secret: string;
}

/** Endpoints per team: each event fans out to all of them, so their number is bounded. */
export const maxEndpointsPerTeam = 20;

const notFound = (): never => {
  throw new AppError('NOT_FOUND', 'Webhook endpoint not found');
};

/** The caller and their active team, where they must be an owner or an admin. */
function manager(scope: RequestScope): { user: AuthenticatedActor; teamId: string } {
  const { actor } = scope;
  if (actor.kind !== 'user') throw unauthenticated();
  const membership = actor.teams.find((t) => t.teamId === actor.activeTeamId);
  if (!actor.activeTeamId || !membership) throw forbidden('No active team');
  assertCanManageTeamSettings(membership.role, 'webhooks');
  return { user: actor, teamId: actor.activeTeamId };
}

/**
 * What the audit trail keeps of an endpoint: its host, event types and state. Never the URL itself:
 * a URL may carry credentials (user info, a token in the query), and the signing secret never.
 */
function audited(row: { url: string; eventTypes: string[]; active: boolean }) {
  return { host: new URL(row.url).host, eventTypes: row.eventTypes, active: row.active };
}

/** The URL checked by the SSRF guard (DNS included), before any transaction is open. */
async function checkedUrl(scope: RequestScope, url: string): Promise<string> {
  try {
    await checkDestination(new URL(url), scope.config.webhooks.allowPrivate);
  } catch (error) {
    if (!(error instanceof DestinationRefused)) throw error;
    throw new AppError('VALIDATION_ERROR', `Invalid request body: url: ${error.message}`, { errors: [{ path: 'url', code: 'refused_destination', message: error.message }] });
  }
  return url;
}

export async function listEndpoints(scope: RequestScope, q: ListWebhooksQuery): Promise<Page<EndpointView>> {
  const { teamId } = manager(scope);
  const { rows, total } = await repo.listEndpoints(await scope.db.tx(), teamId, (q.page - 1) * q.limit, q.limit);
  return pageOf(rows, total, q.page, q.limit);
}

export async function getEndpoint(scope: RequestScope, id: string): Promise<EndpointView> {
  const { teamId } = manager(scope);
  const row = isUuid(id) ? await repo.findEndpoint(await scope.db.tx(), teamId, id) : null;
  return row ?? notFound();
}

/** Creates an endpoint with a new signing secret, which this answer alone carries. */
export async function createEndpoint(scope: RequestScope, input: CreateWebhookInput): Promise<EndpointWithSecret> {
  const { user, teamId } = manager(scope);
  const url = await checkedUrl(scope, input.url);
  const tx = await scope.db.tx();
  if ((await repo.countEndpoints(tx, teamId)) >= maxEndpointsPerTeam) {
    throw new AppError('VALIDATION_ERROR', `A team has at most ${maxEndpointsPerTeam} webhook endpoints`, { limit: maxEndpointsPerTeam });
  }
  const secret = newSigningSecret();
  const row = await repo.insertEndpoint(tx, {
    teamId,
    url,
    description: input.description ?? null,
    eventTypes: input.eventTypes,
    active: input.active,
    secretSealed: sealSecret(secret, scope.config.webhooks.secretKey),
    createdById: user.userId,
    now: scope.now(),
  });
  await recordAudit(scope, tx, { teamId, action: 'webhook.created', target: { type: 'webhook_endpoint', id: row.id }, details: audited(row) });
  return { ...row, secret };
}

export async function updateEndpoint(scope: RequestScope, id: string, input: UpdateWebhookInput): Promise<EndpointView> {
  const { teamId } = manager(scope);
  if (!isUuid(id)) notFound();
  const url = input.url === undefined ? undefined : await checkedUrl(scope, input.url);
  const changes: repo.EndpointChanges = { url, eventTypes: input.eventTypes, active: input.active, ...(input.description !== undefined ? { description: input.description } : {}) };
  const tx = await scope.db.tx();
  const row = (await repo.updateEndpoint(tx, teamId, id, changes, scope.now())) ?? notFound();
  const changed = Object.keys(input).filter((name) => input[name as keyof UpdateWebhookInput] !== undefined);
  await recordAudit(scope, tx, { teamId, action: 'webhook.updated', target: { type: 'webhook_endpoint', id }, details: { ...audited(row), changed } });
  return row;
}

export async function deleteEndpoint(scope: RequestScope, id: string): Promise<{ id: string }> {
  const { teamId } = manager(scope);
  const tx = await scope.db.tx();
  if (!isUuid(id) || !(await repo.deleteEndpoint(tx, teamId, id))) notFound();
  await recordAudit(scope, tx, { teamId, action: 'webhook.deleted', target: { type: 'webhook_endpoint', id } });
  return { id };
}

/**
 * Deletes every endpoint of the teams, in `tx` (an account taken over by the owner of its e-mail:
 * endpoints its maker set up must not keep receiving the teams' events); how many.
 */
export function deleteEndpointsOfTeams(tx: Tx, teamIds: readonly string[]): Promise<number> {
  return repo.deleteEndpointsOfTeams(tx, teamIds);
}

/** Replaces the signing secret: the old one stops signing at once; the new one is in this answer only. */
export async function rotateSecret(scope: RequestScope, id: string): Promise<EndpointWithSecret> {
  const { teamId } = manager(scope);
  if (!isUuid(id)) notFound();
  const secret = newSigningSecret();
  const tx = await scope.db.tx();
  const row = (await repo.updateEndpoint(tx, teamId, id, { secretSealed: sealSecret(secret, scope.config.webhooks.secretKey) }, scope.now())) ?? notFound();
  await recordAudit(scope, tx, { teamId, action: 'webhook.updated', target: { type: 'webhook_endpoint', id }, details: { ...audited(row), changed: ['signing key rotated'] } });
  return { ...row, secret };
}

/** The delivery log of an endpoint this request has read (getEndpoint, listEndpoints), newest first. */
export async function deliveriesOf(scope: RequestScope, endpoint: EndpointView, q: ListDeliveriesQuery): Promise<Page<DeliveryView>> {
  manager(scope);
  const filter = q.status === undefined ? {} : { succeeded: q.status === 'succeeded' };
  const { rows, total } = await repo.listDeliveries(await scope.db.tx(), endpoint.id, filter, (q.page - 1) * q.limit, q.limit);
  return pageOf(rows, total, q.page, q.limit);
}

// ---- events ----------------------------------------------------------------------------------

/** A change of an entity record, as its event carries it. */
export interface EntityChange {
  teamId: string;
  /** The entity's (or child's) slug. */
  entityType: string;
  entityId: string;
  verb: 'created' | 'updated' | 'deleted';
  /** The record as the API shows it (after the change; before it, for a hard delete). */
  data: Record<string, unknown>;
}

/**
 * Schedules the `webhook:send` of an entity change in the transaction that makes the change (both
 * commit or neither does), unless no active endpoint of the team is subscribed to it (one indexed
 * look-up; an endpoint created after that look-up does not get this event). `alongside`: a statement
 * of the change's that runs in the look-up's round trip (its record version, entities/change.ts).
 */
export async function recordEntityEvent(scope: QueueScope, tx: Tx, change: EntityChange, alongside: Statement | null = null): Promise<void> {
  const eventType = `${change.entityType}:${change.verb}`;
  if (!(await repo.teamSubscribed(tx, change.teamId, patternsFor(eventType), alongside))) return;
  await scheduleAction(scope, 'webhook:send', { eventType, entityType: change.entityType, entityId: change.entityId, data: change.data }, { tx, teamId: change.teamId });
}

/** Delivers a `webhook:send` action (its handler's work; see delivery.ts). */
export function deliverWebhookEvent(event: WebhookEvent, ctx: DeliveryContext): Promise<Record<string, unknown>> {
  return deliverEvent(event, ctx);
}
