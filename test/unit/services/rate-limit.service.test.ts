import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { createRateLimitService, type Limits } from '../../../src/services/rate-limit.service.ts';

const LIMITS: Limits = { per_minute: 2, burst_per_minute: 3, per_day: 2 };

/** A Redis client that never connects: every store call fails at once. */
function deadRedis(): Redis {
  const r = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  r.on('error', () => {});
  return r;
}

async function decisions(limiter: ReturnType<typeof createRateLimitService>, n: number) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await limiter.check('k', LIMITS));
  return out;
}

describe('rate-limit service: the day scope', () => {
  it('once the day is used up, refusals by the minute window still report the day', async () => {
    const limiter = createRateLimitService({ prefix: `u${Date.now()}` });
    const [a, b, ...refused] = await decisions(limiter, 10);
    assert.equal(a?.allowed, true);
    assert.equal(b?.allowed, true);
    for (const [i, d] of refused.entries()) {
      assert.equal(d.allowed, false, `request ${i + 3}`);
      assert.equal(d.scope, 'day', `request ${i + 3}`);
      assert.equal(d.remaining, 0);
      assert.ok(d.retryAfter > 60, `retryAfter ${d.retryAfter}`);
      assert.ok(d.resetAt > Date.now() + 60_000);
    }
  });

  it('a minute refusal with day points left stays a minute refusal', async () => {
    const limiter = createRateLimitService({ prefix: `u${Date.now()}` });
    const limits = { per_minute: 1, per_day: 100 };
    assert.equal((await limiter.check('k', limits)).allowed, true);
    const d = await limiter.check('k', limits);
    assert.equal(d.allowed, false);
    assert.equal(d.scope, 'minute');
    assert.ok(d.retryAfter <= 60);
  });

  it('with the store down, the in-process fallback answers the day scope too', async () => {
    const dead = deadRedis();
    let fallbacks = 0;
    const limiter = createRateLimitService({
      redis: dead,
      onFallback: () => fallbacks++,
      prefix: `u${Date.now()}`,
    });
    const refused = (await decisions(limiter, 8)).slice(2);
    assert.deepEqual(
      refused.map((d) => [d.allowed, d.scope]),
      refused.map(() => [false, 'day']),
    );
    assert.ok(fallbacks > 0);
    dead.disconnect();
  });

  it('a failing get does not fail the request: the minute answer stands', async (t) => {
    const dead = deadRedis();
    const limiter = createRateLimitService({ redis: dead, prefix: `u${Date.now()}` });
    // Use the day up (through the in-process fallback), then make every read fail.
    await decisions(limiter, 3);
    t.mock.method(RateLimiterMemory.prototype, 'get', async () => {
      throw new Error('store read failed');
    });
    const later = await decisions(limiter, 5);
    assert.ok(
      later.every((d) => !d.allowed),
      'still refused',
    );
    assert.equal(later.at(-1)?.scope, 'minute', 'unknown day state keeps the minute answer');
    dead.disconnect();
  });
});

