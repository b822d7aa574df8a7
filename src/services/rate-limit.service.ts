import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterRes,
} from 'rate-limiter-flexible';
import type { RedisHealth } from '../cache/redis-health.ts';

/** A client's (or a webhook scope's) limits; burst and day are optional. */
export interface Limits {
  per_minute: number;
  /** Short bursts may reach this many per minute; the extra is an allowance refilled over BURST_WINDOW_S. */
  burst_per_minute?: number;
  per_day?: number;
}

export const DEFAULT_API_LIMITS: Readonly<Required<Limits>> = Object.freeze({
  per_minute: 100,
  burst_per_minute: 200,
  per_day: 10_000,
});

/** The burst allowance refills over ten minutes: 200/min is possible, but not minute after minute. */
const BURST_WINDOW_S = 600;

export interface LimitDecision {
  allowed: boolean;
  /**
   * The limit of the window announced in X-RateLimit-Limit: per minute, or per day when less is
   * left of the day than of the minute, or once the day refuses.
   */
  limit: number;
  remaining: number;
  /** When the announced window resets (ms since epoch). */
  resetAt: number;
  /** Seconds to wait before retrying, when refused. */
  retryAfter: number;
  /** Which window refused the request. */
  scope?: 'minute' | 'day';
}

/** A window's count after a request: how many it has taken, and when the window ends. */
interface Count {
  consumed: number;
  msBeforeNext: number;
}

/**
 * The counters never refuse by themselves: a count is compared with the client's limit of the
 * moment, so changing a client's limits keeps the requests already counted in the minute, the
 * burst allowance and the day (counters kept per limit value started afresh at every change).
 */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * Fixed-window counters in Redis when configured (so instances share them), else in process, one
 * per window length. If Redis fails, the count is taken by an in-process counter of the same window
 * instead of failing the request; that fallback is reported through onFallback.
 *
 * The in-process counter counts every request of this instance, also while Redis answers: when
 * Redis fails mid-window (or a burst makes its replies late), the fallback goes on from this
 * instance's own count instead of granting a fresh allowance per instance on top of what Redis
 * already granted.
 */
