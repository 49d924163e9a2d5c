// GraphQL face of the audit trail: `teamAuditLog(teamId, …)`, a page of a team's log, newest first
// (owners and admins; API keys need `teams:read`).
import type { Builder } from '../../graphql/builder.js';
import type { Page } from '../../shared/pagination.js';
import { parseInput } from '../../shared/validation.js';
import { auditLogQuery } from './inputs.js';
import * as audit from './service.js';
import type { AuditEntry } from './service.js';

/** GraphQL passes absent optional arguments as null; zod defaults want them absent. */
const given = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));

/** Registers the module's GraphQL types and fields on `b` (its module description's registerSchema). */
export function registerAuditSchema(b: Builder): void {
  const EntryRef = b.objectRef<AuditEntry>('AuditLogEntry').implement({
    description: 'A change of who may do what in a team, or a sign-in, two-factor or session event of one of its members (`teamId` null, `userId` theirs).',
    fields: (t) => ({
      id: t.exposeID('id'),
      teamId: t.exposeID('teamId', { nullable: true }),
      userId: t.exposeID('userId', { nullable: true, description: 'The member a user-level event is about.' }),
      actorUserId: t.exposeID('actorUserId', { nullable: true, description: 'Who acted; null for the system (an operator, a failed sign-in).' }),
      actorApiKeyId: t.exposeID('actorApiKeyId', { nullable: true, description: 'The API key the actor used, if any.' }),
      action: t.exposeString('action', { description: 'A stable dotted name: `api_key.created`, `member.role_changed`, `sign_in.failed` …' }),
      targetType: t.exposeString('targetType', { nullable: true }),
      targetId: t.exposeString('targetId', { nullable: true }),
      details: t.field({ type: 'JSONObject', description: 'What changed (names, roles, addresses); never a secret.', resolve: (e) => (e.details ?? {}) as Record<string, unknown> }),
      ipAddress: t.exposeString('ipAddress', { nullable: true }),
      userAgent: t.exposeString('userAgent', { nullable: true }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
    }),
  });

  const PageRef = b.objectRef<Page<AuditEntry>>('AuditLogPage').implement({
    fields: (t) => ({
      items: t.field({ type: [EntryRef], resolve: (p) => p.items }),
      page: t.exposeInt('page'),
      limit: t.exposeInt('limit'),
      total: t.exposeInt('total'),
      totalPages: t.exposeInt('totalPages'),
      hasMore: t.exposeBoolean('hasMore'),
    }),
  });

  b.queryFields((t) => ({
    teamAuditLog: t.field({
      type: PageRef,
      description: "A team's audit log, newest first (owners and admins). `actor`: a user or API key id; `action`: an action or a family (`member.*`); `from`/`to`: ISO 8601 times (from inclusive, to exclusive).",
      authScopes: { scope: 'teams:read' },
      args: {
        teamId: t.arg.id({ required: true }),
        page: t.arg.int(),
        limit: t.arg.int(),
        actor: t.arg.string(),
        action: t.arg.string(),
        from: t.arg.string(),
        to: t.arg.string(),
      },
      resolve: (_root, { teamId, ...args }, ctx) => audit.auditLog(ctx, String(teamId), parseInput(auditLogQuery, given(args), 'Invalid query parameters')),
    }),
  }));
}
