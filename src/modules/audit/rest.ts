// REST face of the audit trail: GET /api/v1/teams/{teamId}/audit-log, paged as the teams routes are.
import { z } from 'zod';
import { TeamAuditLogDocument } from '../../generated/operations.js';
import { defineRoute } from '../../rest/route.js';
import { auditLogParams } from './inputs.js';

const entry = z.object({
  id: z.string(),
  teamId: z.string().nullable(),
  userId: z.string().nullable(),
  actorUserId: z.string().nullable(),
  actorApiKeyId: z.string().nullable(),
  action: z.string(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  createdAt: z.string(),
});

export const auditRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v1/teams/{teamId}/audit-log',
    summary: "The team's audit log, newest first: who changed keys, members, invitations, settings, webhooks, and its members' sign-ins, two-factor and sessions (owners and admins)",
    tags: ['Teams'],
    access: 'authenticated',
    params: z.object({ teamId: z.string().max(100) }),
    query: auditLogParams,
    operation: TeamAuditLogDocument,
    variables: ({ params, query }) => ({ teamId: params.teamId, ...query }),
    data: (r) => r.teamAuditLog.items,
    extras: ({ teamAuditLog: p }) => ({ meta: { page: p.page, limit: p.limit, total: p.total, totalPages: p.totalPages, hasMore: p.hasMore } }),
    response: z.array(entry),
  }),
];