export function createRateLimitService(deps: {
  redis?: Redis;
  /** Tells when the Redis connection is away (a command would fail or wait), and learns of timeouts. */
  health?: RedisHealth;
  onFallback?: (err: unknown) => void;
  prefix?: string;
  /** The shared counter of a window (tests); RateLimiterRedis on `redis` by default. */
  shared?: (opts: { points: number; duration: number; keyPrefix: string }) => RateLimiterAbstract;
}) {
  const counters = new Map<number, { primary?: RateLimiterAbstract; local: RateLimiterMemory }>();
  const prefix = deps.prefix ?? 'mica:rl';
  const redis = deps.redis;
  const shared =
    deps.shared ??
    (redis
      ? (opts: { points: number; duration: number; keyPrefix: string }) =>
          new RateLimiterRedis({
            storeClient: redis,
            ...opts,
            useRedisPackage: false,
            // Decide in process at once while Redis is away, instead of queueing behind reconnects.
            rejectIfRedisNotReady: true,
          })
      : undefined);

  function counter(duration: number) {
    let c = counters.get(duration);
    if (!c) {
      const opts = { points: NO_LIMIT, duration, keyPrefix: `${prefix}:${duration}s` };
      c = { primary: shared?.(opts), local: new RateLimiterMemory(opts) };
      counters.set(duration, c);
    }
    return c;
  }

  const countOf = (res: RateLimiterRes): Count => ({
    consumed: res.consumedPoints,
    msBeforeNext: res.msBeforeNext,
  });

  /**
   * One decision's failures of the shared store: `onFallback` is told once per decision taken in
   * process (a check touches two or three counters; each failing one counted it again).
   */
  type Decision = { failed?: { error: unknown } };
  const report = (d: Decision) => {
    if (d.failed) deps.onFallback?.(d.failed.error);
  };

  /** A shared-store operation, or its failure: noted, and a timeout marks Redis as not answering. */
  async function onShared<T>(
    d: Decision,
    op: () => Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false }> {
    try {
      deps.health?.check();
      return { ok: true, value: await op() };
    } catch (e) {
      deps.health?.failed(e);
      d.failed ??= { error: e };
      return { ok: false };
    }
  }

  /**
   * Requests counted in process while the shared store was away, per window and key, until the end
   * of the in-process window they were counted in: the store is told of them with the next request
   * it answers, so that the shared count does not restart from where the outage left it (each
   * instance's outage admissions were lost to it, and the limits admitted them again).
   */
  const owed = new Map<string, { n: number; until: number }>();

  /** What `owedKey` still owes (a debt past its window has lapsed), removed from the record. */
  function unpaid(owedKey: string): number {
    const debt = owed.get(owedKey);
    owed.delete(owedKey);
    return debt && debt.until > Date.now() ? debt.n : 0;
  }

  /** Counts one request in a window; a store failure falls back to the in-process counter. */
  async function take(d: Decision, duration: number, key: string): Promise<Count> {
    const c = counter(duration);
    const local = c.local.consume(key);
    if (!c.primary) return countOf(await local);
    const primary = c.primary;
    const owedKey = `${duration}\u0000${key}`;
    // Taken out before the store is asked, so that two requests at once do not both pay it.
    const extra = unpaid(owedKey);
    const shared = await onShared(d, () => primary.consume(key, 1 + extra));
    const own = await local;
    if (shared.ok) return countOf(shared.value);
    // Still owed, with this request, within the in-process window it was counted in.
    owed.set(owedKey, { n: extra + 1 + unpaid(owedKey), until: Date.now() + own.msBeforeNext });
    return countOf(own);
  }

  /**
   * Reads a window's count without adding to it; null when the key has no record or when the store
   * cannot tell (a failing store falls back like take does; a failing fallback is unknown).
   */
  async function peek(d: Decision, duration: number, key: string): Promise<Count | null> {
    const c = counter(duration);
    const primary = c.primary;
    const shared = primary ? await onShared(d, () => primary.get(key)) : ({ ok: false } as const);
    try {
      const res = shared.ok ? shared.value : await c.local.get(key);
      return res ? countOf(res) : null;
    } catch {
      return null;
    }
  }

  /** Counts one request against every window of `limits` for `key` (see check). */
  async function decide(d: Decision, key: string, limits: Limits): Promise<LimitDecision> {
    const now = Date.now();
    const minute = await take(d, 60, key);
    let allowed = minute.consumed <= limits.per_minute;
    let remaining = Math.max(0, limits.per_minute - minute.consumed);
    const resetAt = now + minute.msBeforeNext;
    let retryMs = minute.msBeforeNext;
    let scope: LimitDecision['scope'] = allowed ? undefined : 'minute';
    const extra = (limits.burst_per_minute ?? limits.per_minute) - limits.per_minute;
    if (!allowed && extra > 0) {
      const burst = await take(d, BURST_WINDOW_S, `${key}:burst`);
      if (burst.consumed <= extra) {
        // Served from the burst allowance: the announced minute window stays used up (remaining 0),
        // so the header only ever counts down within a window.
        allowed = true;
        scope = undefined;
        remaining = 0;
      }
    }
    if (!allowed && limits.per_day) {
      // Refused by the minute: if the day is used up as well, a retry after the minute is still
      // refused, so the day is the binding window (refusals keep counting against the minute).
      const day = await peek(d, 86_400, `${key}:day`);
      if (day && day.consumed >= limits.per_day && day.msBeforeNext > 0) {
        scope = 'day';
        retryMs = day.msBeforeNext;
      }
    }
    // Which window the headers describe: the minute, or the day when less is left of it (or none). Limit,
    // Remaining and Reset always describe the same window: a day's last requests read the day's
    // count with the minute's reset, and a client waiting for that reset was refused again.
    let announcedDay = false;
    if (allowed && limits.per_day) {
      const day = await take(d, 86_400, `${key}:day`);
      const dayLeft = Math.max(0, limits.per_day - day.consumed);
      // At 0 both, the day binds: the minute's reset brings nothing back (also after a burst).
      if (dayLeft < remaining || dayLeft === 0) {
        remaining = dayLeft;
        announcedDay = true;
        retryMs = day.msBeforeNext;
      }
      if (day.consumed > limits.per_day) {
        allowed = false;
        scope = 'day';
        retryMs = day.msBeforeNext;
      }
    }
    const onDay = scope === 'day' || announcedDay;
    return {
      allowed,
      limit: onDay && limits.per_day ? limits.per_day : limits.per_minute,
      remaining: allowed ? remaining : 0,
      resetAt: onDay ? now + retryMs : resetAt,
      retryAfter: Math.max(1, Math.ceil(retryMs / 1000)),
      scope,
    };
  }

  return {
    /**
     * Gives back one request counted in `key`'s minute window (one that turned out not to count,
     * such as a webhook delivery whose signature verified). A failing store gives it back in process.
     */
    async release(key: string): Promise<void> {
      const c = counter(60);
      // Only into a count there is: the local window need not be the shared one the caller checked,
      // and a reward into one that has ended would start the next at -1 (one request too many).
      const own = await c.local.get(key);
      if (own && own.consumedPoints > 0 && own.msBeforeNext > 0) await c.local.reward(key, 1);
      const primary = c.primary;
      const d: Decision = {};
      if (primary) await onShared(d, () => primary.reward(key, 1));
      report(d);
    },

    /** Counts one request against every window of `limits` for `key`. */
    async check(key: string, limits: Limits): Promise<LimitDecision> {
      const d: Decision = {};
      try {
        return await decide(d, key, limits);
      } finally {
        report(d);
      }
    },
  };
}
export type RateLimitService = ReturnType<typeof createRateLimitService>;
