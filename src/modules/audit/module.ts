// The audit trail: a per-team log of changes to who may do what (src/modules/audit/actions.ts names
// them). Other modules record entries through its service; its worker deletes entries past
// AUDIT_RETENTION_DAYS every hour (any instance may: the statement is idempotent).
import { systemDb } from '../../db/request-db.js';
import { defineModule, periodicWorker } from '../module-description.js';
import { auditRoutes } from './rest.js';
import { registerAuditSchema } from './schema.js';
import { sweepAudit } from './service.js';

const sweepEveryMs = 3_600_000;

export const auditModule = defineModule({
  name: 'audit',
  registerSchema: registerAuditSchema,
  routes: auditRoutes,
  // Once at start (a server restarted daily would otherwise never sweep), then hourly.
  workers: [periodicWorker('audit: retention sweep', { everyMs: sweepEveryMs, atStart: true }, ({ config, database, now }) => sweepAudit(systemDb(database, 'audit retention sweep'), config.audit.retentionMs, now()))],
});
