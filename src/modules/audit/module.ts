// The audit trail: a per-team log of changes to who may do what (src/modules/audit/actions.ts names
// them). Other modules record entries through its service; its worker deletes entries past
// AUDIT_RETENTION_DAYS every hour (any instance may: the statement is idempotent).
import { systemDb } from '../../db/request-db.js';
import { defineModule } from '../module-description.js';
import { auditRoutes } from './rest.js';
import { registerAuditSchema } from './schema.js';
import { sweepAudit } from './service.js';

const sweepEveryMs = 3_600_000;

export const auditModule = defineModule({
  name: 'audit',
  registerSchema: registerAuditSchema,
  routes: auditRoutes,
  workers: [{
    name: 'audit: retention sweep',
    start: ({ config, database, logger, now }) => {
      const system = systemDb(database, 'audit retention sweep');
      let running: Promise<unknown> = Promise.resolve();
      const sweep = () => {
        running = sweepAudit(system, config.audit.retentionMs, now()).catch((error: unknown) => logger.error({ err: error }, 'audit: the retention sweep failed'));
      };
      // Once at start (a server restarted daily would otherwise never sweep), then hourly.
      sweep();
      const timer = setInterval(sweep, sweepEveryMs);
      timer.unref();
      return {
        stop: async () => {
          clearInterval(timer);
          await running;
        },
      };
    },
  }],
});
