import type { AuditChainService } from '../services/audit-chain.service.ts';
import type { Db } from '../storage/db.ts';
import { ensureMonthlyPartitions } from '../storage/partitions.ts';
import type { Job } from './jobs.ts';

/**
 * The daily care of the audit store: next months' partitions, a checkpoint of every client's chain
 * head (to export and keep elsewhere), and retention. Safe to run on several instances: partition
 * creation is idempotent, an extra checkpoint is harmless, retention deletes only what is due.
 */
export function createAuditMaintenance(deps: {
  db: Db;
  auditChain: Pick<AuditChainService, 'checkpoint' | 'retention'>;
  retentionYearsOf: (clientId: string) => Promise<number>;
}): Job {
  return {
    async run() {
      // A month that cannot get its partition is reported, and the rest of the care still runs.
      const failed: Array<{ partition: string; reason: string }> = [];
      const partitions = await ensureMonthlyPartitions(deps.db, new Date(), {
        onError: (partition, err) =>
          failed.push({ partition, reason: err instanceof Error ? err.message : String(err) }),
      });
      const retention = await deps.auditChain.retention(deps.retentionYearsOf);
      const checkpoints = await deps.auditChain.checkpoint();
      return {
        partitions_created: partitions,
        ...(failed.length > 0 ? { partitions_failed: failed } : {}),
        retention,
        checkpoints: checkpoints.length,
      };
    },
  };
}
