import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';

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
  /** The per-minute limit, as announced in X-RateLimit-Limit. */
  limit: number;
  remaining: number;
  /** When the binding window resets (ms since epoch). */
  resetAt: number;
  /** Seconds to wait before retrying, when refused. */
  retryAfter: number;
  /** Which window refused the request. */
  scope?: 'minute' | 'day';
}

/**
 * Fixed-window counters in Redis when configured (so instances share them), else in process.
 * If Redis fails, the decision is taken by an in-process limiter with the same limits instead of
 * failing the request; that fallback is reported through onFallback.
 */
export function createRateLimitService(deps: {
  redis?: Redis;
  onFallback?: (err: unknown) => void;
  prefix?: string;
}) {
  const limiters = new Map<string, { primary: RateLimiterAbstract; fallback: RateLimiterMemory }>();
  const prefix = deps.prefix ?? 'mica:rl';

  function limiter(points: number, duration: number) {
    const id = `${points}/${duration}`;
    let l = limiters.get(id);
    if (!l) {
      const keyPrefix = `${prefix}:${id}`;
      const fallback = new RateLimiterMemory({ points, duration, keyPrefix });
      const primary = deps.redis
        ? new RateLimiterRedis({
            storeClient: deps.redis,
            points,
            duration,
            keyPrefix,
            useRedisPackage: false,
            // Decide in process at once while Redis is away, instead of queueing behind reconnects.
            rejectIfRedisNotReady: true,
          })
        : fallback;
      l = { primary, fallback };
      limiters.set(id, l);
    }
    return l;
  }

  /** Consumes one point; a refusal comes back as a RateLimiterRes, a store failure falls back. */
  async function consume(
    points: number,
    duration: number,
    key: string,
  ): Promise<{ ok: boolean; res: RateLimiterRes }> {
    const l = limiter(points, duration);
    try {
      return { ok: true, res: await l.primary.consume(key) };
    } catch (e) {
      if (e instanceof RateLimiterRes) return { ok: false, res: e };
      deps.onFallback?.(e);
      try {
        return { ok: true, res: await l.fallback.consume(key) };
      } catch (e2) {
        if (e2 instanceof RateLimiterRes) return { ok: false, res: e2 };
        throw e2;
      }
    }
  }

  /**
   * Reads a window's state without consuming a point; null when the key has no record or when the
   * store cannot tell (a failing store falls back like consume does; a failing fallback is unknown).
   */
  async function peek(points: number, duration: number, key: string): Promise<RateLimiterRes | null> {
    const l = limiter(points, duration);
    try {
      return await l.primary.get(key);
    } catch (e) {
      if (l.primary === l.fallback) return null;
      deps.onFallback?.(e);
      try {
        return await l.fallback.get(key);
      } catch {
        return null;
      }
    }
  }

  return {
    /** Counts one request against every window of `limits` for `key`. */
    async check(key: string, limits: Limits): Promise<LimitDecision> {
      const now = Date.now();
      const minute = await consume(limits.per_minute, 60, key);
      let allowed = minute.ok;
      let remaining = Math.max(0, minute.res.remainingPoints);
      const resetAt = now + minute.res.msBeforeNext;
      let retryMs = minute.res.msBeforeNext;
      let scope: LimitDecision['scope'] = allowed ? undefined : 'minute';
      const extra = (limits.burst_per_minute ?? limits.per_minute) - limits.per_minute;
      if (!allowed && extra > 0) {
        const burst = await consume(extra, BURST_WINDOW_S, `${key}:burst`);
        if (burst.ok) {
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
        const day = await peek(limits.per_day, 86_400, `${key}:day`);
        if (day && day.consumedPoints >= limits.per_day && day.msBeforeNext > 0) {
          scope = 'day';
          retryMs = day.msBeforeNext;
        }
      }
      if (allowed && limits.per_day) {
        const day = await consume(limits.per_day, 86_400, `${key}:day`);
        remaining = Math.min(remaining, Math.max(0, day.res.remainingPoints));
        if (!day.ok) {
          allowed = false;
          scope = 'day';
          retryMs = day.res.msBeforeNext;
        }
      }
      return {
        allowed,
        limit: limits.per_minute,
        remaining: allowed ? remaining : 0,
        resetAt: scope === 'day' ? now + retryMs : resetAt,
        retryAfter: Math.max(1, Math.ceil(retryMs / 1000)),
        scope,
      };
    },
  };
}
export type RateLimitService = ReturnType<typeof createRateLimitService>;
