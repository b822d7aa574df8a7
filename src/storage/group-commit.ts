/**
 * Group commit: items are handed to `flush` in batches. An item is flushed at once when a flush
 * slot is free (no added wait when idle); items that arrive while every slot is busy queue up and
 * go together in the next flush. Used for the audit records of evaluations and for webhook
 * deliveries, whose callers each wait for their own batch's commit.
 */
export function createGroupCommit<T>(opts: {
  maxBatch: number;
  maxInFlight: number;
  /**
   * A flush beyond the first in flight starts only once this many items wait (default 1). Every
   * flush has a fixed cost (a statement, a commit): at moderate load, items that wait for the one
   * in flight and go together cost less than a second small flush, and wait about as long.
   */
  minQueueForExtraFlush?: number;
  /** Commits one batch and settles its items' callers itself; should not throw. */
  flush: (batch: T[]) => Promise<void>;
}) {
  const queue: T[] = [];
  let inFlight = 0;
  let scheduled = false;
  let idleWaiters: Array<() => void> = [];

  /**
   * Flushes start on the next turn of the event loop, not inside add(): an embedded engine runs a
   * statement synchronously on this thread, so flushing inside add() would commit every request
   * alone. One setImmediate lets the requests already read from the sockets reach the queue
   * first; when idle it costs well under a millisecond.
   */
  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  function pump(): void {
    const extraAt = opts.minQueueForExtraFlush ?? 1;
    while (inFlight < opts.maxInFlight && queue.length >= (inFlight === 0 ? 1 : extraAt)) {
      const batch = queue.splice(0, opts.maxBatch);
      inFlight++;
      void opts
        .flush(batch)
        .catch(() => {})
        .finally(() => {
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
    add(item: T): void {
      queue.push(item);
      schedule();
    },
    /** Resolves once everything added so far has been flushed. */
    idle(): Promise<void> {
      if (inFlight === 0 && queue.length === 0) return Promise.resolve();
      return new Promise<void>((r) => idleWaiters.push(r));
    },
  };
}
