import type { EvaluationRecord } from './evaluations.repo.ts';
import { createGroupCommit } from './group-commit.ts';
import { isStoreUnavailable } from './store-errors.ts';

interface Pending {
  record: EvaluationRecord;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export interface AuditWriterStats {
  batches: number;
  records: number;
  maxBatch: number;
  lastFlushMs: number;
}

/**
 * The audit writer of evaluations: group commit (see group-commit.ts). Each caller's promise
 * settles only after its own batch has committed.
 */
export function createAuditWriter(deps: {
  insertBatch: (records: EvaluationRecord[]) => Promise<void>;
  maxBatch: number;
  maxInFlight: number;
  minQueueForExtraFlush?: number;
  onFlush?: (size: number, ms: number) => void;
  onError?: (err: unknown, size: number) => void;
}) {
  let closed = false;
  const stats: AuditWriterStats = { batches: 0, records: 0, maxBatch: 0, lastFlushMs: 0 };

  async function commit(batch: Pending[]): Promise<void> {
    const started = performance.now();
    try {
      await deps.insertBatch(batch.map((p) => p.record));
      for (const p of batch) p.resolve();
    } catch (err) {
      deps.onError?.(err, batch.length);
      // One bad record must not fail its neighbours: retry them one by one. Not when the store was
      // lost: a batch cut mid-flight may have committed, and written again it would be stored twice
      // (every caller gets the batch's own error, which says its outcome is unknown).
      if (batch.length === 1 || isStoreUnavailable(err)) for (const p of batch) p.reject(err);
      else
        for (const p of batch) {
          try {
            await deps.insertBatch([p.record]);
            p.resolve();
          } catch (e) {
            p.reject(e);
          }
        }
    }
    const ms = performance.now() - started;
    stats.batches++;
    stats.records += batch.length;
    stats.maxBatch = Math.max(stats.maxBatch, batch.length);
    stats.lastFlushMs = ms;
    deps.onFlush?.(batch.length, ms);
  }

  const group = createGroupCommit<Pending>({
    maxBatch: deps.maxBatch,
    maxInFlight: deps.maxInFlight,
    minQueueForExtraFlush: deps.minQueueForExtraFlush,
    flush: commit,
  });

  return {
    /** Resolves once the record is committed; rejects if it could not be. */
    write(record: EvaluationRecord): Promise<void> {
      if (closed) return Promise.reject(new Error('audit writer is closed'));
      return new Promise<void>((resolve, reject) => group.add({ record, resolve, reject }));
    },
    /** Waits until everything accepted so far is committed; refuses new writes. */
    async close(): Promise<void> {
      closed = true;
      await group.idle();
    },
    stats: (): AuditWriterStats => ({ ...stats }),
  };
}
export type AuditWriter = ReturnType<typeof createAuditWriter>;
