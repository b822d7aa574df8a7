import type { EvaluationRecord } from './evaluations.repo.ts';

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
 * Group commit. A write is flushed at once when a flush slot is free (no added wait when idle);
 * writes that arrive while every slot is busy queue up and go together in the next transaction.
 * Each caller's promise settles only after its own batch has committed.
 */
export function createAuditWriter(deps: {
  insertBatch: (records: EvaluationRecord[]) => Promise<void>;
  maxBatch: number;
  maxInFlight: number;
  onFlush?: (size: number, ms: number) => void;
  onError?: (err: unknown, size: number) => void;
}) {
  const queue: Pending[] = [];
  let inFlight = 0;
  let closed = false;
  let idleWaiters: Array<() => void> = [];
  let scheduled = false;

  /**
   * Flushes start on the next turn of the event loop, not inside write(): an embedded engine runs
   * a statement synchronously on this thread, so flushing inside write() would commit every
   * request alone. One setImmediate lets the requests already read from the sockets reach the
   * queue first; when idle it costs well under a millisecond.
   */
  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }
  const stats: AuditWriterStats = { batches: 0, records: 0, maxBatch: 0, lastFlushMs: 0 };

  async function commit(batch: Pending[]): Promise<void> {
    const started = performance.now();
    try {
      await deps.insertBatch(batch.map((p) => p.record));
      for (const p of batch) p.resolve();
    } catch (err) {
      deps.onError?.(err, batch.length);
      // One bad record must not fail its neighbours: retry them one by one.
      if (batch.length === 1) batch[0]!.reject(err);
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

  function pump(): void {
    while (inFlight < deps.maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, deps.maxBatch);
      inFlight++;
      void commit(batch).finally(() => {
        inFlight--;
        schedule();
      });
    }
    if (inFlight === 0 && queue.length === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  return {
    /** Resolves once the record is committed; rejects if it could not be. */
    write(record: EvaluationRecord): Promise<void> {
      if (closed) return Promise.reject(new Error('audit writer is closed'));
      return new Promise<void>((resolve, reject) => {
        queue.push({ record, resolve, reject });
        schedule();
      });
    },
    /** Waits until everything accepted so far is committed; refuses new writes. */
    async close(): Promise<void> {
      closed = true;
      if (inFlight === 0 && queue.length === 0) return;
      await new Promise<void>((r) => idleWaiters.push(r));
    },
    stats: (): AuditWriterStats => ({ ...stats }),
  };
}
export type AuditWriter = ReturnType<typeof createAuditWriter>;