describe('rate-limit service: a shared store that fails mid-window', () => {
  /** A shared counter (in memory here) that can be made to fail, as a Redis gone away or timing out. */
  function flakyShared() {
    const state = { down: false, calls: 0 };
    const shared = (opts: { points: number; duration: number; keyPrefix: string }) => {
      const real = new RateLimiterMemory({ ...opts, keyPrefix: `shared:${opts.keyPrefix}` });
      const fail = async () => {
        state.calls++;
        throw new Error('Command timed out');
      };
      return new Proxy(real, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver);
          if (typeof v !== 'function') return v;
          return (...args: unknown[]) => {
            if (!state.down) return v.apply(target, args);
            return fail();
          };
        },
      });
    };
    return { state, shared };
  }

  it('the fallback goes on from this instance’s own count, not from a fresh allowance', async () => {
    const { state, shared } = flakyShared();
    let fallbacks = 0;
    const limiter = createRateLimitService({
      shared,
      onFallback: () => fallbacks++,
      prefix: `s${Date.now()}`,
    });
    const limits: Limits = { per_minute: 5, burst_per_minute: 5, per_day: 100 };
    const before = [];
    for (let i = 0; i < 4; i++) before.push((await limiter.check('k', limits)).allowed);
    assert.deepEqual(before, [true, true, true, true]);
    state.down = true;
    const during = [];
    for (let i = 0; i < 4; i++) during.push((await limiter.check('k', limits)).allowed);
    // Four were counted while the store answered: one more is left in this minute, not five.
    assert.deepEqual(during, [true, false, false, false]);
    assert.equal(fallbacks, 4, 'one per decision, not one per counter it touched');
  });

  it('what was admitted while the store was away is added to its count when it answers again', async () => {
    const { state, shared } = flakyShared();
    const limiter = createRateLimitService({ shared, prefix: `o${Date.now()}` });
    const limits: Limits = { per_minute: 5, burst_per_minute: 5, per_day: 8 };
    const seq = async (n: number) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push((await limiter.check('k', limits)).allowed);
      return out;
    };
    assert.deepEqual(await seq(2), [true, true]);
    state.down = true;
    assert.deepEqual(await seq(2), [true, true], 'counted in process: 4 of 5');
    state.down = false;
    // The store had 2; told of the 2 admitted meanwhile, it counts this one as the 5th.
    assert.deepEqual(await seq(3), [true, false, false]);
    const day = await limiter.check('k', { per_minute: 100, per_day: 8 });
    assert.equal(day.remaining, 2, 'the day counted all 6 admitted (5 + this one), not 4');
  });

  it('the debt of an outage is paid once, by one of two requests that arrive together', async () => {
    const { state, shared } = flakyShared();
    const limiter = createRateLimitService({ shared, prefix: `p${Date.now()}` });
    const limits: Limits = { per_minute: 10, burst_per_minute: 10 };
    for (let i = 0; i < 2; i++) await limiter.check('k', limits);
    state.down = true;
    for (let i = 0; i < 2; i++) await limiter.check('k', limits);
    state.down = false;
    await Promise.all([limiter.check('k', limits), limiter.check('k', limits)]);
    // 2 + 2 owed + 2 together, then this one: the 7th of 10.
    assert.equal((await limiter.check('k', limits)).remaining, 3);
  });

  it('while the store is known to be away, it is not asked at all', async () => {
    const { state, shared } = flakyShared();
    let away = false;
    const health = {
      check() {
        if (away) throw new Error('redis unavailable (not answering)');
      },
      failed(err: unknown) {
        if (/timed out/.test((err as Error).message)) away = true;
      },
      watch: <T>(p: Promise<T>) => p,
    };
    const limiter = createRateLimitService({ shared, health, prefix: `h${Date.now()}` });
    const limits: Limits = { per_minute: 100 };
    state.down = true;
    await limiter.check('k', limits);
    assert.equal(state.calls, 1, 'the first call timed out');
    assert.ok(away, 'and the timeout was reported');
    for (let i = 0; i < 10; i++) assert.equal((await limiter.check('k', limits)).allowed, true);
    assert.equal(state.calls, 1, 'no call waited on the store since');
  });
});

describe('rate-limit service: giving a request back', () => {
  it('gives back into this instance’s own count only within its own window (never below zero)', async (t) => {
    // Found in review: the caller checks the shared window's end, which need not be the local one's.
    t.mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 1_000_000 });
    const down = { v: false };
    const stores = new Map<string, RateLimiterMemory>();
    // One shared store (a Redis stand-in) seen by two instances A and B.
    const shared = (opts: { points: number; duration: number; keyPrefix: string }) => {
      let store = stores.get(opts.keyPrefix);
      if (!store) {
        store = new RateLimiterMemory({ ...opts, keyPrefix: `sh:${opts.keyPrefix}` });
        stores.set(opts.keyPrefix, store);
      }
      const real = store;
      return new Proxy(real, {
        get(target, prop) {
          const v = Reflect.get(target, prop);
          return typeof v === 'function'
            ? (...args: unknown[]) =>
                down.v ? Promise.reject(new Error('Command timed out')) : v.apply(target, args)
            : v;
        },
      });
    };
    const A = createRateLimitService({ shared, prefix: `g${Date.now()}` });
    const B = createRateLimitService({ shared, prefix: `g${Date.now()}` });
    const limits = { per_minute: 2 };
    const at = (s: number) => t.mock.timers.setTime(1_000_000 + s * 1000);
    await B.check('k', limits); // t=0: the shared window is [0, 60)
    at(30);
    await A.check('k', limits); // t=30: A's own window is [30, 90)
    at(61);
    await B.check('k', limits); // t=61: the shared window is [61, 121)
    at(89);
    await A.check('k', limits); // counted in the shared window until t=121
    at(91);
    await A.release('k'); // within the shared window, after A's own
    down.v = true; // then Redis fails: A decides alone
    const allowed = [];
    for (let i = 0; i < 4; i++) allowed.push((await A.check('k', limits)).allowed);
    assert.deepEqual(allowed, [true, true, false, false], 'per_minute 2 in the fallback window');
  });
});
