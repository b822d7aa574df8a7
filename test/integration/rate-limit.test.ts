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
    for (let i = 0; i < 6; i++) {
      const res = await evaluate(c.auth, clientId);
      statuses.push(res.statusCode);
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
  });

  it('the daily limit refuses once reached', async () => {
    const c = await clientWithKey(t, `daily-${Date.now()}`, {
      settings: { rate_limits: { per_minute: 100, per_day: 2 } },
    });
    const s = [];
    for (let i = 0; i < 3; i++) s.push((await evaluate(c.auth, c.clientId)).statusCode);
    assert.deepEqual(s, [200, 200, 429]);
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
