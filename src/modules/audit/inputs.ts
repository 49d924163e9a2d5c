// Audit log inputs, validated at both edges: REST checks its query string with auditLogParams, and
// the GraphQL field parses the same fields with auditLogQuery (times become dates there).
import { z } from 'zod';

const instant = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time, such as 2026-01-31T12:00:00Z' });

export const auditLogParams = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  /** A user id or an API key id. */
  actor: z.string().trim().min(1).max(100).optional(),
  /** An action (`member.role_changed`) or a family (`member.*`). */
  action: z.string().trim().max(100).regex(/^[a-z_]+(\.[a-z_]+)*(\.\*)?$/, 'must be an action such as member.role_changed, or a family such as member.*').optional(),
  /** Entries at or after this time. */
  from: instant.optional(),
  /** Entries before this time. */
  to: instant.optional(),
});

export const auditLogQuery = auditLogParams.transform((q) => ({ ...q, from: q.from ? new Date(q.from) : undefined, to: q.to ? new Date(q.to) : undefined }));
export type AuditLogQuery = z.output<typeof auditLogQuery>;
