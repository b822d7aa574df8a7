import { type BreakerStore, createMemoryBreakerStore } from './breaker.ts';

const REPORT_EVERY_MS = 10_000;

/**
 * The shared breaker records (Redis) with this instance's own as the fallback: while the shared
 * store fails, breakers are kept in process, as they are without Redis, so screening goes on (a
 * Redis outage must not turn every screening into an error) and each vendor is still guarded. The
 * in-process records start afresh and are left behind once the shared store answers again.
 */
export function withLocalFallback(
  shared: BreakerStore,
  onError?: (err: unknown) => void,
  now: () => number = Date.now,
): BreakerStore {
  const local = createMemoryBreakerStore();
  // Reported once per REPORT_EVERY_MS: a screening makes four store calls, each would log.
  let reportedAt = Number.NEGATIVE_INFINITY;
  async function either<T>(fromShared: () => Promise<T>, fromLocal: () => Promise<T>): Promise<T> {
    try {
      return await fromShared();
    } catch (err) {
      if (now() - reportedAt >= REPORT_EVERY_MS) {
        reportedAt = now();
        onError?.(err);
      }
      return fromLocal();
    }
  }
  return {
    admitAll: (keys, now, opts) =>
      either(
        () => shared.admitAll(keys, now, opts),
        () => local.admitAll(keys, now, opts),
      ),
    settle: (key, outcome, trial, now, opts) =>
      either(
        () => shared.settle(key, outcome, trial, now, opts),
        () => local.settle(key, outcome, trial, now, opts),
      ),
    read: (keys) =>
      either(
        () => shared.read(keys),
        () => local.read(keys),
      ),
    async close() {
      await Promise.all([shared.close(), local.close()]);
    },
  };
}
