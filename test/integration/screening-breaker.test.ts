import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  breakerStatus,
  expectVendorError,
  type FakeVendor,
  type FlatBody,
  freshEvm,
  screenOk,
  startFakeVendor,
  startVendorApp,
  type VendorApp,
} from '../helpers/fake-vendors.ts';
import { clientWithKey, startTestApp } from '../helpers/harness.ts';
import { fixturePath, importList, type Screening, screenGet, uniqueClient } from '../helpers/screening.ts';
import { freePort } from '../helpers/server-process.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Long enough that a busy machine does not slip from OPEN to HALF_OPEN between two requests.
const RECOVERY_MS = 2000;

describe('vendor circuit breakers over real HTTP (fake vendors on 127.0.0.1)', () => {
  let v: VendorApp;
  let t: VendorApp['t'];
  let a: FakeVendor;
  let b: FakeVendor;
  let c: FakeVendor;
  let auth: Record<string, string>;
  before(async () => {
    v = await startVendorApp({
      // Generous: the machine may be busy; the hang test waits this long.
      VENDOR_TIMEOUT_MS: '1500',
      BREAKER_RECOVERY_MS: String(RECOVERY_MS),
    });
    ({ t, a, b, c, auth } = v);
  });
  after(() => v.close());
  beforeEach(() => v.reset());

  const calls = () => v.calls();
  const ok = (address: string, chain = 'ethereum') => screenOk(t, auth, address, chain);

  const status = () => breakerStatus(v);

  const vendorError = (address: string, vendor: string, state: string) =>
    expectVendorError(t, auth, address, vendor, state, RECOVERY_MS / 1000);

  const cachedAddress = freshEvm();

  /** Drops the caller's cached answers for an address. */
  const invalidate = async (address: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/cache/invalidate',
      headers: { ...v.admin, 'content-type': 'application/json' },
      payload: JSON.stringify({ cache: 'wallet_screening', wallet_address: address }),
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  const records = (address: string) =>
    t.deps.db
      .selectFrom('evaluations')
      .select(['request', 'evaluated_at'])
      .where('trigger_type', '=', 'wallet_screen')
      .where('trigger_entity_id', '=', address)
      .orderBy('evaluated_at', 'desc')
      .execute();
  /** How many screenings of the address were audited (a cache hit writes none). */
  const recordCount = async (address: string) => (await records(address)).length;
  /** The data of the latest audited screening of the address. */
  const lastRecord = async (address: string): Promise<Record<string, unknown>> => {
    const [row] = await records(address);
    const request = typeof row?.request === 'string' ? JSON.parse(row.request) : row?.request;
    assert.ok(request?.data, JSON.stringify(row));
    return request.data;
  };

  it('opens a breaker after 5 consecutive failures, then fails fast without calling any vendor', async () => {
    // A held list, imported first: an import changes the lists version and so retires cached answers.
    await importList(t, 'ofac', fixturePath('ofac_sdn/tiny_2025'), '2025-05-16');
    await ok(cachedAddress); // cached while every vendor answers
    b.calls.length = 0;
    b.mode = 'error500';
    for (let i = 1; i <= 5; i++) await vendorError(freshEvm(), 'vendor_b', i < 5 ? 'CLOSED' : 'OPEN');
    assert.equal(b.calls.length, 5, 'a failed call counts once: no hidden retries');
    const s = (await status()).vendor_b!;
    assert.equal(s.state, 'OPEN');
    assert.equal(s.failures, 5);
    assert.equal(s.successes, 1);
    assert.ok(s.last_failure && Math.abs(Date.parse(s.last_failure) - Date.now()) < 5000);
    assert.match(s.last_failure!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal((await status()).vendor_a!.state, 'CLOSED');

    const before = calls();
    await vendorError(freshEvm(), 'vendor_b', 'OPEN');
    assert.equal(calls(), before, 'no vendor called while a breaker is OPEN');
  });

  it('while OPEN, a cached answer and a held-list hit are still answered', async () => {
    const listed = '1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi';
    b.mode = 'error500';
    // On a busy machine the recovery time may pass before or during the requests: a test request
    // then goes to the vendors (and, failing, reopens the breaker), so the attempt counts only if
    // no vendor was called and the breaker stayed OPEN throughout.
    for (let attempt = 1; ; attempt++) {
      if ((await status()).vendor_b!.state !== 'OPEN') await screenGet(t, auth, freshEvm(), 'ethereum');
      assert.equal((await status()).vendor_b!.state, 'OPEN');
      const before = calls();
      const cached = await screenGet(t, auth, cachedAddress, 'ethereum');
      const res = await screenGet(t, auth, listed, 'bitcoin');
      const data = await lastRecord(listed);
      const audited = await recordCount(listed);
      const again = await screenGet(t, auth, listed, 'bitcoin');
      if (((await status()).vendor_b!.state !== 'OPEN' || calls() !== before) && attempt < 5) continue;
      assert.equal(cached.statusCode, 200, cached.body);
      assert.equal(res.statusCode, 200, res.body);
      const s = res.json() as Screening;
      assert.equal(s.rule_evaluation.actions[0], 'BLOCK');
      assert.equal(s.risk_profile.sanctions_matches[0]?.entry_id, '33151');
      assert.equal(calls(), before, 'no vendor called');
      // No vendor's part in it: the record names them all, and the answer is not cached.
      assert.deepEqual(data.vendors_incomplete, ['vendor_a', 'vendor_b', 'vendor_c']);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.body, res.body);
      assert.equal(await recordCount(listed), audited + 1, 'screened again, not served from the cache');
      break;
    }
  });

  it('reads HALF_OPEN after the recovery time; a successful test request closes it', async () => {
    await sleep(RECOVERY_MS + 50);
    // (The previous test may have reopened it late; one more period at most.)
    if ((await status()).vendor_b!.state === 'OPEN') await sleep(RECOVERY_MS);
    assert.equal((await status()).vendor_b!.state, 'HALF_OPEN');
    const s = await ok(freshEvm());
    assert.equal(s.risk_profile.risk_category, 'low');
    assert.equal(b.calls.length, 1);
    const st = (await status()).vendor_b!;
    assert.equal(st.state, 'CLOSED');
    assert.equal(st.failures, 0);
  });

  it('a failed test request reopens it', async () => {
    b.mode = 'error500';
    for (let i = 1; i <= 5; i++) await vendorError(freshEvm(), 'vendor_b', i < 5 ? 'CLOSED' : 'OPEN');
    await sleep(RECOVERY_MS + 50);
    await vendorError(freshEvm(), 'vendor_b', 'OPEN');
    const st = (await status()).vendor_b!;
    assert.equal(st.state, 'OPEN');
    assert.equal(st.failures, 6);
    await sleep(RECOVERY_MS + 50);
    b.mode = 'ok';
    await ok(freshEvm());
    assert.equal((await status()).vendor_b!.state, 'CLOSED');
  });

  it('timeouts, connection resets, 429 and non-JSON answers are failures; a 401 is not', async () => {
    const started = Date.now();
    c.mode = 'hang';
    await vendorError(freshEvm(), 'vendor_c', 'CLOSED');
    const waited = Date.now() - started;
    assert.ok(waited >= 1400 && waited < 6000, `aborted at VENDOR_TIMEOUT_MS (${waited} ms)`);
    c.mode = 'reset';
    await vendorError(freshEvm(), 'vendor_c', 'CLOSED');
    c.mode = 'ratelimit';
    await vendorError(freshEvm(), 'vendor_c', 'CLOSED');
    c.mode = 'garbage';
    await vendorError(freshEvm(), 'vendor_c', 'CLOSED');
    assert.equal((await status()).vendor_c!.failures, 4);
    c.mode = 'refuse401';
    await vendorError(freshEvm(), 'vendor_c', 'CLOSED');
    assert.equal((await status()).vendor_c!.failures, 4, 'a 4xx refusal does not count');
    c.mode = 'ok';
    await ok(freshEvm());
    assert.equal((await status()).vendor_c!.failures, 0);
  });

  it('a held-list hit asks the vendors like any address; a failing or hanging one leaves a BLOCK, not cached, naming it', async () => {
    const listed = '1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi';
    // An earlier test's answer may be cached: this one must be screened.
    await invalidate(listed);
    const breakers = await status();
    for (const name of ['vendor_a', 'vendor_b', 'vendor_c'])
      assert.equal(breakers[name]!.state, 'CLOSED', name);
    b.answers.set(listed, [
      {
        address: listed,
        chain: 'bitcoin',
        addressRiskIndicators: [
          {
            category: 'Darknet Market',
            categoryRiskScoreLevel: 10,
            riskType: 'COUNTERPARTY',
            totalVolumeUsd: '250',
          },
          {
            category: 'Exchange',
            categoryRiskScoreLevel: 1,
            riskType: 'COUNTERPARTY',
            totalVolumeUsd: '750',
          },
        ],
        entities: [],
        lastActivityAt: '2025-06-01T00:00:00Z',
      },
    ]);
    c.answers.set(listed, {
      risk_score: 5,
      evaluation_detail: {
        source: [{ rule_name: 'r', matched_elements: [{ category: 'Mixer', contribution_percentage: 40 }] }],
      },
    });
    const block = (s: Screening) => {
      assert.deepEqual(s.rule_evaluation.actions.slice(0, 1), ['BLOCK']);
      assert.equal(s.rule_evaluation.should_block, true);
      assert.equal(s.risk_profile.risk_category, 'critical');
      assert.equal(s.risk_profile.risk_score, 100);
      assert.equal(s.risk_profile.sanctioned_exposure, 1);
      assert.equal(s.risk_profile.sanctions_matches[0]?.entry_id, '33151');
    };

    // Every vendor up: asked, and their exposures and activity are in the listed address's profile.
    const full = await ok(listed, 'bitcoin');
    block(full);
    assert.deepEqual([a.calls.length, b.calls.length, c.calls.length], [1, 1, 1]);
    assert.equal(full.risk_profile.darknet_exposure, 0.25);
    assert.equal(full.risk_profile.mixer_exposure, 0.4);
    assert.equal(full.risk_profile.last_activity_at, '2025-06-01T00:00:00.000Z');
    const rules = full.rule_evaluation.triggered_rules.map((r) => r.rule_id);
    assert.ok(rules.includes('MICA-WAL-001') && rules.includes('MICA-WAL-002'), rules.join());
    assert.equal((await lastRecord(listed)).vendors_incomplete, undefined);
    // A complete answer is cached like any other.
    const records = await recordCount(listed);
    assert.equal((await screenGet(t, auth, listed, 'bitcoin')).body, JSON.stringify(full));
    assert.equal(calls(), 3);
    assert.equal(await recordCount(listed), records);

    // A failing vendor, its breaker CLOSED: still 200 BLOCK (never a 503 for a listed address), the
    // others' parts in it, the failure counted once, the missing vendor named, nothing cached.
    await invalidate(listed);
    v.reset();
    b.mode = 'error500';
    const failed = await ok(listed, 'bitcoin');
    block(failed);
    assert.equal(failed.risk_profile.darknet_exposure, 0, "vendor_b's part is missing");
    assert.equal(failed.risk_profile.mixer_exposure, 0.4, "vendor_c's part is there");
    assert.equal(b.calls.length, 1, 'asked once: no hidden retries');
    const st = (await status()).vendor_b!;
    assert.equal(st.state, 'CLOSED');
    assert.equal(st.failures, breakers.vendor_b!.failures + 1);
    assert.deepEqual((await lastRecord(listed)).vendors_incomplete, ['vendor_b']);
    b.mode = 'ok';
    const after = await ok(listed, 'bitcoin');
    assert.equal(calls(), 6, 'not cached: the vendors are asked again');
    assert.equal(after.risk_profile.darknet_exposure, 0.25);
    assert.equal((await status()).vendor_b!.failures, 0);

    // A hanging vendor is waited for no longer than its timeout.
    await invalidate(listed);
    v.reset();
    c.mode = 'hang';
    const started = Date.now();
    const hung = await ok(listed, 'bitcoin');
    const waited = Date.now() - started;
    block(hung);
    assert.ok(waited >= 1400 && waited < 6000, `bounded by VENDOR_TIMEOUT_MS (${waited} ms)`);
    assert.equal(hung.risk_profile.darknet_exposure, 0.25);
    assert.equal(hung.risk_profile.mixer_exposure, 0);
    assert.deepEqual((await lastRecord(listed)).vendors_incomplete, ['vendor_c']);
    assert.equal((await status()).vendor_c!.failures, breakers.vendor_c!.failures + 1);
    b.answers.delete(listed);
    c.answers.delete(listed);
  });
});

describe('circuit breaker with the spec defaults', () => {
  it('answers 503 VENDOR with retry_after 30 and Retry-After: 30 once open', async () => {
    const v = await startFakeVendor('vendor_a');
    const t = await startTestApp({ VENDOR_A_URL: v.url, VENDOR_A_KEY: 'k' });
    try {
      const { auth } = await clientWithKey(t, uniqueClient('defaults'));
      v.mode = 'error500';
      let last: { statusCode: number; headers: Record<string, unknown>; json: () => FlatBody } | undefined;
      for (let i = 0; i < 6; i++) last = await screenGet(t, auth, freshEvm(), 'ethereum');
      assert.equal(v.calls.length, 5);
      assert.equal(last!.statusCode, 503);
      assert.equal(last!.headers['retry-after'], '30');
      assert.deepEqual(last!.json().details, { vendor: 'vendor_a', breaker_state: 'OPEN', retry_after: 30 });
      const st = await t.app.inject({
        method: 'GET',
        url: '/api/mica/circuit-breaker/status',
        headers: auth,
      });
      const breakers = st.json().breakers;
      assert.equal(breakers.vendor_a.state, 'OPEN');
      // Vendors not configured are never called and stay CLOSED.
      assert.deepEqual(breakers.vendor_b, { state: 'CLOSED', failures: 0, successes: 0, last_failure: null });
    } finally {
      await t.close();
      await v.close();
    }
  });
});

describe('circuit breakers while Redis is unreachable', () => {
  it('are kept in process: screening answers, a failing vendor still opens its breaker, status reads', async () => {
    const port = await freePort();
    const v = await startVendorApp({ REDIS_URL: `redis://127.0.0.1:${port}/0`, VENDOR_TIMEOUT_MS: '1500' });
    try {
      await screenOk(v.t, v.auth, freshEvm());
      // Warm now: a screening that waited on ioredis's reconnect back-off would take seconds.
      const started = Date.now();
      await screenOk(v.t, v.auth, freshEvm());
      assert.ok(Date.now() - started < 1000, 'no wait on the reconnecting client');
      v.b.mode = 'error500';
      for (let i = 1; i <= 5; i++)
        await expectVendorError(v.t, v.auth, freshEvm(), 'vendor_b', i < 5 ? 'CLOSED' : 'OPEN', 30);
      const status = await breakerStatus(v);
      assert.equal(status.vendor_b?.state, 'OPEN');
      assert.equal(status.vendor_a?.state, 'CLOSED');
    } finally {
      await v.close();
    }
  });
});
