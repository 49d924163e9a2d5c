// Webhook endpoints and their delivery log in SQL. Request-side functions run in the request's RLS
// transaction (the team's owners and admins only) and never select the sealed secret (app_user may not
// read that column at all); the delivery side runs with the handler's named system access.
import type { Statement, Tx } from '../../db/request-db.js';
import { Prisma } from '../../generated/prisma/client.js';

/** An endpoint as the API shows it. */
export interface EndpointRow {
  id: string;
  teamId: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const endpointView = { id: true, teamId: true, url: true, description: true, eventTypes: true, active: true, createdAt: true, updatedAt: true } as const;

export async function listEndpoints(tx: Tx, teamId: string, skip: number, take: number): Promise<{ rows: EndpointRow[]; total: number }> {
  const rows = await tx.webhookEndpoint.findMany({ where: { teamId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take, select: endpointView });
  return { rows, total: await tx.webhookEndpoint.count({ where: { teamId } }) };
}

export function findEndpoint(tx: Tx, teamId: string, id: string): Promise<EndpointRow | null> {
  return tx.webhookEndpoint.findFirst({ where: { id, teamId }, select: endpointView });
}

export function countEndpoints(tx: Tx, teamId: string): Promise<number> {
  return tx.webhookEndpoint.count({ where: { teamId } });
}

export interface NewEndpoint {
  teamId: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  active: boolean;
  secretSealed: string;
  createdById: string;
  now: Date;
}

export function insertEndpoint(tx: Tx, e: NewEndpoint): Promise<EndpointRow> {
  const { now, ...data } = e;
  return tx.webhookEndpoint.create({ data: { ...data, createdAt: now, updatedAt: now }, select: endpointView });
}

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  eventTypes?: string[];
  active?: boolean;
  secretSealed?: string;
}

/** Changes an endpoint of the team; null when there is none with that id. */
export async function updateEndpoint(tx: Tx, teamId: string, id: string, changes: EndpointChanges, now: Date): Promise<EndpointRow | null> {
  const { count } = await tx.webhookEndpoint.updateMany({ where: { id, teamId }, data: { ...changes, updatedAt: now } });
  return count ? findEndpoint(tx, teamId, id) : null;
}

export async function deleteEndpoint(tx: Tx, teamId: string, id: string): Promise<boolean> {
  const { count } = await tx.webhookEndpoint.deleteMany({ where: { id, teamId } });
  return count > 0;
}

/** Deletes every endpoint of the teams (their delivery log goes with them); how many. */
export async function deleteEndpointsOfTeams(tx: Tx, teamIds: readonly string[]): Promise<number> {
  if (!teamIds.length) return 0;
  const { count } = await tx.webhookEndpoint.deleteMany({ where: { teamId: { in: [...teamIds] } } });
  return count;
}

/**
 * Whether the team has an active endpoint subscribed to one of `patterns` (app_team_webhook_subscribed:
 * members may ask, not read). `alongside` (a data-modifying statement) runs in the same statement, as a
 * WITH query: PostgreSQL runs it whether or not it is referenced.
 */
export async function teamSubscribed(tx: Tx, teamId: string, patterns: string[], alongside: Statement | null = null): Promise<boolean> {
  const before = alongside ? Prisma.sql`WITH alongside AS (${alongside}) ` : Prisma.empty;
  const [row] = await tx.$queryRaw<{ subscribed: boolean }[]>`${before}SELECT app_team_webhook_subscribed(${teamId}::uuid, ${patterns}::text[]) AS subscribed`;
  return row?.subscribed === true;
}

// ---- the delivery log ------------------------------------------------------------------------

export interface DeliveryRow {
  id: string;
  endpointId: string;
  actionId: string;
  messageId: string;
  eventType: string;
  attempt: number;
  succeeded: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  createdAt: Date;
}

const deliveryView = {
  id: true, endpointId: true, actionId: true, messageId: true, eventType: true, attempt: true, succeeded: true,
  statusCode: true, durationMs: true, error: true, responseBody: true, createdAt: true,
} as const;

/** A page of an endpoint's deliveries, newest first, and how many match. */
export async function listDeliveries(tx: Tx, endpointId: string, filter: { succeeded?: boolean }, skip: number, take: number): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = { endpointId, ...(filter.succeeded === undefined ? {} : { succeeded: filter.succeeded }) };
  const rows = await tx.webhookDelivery.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take, select: deliveryView });
  return { rows, total: await tx.webhookDelivery.count({ where }) };
}

// ---- delivery (named system access) ----------------------------------------------------------

export interface TargetRow {
  id: string;
  url: string;
  secretSealed: string;
}

/** The team's active endpoints subscribed to one of `patterns`, with their sealed secrets. */
export function subscribedEndpoints(db: Tx, teamId: string, patterns: string[]): Promise<TargetRow[]> {
  return db.webhookEndpoint.findMany({
    where: { teamId, active: true, eventTypes: { hasSome: patterns } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, url: true, secretSealed: true },
  });
}

/** Endpoints this action has already been delivered to (a retry sends only to the others). */
export async function deliveredEndpointIds(db: Tx, actionId: string): Promise<Set<string>> {
  const rows = await db.webhookDelivery.findMany({ where: { actionId, succeeded: true }, select: { endpointId: true } });
  return new Set(rows.map((r) => r.endpointId));
}

/** An attempt to record: a delivery row before it has an id, with its endpoint's team. */
export interface NewDelivery extends Omit<DeliveryRow, 'id'> {
  teamId: string;
}

/**
 * Records one attempt and, in the same statement, prunes at most `pruneLimit` of the endpoint's entries
 * older than `pruneBefore` (retention costs each delivery a bounded, indexed delete, and no sweeper).
 * Nothing when the endpoint has been deleted meanwhile.
 */
export async function recordDelivery(db: Tx, d: NewDelivery, pruneBefore: Date, pruneLimit: number): Promise<void> {
  await db.$executeRaw`
    WITH pruned AS (
      DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM webhook_deliveries WHERE endpoint_id = ${d.endpointId}::uuid AND created_at < ${pruneBefore}::timestamptz
         ORDER BY created_at LIMIT ${pruneLimit})
      RETURNING 1
    )
    INSERT INTO webhook_deliveries (id, endpoint_id, team_id, action_id, message_id, event_type, attempt, succeeded,
                                    status_code, duration_ms, error, response_body, created_at)
    SELECT gen_random_uuid(), e.id, ${d.teamId}::uuid, ${d.actionId}::uuid, ${d.messageId}, ${d.eventType}, ${d.attempt}::int, ${d.succeeded},
           ${d.statusCode}::int, ${d.durationMs}::int, ${d.error}::text, ${d.responseBody}::text, ${d.createdAt}::timestamptz
      FROM webhook_endpoints e WHERE e.id = ${d.endpointId}::uuid`;
}
