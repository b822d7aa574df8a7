import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { walletCacheKey } from '../../src/services/cache-keys.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';
import {
  completeBody,
  ETH,
  importTestDirectory,
  UNLISTED_LEI,
  uniqueClientId,
} from '../helpers/travel-rule.ts';

const FIGURES = ['hit_rate', 'miss_rate', 'total_requests', 'cache_size', 'memory_usage_mb'];

describe('travel-rule cache, statistics and invalidation', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let admin: Record<string, string>;
  let otherAuth: Record<string, string>;
  let clientId: string;
  before(async () => {
    t = await startTestApp();
    clientId = uniqueClientId('acme');
    ({ auth } = await clientWithKey(t, clientId));
    ({ auth: admin } = await clientWithKey(t, clientId, { role: 'admin' }));
    ({ auth: otherAuth } = await clientWithKey(t, uniqueClientId('other'), { role: 'admin' }));
    await importTestDirectory(t);
  });
  after(() => t.close());

  const validate = (payload: unknown, headers = auth) =>
    t.app.inject({
      method: 'POST',
      url: '/api/mica/travel-rule-validation',
      headers,
      payload: payload as object,
    });
  const stats = async (headers = auth) => {
    const res = await t.app.inject({ method: 'GET', url: '/api/mica/cache/stats', headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const invalidate = (payload: unknown, headers = admin) =>
    t.app.inject({ method: 'POST', url: '/api/mica/cache/invalidate', headers, payload: payload as object });
  const evaluations = async (transferId: string) =>
    (
      await t.deps.db
        .selectFrom('evaluations')
        .select('evaluation_id')
        .where('client_id', '=', clientId)
        .where('trigger_entity_id', '=', transferId)
        .execute()
    ).length;

  it('stats start at zero with the spec figures for both caches', async () => {
    const s = await stats();
    assert.deepEqual(Object.keys(s), ['wallet_screening', 'travel_rule']);
    for (const ns of ['wallet_screening', 'travel_rule']) {
      assert.deepEqual(Object.keys(s[ns]), FIGURES);
      assert.deepEqual(s[ns], {
        hit_rate: 0,
        miss_rate: 0,
        total_requests: 0,
        cache_size: 0,
        memory_usage_mb: 0,
      });
    }
  });

  it('a repeated body is served from the cache without a new evaluation', async () => {
    const first = await validate(completeBody('tr-c1'));
    assert.equal(first.statusCode, 200, first.body);
    const second = await validate(completeBody('tr-c1'));
    assert.equal(second.statusCode, 200);
    assert.equal(second.body, first.body);
    assert.equal(await evaluations('tr-c1'), 1);

    // Key order does not change the fingerprint.
    const reordered = Object.fromEntries(Object.entries(completeBody('tr-c1')).reverse());
    assert.equal((await validate(reordered)).body, first.body);
    assert.equal(await evaluations('tr-c1'), 1);

    const s = await stats();
    assert.equal(s.travel_rule.total_requests, 3);
    assert.equal(s.travel_rule.hit_rate, 2 / 3);
    assert.equal(s.travel_rule.miss_rate, 1 / 3);
    assert.equal(s.travel_rule.cache_size, 1);
    assert.ok(s.travel_rule.memory_usage_mb > 0);
    assert.equal(s.wallet_screening.total_requests, 0);
  });

  it('the same transfer id with another body is validated again and replaces the entry', async () => {
    const changed = completeBody('tr-c1');
    changed.beneficiary = { ...changed.beneficiary, casp_lei: UNLISTED_LEI, casp_name: 'MF Consulting' };
    const res = await validate(changed);
    assert.deepEqual(res.json().rule_evaluation.actions, ['REVIEW']);
    assert.equal(await evaluations('tr-c1'), 2);
    assert.equal((await stats()).travel_rule.cache_size, 1);
    // The changed body is now the cached one; the first body is validated again.
    await validate(changed);
    assert.equal(await evaluations('tr-c1'), 2);
    await validate(completeBody('tr-c1'));
    assert.equal(await evaluations('tr-c1'), 3);
  });

  it('a rejected body is neither cached nor counted', async () => {
    const before = (await stats()).travel_rule.total_requests;
    const res = await validate(completeBody('tr-c-bad', { direction: 'up' }));
    assert.equal(res.statusCode, 400);
    assert.equal((await stats()).travel_rule.total_requests, before);
  });

  it('a new CASP directory makes cached answers stale', async () => {
    await validate(completeBody('tr-c-dir'));
    assert.equal(await evaluations('tr-c-dir'), 1);
    await importTestDirectory(t);
    await validate(completeBody('tr-c-dir'));
    assert.equal(await evaluations('tr-c-dir'), 2);
  });

  it('changed client settings make cached answers stale: travel rule and wallet screening', async () => {
    // A self-hosted EUR 1,500 transfer without proof of ownership: blocked by MICA-CDD-003 at the
    // default threshold (1,000), allowed at 2,000.
    const selfHosted = completeBody('tr-c-settings', { amount_eur: 1500 });
    delete (selfHosted.beneficiary as Record<string, unknown>).casp_lei;
    delete (selfHosted.beneficiary as Record<string, unknown>).casp_name;
    const settings = (s: Record<string, unknown>) =>
      t.deps.commands('clients.settings', { client_id: clientId, settings: s }, 'test');
    const screen = async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/mica/wallet-screening?wallet_address=${ETH}&blockchain=ethereum`,
        headers: auth,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().rule_evaluation.actions as string[];
    };
    const blocked = async () => (await validate(selfHosted)).json().rule_evaluation.should_block as boolean;
    try {
      await settings({ thresholds: { self_hosted_amount_eur: 2000 } });
      assert.equal(await blocked(), false);
      const clean = await screen();
      assert.ok(!clean.includes('REVIEW'), clean.join());
      assert.equal(await blocked(), false, 'cached');
      // Back to the default threshold, and every wallet's risk score now calls for a review.
      await settings({ thresholds: { wallet_risk_score: 0 } });
      assert.equal(await blocked(), true, 'decided again under the new settings');
      assert.ok((await screen()).includes('REVIEW'));
    } finally {
      await settings({});
    }
  });

  it('stats and entries are per client', async () => {
    const other = await stats(otherAuth);
    assert.equal(other.travel_rule.total_requests, 0);
    assert.equal(other.travel_rule.cache_size, 0);
    const res = await invalidate({ cache: 'all' }, otherAuth);
    assert.deepEqual(res.json(), { invalidated: 0 });
    assert.ok((await stats()).travel_rule.cache_size > 0);
  });

  it('invalidates one transfer, then the whole cache; the next request misses', async () => {
    await validate(completeBody('tr-c2'));
    const one = await invalidate({ cache: 'travel_rule', transfer_id: 'tr-c2' });
    assert.equal(one.statusCode, 200, one.body);
    assert.deepEqual(one.json(), { invalidated: 1 });
    assert.deepEqual((await invalidate({ cache: 'travel_rule', transfer_id: 'tr-c2' })).json(), {
      invalidated: 0,
    });
    await validate(completeBody('tr-c2'));
    assert.equal(await evaluations('tr-c2'), 2);

    const size = (await stats()).travel_rule.cache_size;
    assert.ok(size >= 2);
    assert.deepEqual((await invalidate({ cache: 'travel_rule' })).json(), { invalidated: size });
    assert.equal((await stats()).travel_rule.cache_size, 0);
  });

  it('invalidates wallet-screening entries by address (EVM case-insensitively), chain, or all', async () => {
    const put = (address: string, chain: string) =>
      t.deps.cache.set(walletCacheKey(clientId, address, chain), '{}', 300);
    await put(ETH, 'ethereum');
    await put(ETH.toLowerCase(), 'polygon');
    await put('14HmBSwec8XrcWge9Zi1ZngNia64u3Wd2v', 'bitcoin');
    await validate(completeBody('tr-c3'));
    assert.equal((await stats()).wallet_screening.cache_size, 3);

    const upper = `0x${ETH.slice(2).toUpperCase()}`;
    const exact = await invalidate({
      cache: 'wallet_screening',
      wallet_address: upper,
      blockchain: 'polygon',
    });
    assert.deepEqual(exact.json(), { invalidated: 1 });
    // With cache "all", an address selects only wallet entries: the transfer stays cached.
    assert.deepEqual((await invalidate({ cache: 'all', wallet_address: ETH })).json(), { invalidated: 1 });
    await put(ETH, 'ethereum');
    // A chain alone selects every address screened on it (CONTRACT §4: every selector is optional).
    await put(ETH, 'binance-smart-chain');
    assert.deepEqual((await invalidate({ cache: 'wallet_screening', blockchain: 'bitcoin' })).json(), {
      invalidated: 1,
    });
    assert.deepEqual((await invalidate({ cache: 'all', blockchain: 'bitcoin' })).json(), { invalidated: 0 });
    assert.equal((await stats()).wallet_screening.cache_size, 2);
    assert.equal((await stats()).travel_rule.cache_size, 1, 'a chain selects no transfer');
    await put('14HmBSwec8XrcWge9Zi1ZngNia64u3Wd2v', 'bitcoin');
    assert.deepEqual((await invalidate({ cache: 'all' })).json(), { invalidated: 4 });
    const s = await stats();
    assert.equal(s.wallet_screening.cache_size, 0);
    assert.equal(s.travel_rule.cache_size, 0);
  });

  it('invalidation is for admin keys: a standard key is 403 flat FORBIDDEN, no key 401', async () => {
    const res = await invalidate({ cache: 'all' }, auth);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(Object.keys(res.json()), ['error', 'type', 'details', 'statusCode']);
    assert.equal(res.json().type, 'FORBIDDEN');
    assert.equal(res.json().statusCode, 403);
    const anonymous = await invalidate({ cache: 'all' }, {});
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.json().type, 'AUTHENTICATION');
    const statsAnonymous = await t.app.inject({ method: 'GET', url: '/api/mica/cache/stats' });
    assert.equal(statsAnonymous.statusCode, 401);
    assert.equal(statsAnonymous.json().type, 'AUTHENTICATION');
  });

  it('an invalid invalidation body is a 400 flat VALIDATION naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'cache: Required'],
      [{ cache: 'screening' }, 'cache: Must be one of: wallet_screening, travel_rule, all'],
      [{ cache: 'all', blockchain: 'dogecoin', wallet_address: ETH }, 'blockchain: Must be one of:'],
      [{ cache: 'travel_rule', blockchain: 'ethereum' }, 'blockchain: Only applies'],
      [{ cache: 'travel_rule', wallet_address: ETH }, 'wallet_address: Only applies'],
      [{ cache: 'wallet_screening', transfer_id: 'x' }, 'transfer_id: Only applies'],
      [{ cache: 'all', extra: 1 }, 'extra: Unknown field'],
    ];
    for (const [payload, expected] of cases) {
      const res = await invalidate(payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      const body = res.json();
      assert.equal(body.type, 'VALIDATION');
      assert.ok(
        body.details.errors.some((e: string) => e.startsWith(expected)),
        `${JSON.stringify(payload)}: ${res.body}`,
      );
    }
  });
});
