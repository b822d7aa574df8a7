import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createRateLimitService } from '../../src/services/rate-limit.service.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

describe('per-client rate limits', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const evaluate = (auth: Record<string, string>, client_id: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: auth,
      payload: { client_id, trigger_type: 'periodic', data: {} },
    });

  it('headers on every response; bursts above the minute limit, then a nested 429 with Retry-After', async () => {
    const c = await clientWithKey(t, `burst-${Date.now()}`, {
      settings: { rate_limits: { per_minute: 3, burst_per_minute: 5, per_day: 100 } },
    });
    const clientId = c.clientId;
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await evaluate(c.auth, clientId);
      statuses.push(res.statusCode);
      remaining.push(String(res.headers['x-ratelimit-remaining']));
      assert.equal(res.headers['x-ratelimit-limit'], '3');
      assert.match(String(res.headers['x-ratelimit-remaining']), /^\d+$/);
      const reset = Number(res.headers['x-ratelimit-reset']);
      assert.ok(reset >= Math.floor(Date.now() / 1000) && reset <= Date.now() / 1000 + 61, `reset ${reset}`);
      if (res.statusCode === 429) {
        const b = res.json();
        assert.equal(b.error.code, 'RATE_LIMITED');
        assert.equal(b.error.details.limit, 3);
        assert.equal(b.error.details.remaining, 0);
        assert.ok(Number(res.headers['retry-after']) >= 1);
        assert.equal(res.headers['x-ratelimit-remaining'], '0');
      }
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    // Counts down within the minute and stays at 0 while the burst allowance serves (never jumps back).
    assert.deepEqual(remaining, ['2', '1', '0', '0', '0', '0']);
  });

  it('the daily limit refuses once reached', async () => {
    const c = await clientWithKey(t, `daily-${Date.now()}`, {
      settings: { rate_limits: { per_minute: 100, per_day: 2 } },
    });
    const s = [];
    for (let i = 0; i < 3; i++) s.push((await evaluate(c.auth, c.clientId)).statusCode);
    assert.deepEqual(s, [200, 200, 429]);
  });

  it('a standard key refused with 403 on an admin route gets the headers and is counted', async () => {
    const c = await clientWithKey(t, `forbidden-${Date.now()}`, {
      settings: { rate_limits: { per_minute: 2, burst_per_minute: 2, per_day: 100 } },
    });
    const invalidate = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/mica/cache/invalidate',
        headers: c.auth,
        payload: { cache: 'all' },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await invalidate();
      statuses.push(res.statusCode);
      assert.equal(res.headers['x-ratelimit-limit'], '2');
      assert.equal(res.headers['x-ratelimit-remaining'], String(Math.max(0, 1 - i)));
      assert.match(String(res.headers['x-ratelimit-reset']), /^\d+$/);
      if (res.statusCode === 403) assert.equal(res.json().type, 'FORBIDDEN');
      if (res.statusCode === 429) {
        assert.equal(res.json().type, 'RATE_LIMIT');
        assert.ok(Number(res.headers['retry-after']) >= 1);
      }
    }
    assert.deepEqual(statuses, [403, 403, 429], 'the 403s count; over the limit the answer is 429');
    // A request without a valid key still gets 401 and no rate-limit headers (no client to count).
    const anon = await t.app.inject({
      method: 'POST',
      url: '/api/mica/cache/invalidate',
      payload: { cache: 'all' },
    });
    assert.equal(anon.statusCode, 401);
    assert.equal(anon.headers['x-ratelimit-limit'], undefined);
  });

  it('once the daily limit is used up, every refusal reports the day, however many follow', async () => {
    const c = await clientWithKey(t, `daily-scope-${Date.now()}`, {
      settings: { rate_limits: { per_minute: 3, burst_per_minute: 4, per_day: 2 } },
    });
    assert.equal((await evaluate(c.auth, c.clientId)).statusCode, 200);
    assert.equal((await evaluate(c.auth, c.clientId)).statusCode, 200);
    // Far more than the minute limit plus its burst allowance (4 a minute).
    for (let i = 0; i < 8; i++) {
      const res = await evaluate(c.auth, c.clientId);
      assert.equal(res.statusCode, 429, `request ${i + 3}`);
      const b = res.json();
      assert.equal(b.error.code, 'RATE_LIMITED');
      assert.equal(b.error.message, 'Daily request limit exceeded', `request ${i + 3}`);
      const retryAfter = Number(res.headers['retry-after']);
      assert.ok(retryAfter > 60, `request ${i + 3}: retry-after ${retryAfter}`);
      assert.equal(b.error.details.retry_after, retryAfter);
      assert.equal(res.headers['x-ratelimit-remaining'], '0');
      const reset = Number(res.headers['x-ratelimit-reset']);
      assert.ok(reset > Date.now() / 1000 + 60, `request ${i + 3}: reset ${reset}`);
      // The limit named is the one refusing: the day's.
      assert.equal(b.error.details.limit, 2, `request ${i + 3}`);
      assert.equal(res.headers['x-ratelimit-limit'], '2');
    }
  });

  it('when less is left of the day than of the minute, the headers describe the day: its limit, what is left, its reset', async () => {
    const c = await clientWithKey(t, `day-binding-${Date.now()}`, {
      settings: { rate_limits: { per_minute: 10, per_day: 3 } },
    });
    const seen: Array<[number, string, string, number]> = [];
    for (let i = 0; i < 4; i++) {
      const res = await evaluate(c.auth, c.clientId);
      seen.push([
        res.statusCode,
        String(res.headers['x-ratelimit-limit']),
        String(res.headers['x-ratelimit-remaining']),
        Number(res.headers['x-ratelimit-reset']),
      ]);
    }
    assert.deepEqual(
      seen.map(([status, limit, remaining]) => [status, limit, remaining]),
      [
        [200, '3', '2'],
        [200, '3', '1'],
        [200, '3', '0'],
        [429, '3', '0'],
      ],
    );
    // One reset for all four: the day's (24 h from the first request), not the minute's.
    const inADay = Date.now() / 1000 + 86_400;
    for (const [, , , reset] of seen) assert.ok(Math.abs(reset - inADay) < 120, `reset ${reset}`);
    // The request that uses up the day and the minute at once describes the day (the minute's
    // reset brings nothing back); so does one served from the burst allowance on the day's last.
    for (const rate_limits of [
      { per_minute: 2, burst_per_minute: 2, per_day: 2 },
      { per_minute: 2, burst_per_minute: 4, per_day: 3 },
    ]) {
      const both = await clientWithKey(t, `both-${rate_limits.per_day}-${Date.now()}`, {
        settings: { rate_limits },
      });
      let last: Awaited<ReturnType<typeof evaluate>> | undefined;
      for (let i = 0; i < rate_limits.per_day; i++) {
        last = await evaluate(both.auth, both.clientId);
        assert.equal(last.statusCode, 200);
      }
      assert.equal(last!.headers['x-ratelimit-remaining'], '0');
      assert.equal(
        last!.headers['x-ratelimit-limit'],
        String(rate_limits.per_day),
        JSON.stringify(rate_limits),
      );
      assert.ok(
        Number(last!.headers['x-ratelimit-reset']) > Date.now() / 1000 + 3600,
        JSON.stringify(rate_limits),
      );
    }
    // With the minute the smaller, the minute is described.
    const m = await clientWithKey(t, `minute-binding-${Date.now()}`, {
      settings: { rate_limits: { per_minute: 2, burst_per_minute: 2, per_day: 100 } },
    });
    const first = await evaluate(m.auth, m.clientId);
    assert.equal(first.headers['x-ratelimit-limit'], '2');
    assert.equal(first.headers['x-ratelimit-remaining'], '1');
    assert.ok(Number(first.headers['x-ratelimit-reset']) <= Date.now() / 1000 + 61);
  });

  it('a change of limits keeps what the client has already used in the minute and the day', async () => {
    const c = await clientWithKey(t, `changed-${Date.now()}`, {
      settings: { rate_limits: { per_minute: 1000, per_day: 10 } },
    });
    for (let i = 0; i < 4; i++) assert.equal((await evaluate(c.auth, c.clientId)).statusCode, 200);
    // Four used today: a day of 5 leaves one, a minute of 6 leaves two.
    await t.deps.clients.setSettings(c.clientId, { rate_limits: { per_minute: 6, per_day: 5 } }, 'test');
    const fifth = await evaluate(c.auth, c.clientId);
    assert.equal(fifth.statusCode, 200);
    assert.equal(fifth.headers['x-ratelimit-remaining'], '0');
    const sixth = await evaluate(c.auth, c.clientId);
    assert.equal(sixth.statusCode, 429);
    assert.equal(sixth.json().error.message, 'Daily request limit exceeded');
    // Raised again (no burst): the minute has 6 used, refusal included, so two more pass.
    await t.deps.clients.setSettings(
      c.clientId,
      { rate_limits: { per_minute: 8, burst_per_minute: 8, per_day: 100 } },
      'test',
    );
    assert.equal((await evaluate(c.auth, c.clientId)).statusCode, 200);
    assert.equal((await evaluate(c.auth, c.clientId)).statusCode, 200);
    const refused = await evaluate(c.auth, c.clientId);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.message, 'Rate limit exceeded');
    assert.equal(refused.headers['x-ratelimit-limit'], '8', 'the minute refuses this one (9 > 8)');
  });

  it('limits are per client: one client exhausted does not slow another', async () => {
    const a = await clientWithKey(t, `a-${Date.now()}`, { settings: { rate_limits: { per_minute: 1 } } });
    const b = await clientWithKey(t, `b-${Date.now()}`, { settings: { rate_limits: { per_minute: 1 } } });
    assert.equal((await evaluate(a.auth, a.clientId)).statusCode, 200);
    assert.equal((await evaluate(a.auth, a.clientId)).statusCode, 429);
    assert.equal((await evaluate(b.auth, b.clientId)).statusCode, 200);
  });

  it('bad rate-limit settings are refused', async () => {
    await assert.rejects(
      t.deps.clients.create('bad-limits', { actor: 't', settings: { rate_limits: { per_minute: 0 } } }),
      /rate_limits.per_minute/,
    );
    // A burst limit below the minute limit would apply as the minute limit: refused, not raised.
    for (const rate_limits of [{ per_minute: 10, burst_per_minute: 5 }, { burst_per_minute: 50 }])
      await assert.rejects(
        t.deps.clients.create(`bad-burst-${rate_limits.burst_per_minute}`, {
          actor: 't',
          settings: { rate_limits },
        }),
        /rate_limits.burst_per_minute: must be at least per_minute/,
      );
    // A limit the headers could not write as an integer.
    await assert.rejects(
      t.deps.clients.create('huge', {
        actor: 't',
        settings: { rate_limits: { per_minute: 1e300, per_day: 1e308 } },
      }),
      (e: Error) =>
        /rate_limits.per_minute: must be at most 1,000,000,000/.test(e.message) &&
        /rate_limits.per_day: must be at most/.test(e.message),
    );
  });

  it('a settings change is refused with every problem at once: rules, limits and retention', async () => {
    const refusal = await t.deps.clients
      .create('many-problems', {
        actor: 't',
        settings: {
          thresholds: { cumulative_window_days: 0 },
          time_zone: 'Mars/Base',
          retention_years: 4,
          rate_limits: { per_minute: 0, per_hour: 5 },
        },
      })
      .then(
        () => assert.fail('accepted'),
        (e: Error & { details?: { errors?: string[] } }) => {
          assert.equal(e.details?.errors?.length, 5, 'each problem also listed on its own');
          return e.message;
        },
      );
    for (const named of [
      'thresholds.cumulative_window_days',
      'time_zone',
      'retention_years',
      'rate_limits.per_minute',
      'rate_limits.per_hour',
    ])
      assert.ok(refusal.includes(named), `${named} in: ${refusal}`);
  });
});

describe('rate limiter store failure', () => {
  it('falls back to an in-process limit instead of failing, and reports it', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    dead.on('error', () => {});
    let fallbacks = 0;
    const limiter = createRateLimitService({
      redis: dead,
      onFallback: () => fallbacks++,
      prefix: `t${Date.now()}`,
    });
    const d1 = await limiter.check('k', { per_minute: 1 });
    const d2 = await limiter.check('k', { per_minute: 1 });
    assert.equal(d1.allowed, true);
    assert.equal(d2.allowed, false, 'the in-process fallback still limits');
    assert.ok(fallbacks >= 2);
    dead.disconnect();
  });
});
