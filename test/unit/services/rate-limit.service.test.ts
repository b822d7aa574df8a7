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
    const limits: Limits = { per_minute: 5, burst_per_minute: 5 };
    const before = [];
    for (let i = 0; i < 4; i++) before.push((await limiter.check('k', limits)).allowed);
    assert.deepEqual(before, [true, true, true, true]);
    state.down = true;
    const during = [];
    for (let i = 0; i < 4; i++) during.push((await limiter.check('k', limits)).allowed);
    // Four were counted while the store answered: one more is left in this minute, not five.
    assert.deepEqual(during, [true, false, false, false]);
    assert.ok(fallbacks >= 4);
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
