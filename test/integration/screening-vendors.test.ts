import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, describe, it } from 'node:test';
import { toChecksumAddress } from '../../src/domain/screening/index.ts';
import { type FakeVendor, startFakeVendor } from '../helpers/fake-vendors.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';
import { fixturePath, importList, type Screening, screenGet, screenPost, uniqueClient } from '../helpers/screening.ts';

const fixture = (name: string) => JSON.parse(readFileSync(fixturePath(`vendors/${name}`), 'utf8'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Distinct valid addresses, so that each request misses the cache unless a test wants a hit.
let seq = 0x1000;
const freshEvm = () => `0x${(seq++).toString(16).padStart(40, '0')}`;

interface FlatBody {
  error: string;
  type: string;
  details: Record<string, unknown>;
  statusCode: number;
}

describe('wallet screening through vendors behind circuit breakers', () => {
  let t: TestApp;
  let a: FakeVendor;
  let b: FakeVendor;
  let c: FakeVendor;
  let auth: Record<string, string>;
  let admin: Record<string, string>;
  const RECOVERY_MS = 1000;

  before(async () => {
    [a, b, c] = await Promise.all([startFakeVendor('vendor_a'), startFakeVendor('vendor_b'), startFakeVendor('vendor_c')]);
    t = await startTestApp({
      VENDOR_A_URL: a.url,
      VENDOR_A_KEY: 'key-a',
      VENDOR_B_URL: b.url,
      VENDOR_B_KEY: 'key-b',
      VENDOR_C_URL: c.url,
      VENDOR_C_KEY: 'key-c',
      // Generous: the machine may be busy; the hang test waits this long.
      VENDOR_TIMEOUT_MS: '1500',
      BREAKER_RECOVERY_MS: String(RECOVERY_MS),
    });
    const client = uniqueClient('vendors');
    ({ auth } = await clientWithKey(t, client));
    ({ auth: admin } = await clientWithKey(t, client, { role: 'admin' }));
  });
  after(async () => {
    await t.close();
    await Promise.all([a.close(), b.close(), c.close()]);
  });
  beforeEach(() => {
    for (const v of [a, b, c]) {
      v.mode = 'ok';
      v.calls.length = 0;
    }
  });

  const calls = () => a.calls.length + b.calls.length + c.calls.length;
  const status = async () =>
    (
      await t.app.inject({ method: 'GET', url: '/api/mica/circuit-breaker/status', headers: auth })
    ).json().breakers as Record<string, { state: string; failures: number; successes: number; last_failure: string | null }>;

  async function ok(address: string, chain = 'ethereum'): Promise<Screening> {
    const res = await screenGet(t, auth, address, chain);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Screening;
  }

  async function vendorError(address: string, vendor: string, state: string) {
    const res = await screenGet(t, auth, address, 'ethereum');
    assert.equal(res.statusCode, 503, res.body);
    const body = res.json() as FlatBody;
    assert.equal(body.type, 'VENDOR');
    assert.equal(body.statusCode, 503);
    assert.deepEqual(body.details, { vendor, breaker_state: state, retry_after: 1 });
    assert.equal(res.headers['retry-after'], '1');
    return body;
  }

  it('calls each vendor with its own protocol and combines the answers: the worst wins', async () => {
    const address = '0x19aa5fe80d33a56d56c78e82ea5e50e5d80b4dff';
    b.answers.set(address, fixture('vendor_b_exposure.json'));
    c.answers.set(address, fixture('vendor_c_wallet.json'));
    const s = await ok(address);
    assert.deepEqual(s.risk_profile, {
      wallet_address: address,
      blockchain: 'ethereum',
      risk_score: 100, // vendor_b's level 15 beats vendor_c's 6.2 × 10
      risk_category: 'critical',
      sanctioned_exposure: 0.3, // vendor_c 30 % beats vendor_b 200 / 1000
      darknet_exposure: 0.3, // vendor_b 300 / 1000 beats vendor_c 20 %
      mixer_exposure: 0.125, // vendor_c 12.5 % beats vendor_b 100 / 1000
      last_activity_at: '2025-05-01T10:00:00.000Z', // the later of b (2025) and c (2024)
      sanctions_matches: [],
    });
    assert.deepEqual(s.rule_evaluation.actions, ['BLOCK', 'REVIEW']);
    assert.deepEqual(
      s.rule_evaluation.triggered_rules.map((r) => r.rule_id),
      ['MICA-WAL-001', 'MICA-WAL-002', 'MICA-WAL-003'],
    );

    assert.deepEqual([a.calls.length, b.calls.length, c.calls.length], [1, 1, 1]);
    const [ca] = a.calls;
    assert.equal(ca!.method, 'GET');
    assert.equal(ca!.path, `/api/v1/address/${address}`);
    assert.equal(ca!.headers['x-api-key'], 'key-a');
    const [cb] = b.calls;
    assert.equal(cb!.method, 'POST');
    assert.equal(cb!.path, '/public/v2/screening/addresses');
    assert.equal(cb!.headers.authorization, `Basic ${Buffer.from('key-b:').toString('base64')}`);
    assert.deepEqual(cb!.body, [{ address, chain: 'ethereum' }]);
    const [cc] = c.calls;
    assert.equal(cc!.path, '/v2/wallet/synchronous');
    assert.equal(cc!.headers.authorization, 'Bearer key-c');
    assert.deepEqual(cc!.body, {
      subject: { asset: 'holistic', blockchain: 'ethereum', type: 'address', hash: address },
      type: 'wallet_exposure',
    });
  });

  it('a vendor_a sanctions identification makes the wallet critical and blocks it', async () => {
    const address = freshEvm();
    a.answers.set(address, fixture('vendor_a_sanctioned.json'));
    const s = await ok(address);
    assert.equal(s.risk_profile.risk_score, 100);
    assert.equal(s.risk_profile.sanctioned_exposure, 1);
    assert.equal(s.risk_profile.risk_category, 'critical');
    assert.equal(s.rule_evaluation.should_block, true);
  });

  it('a vendor_a 404 means "no data", not a failure', async () => {
    a.mode = 'notfound';
    const s = await ok(freshEvm());
    assert.equal(s.risk_profile.risk_category, 'low');
    assert.deepEqual(s.rule_evaluation.actions, ['ALLOW']);
    assert.equal((await status()).vendor_a!.failures, 0);
  });

  it('caches an answer for its client: a hit is identical and calls no vendor; invalidation drops it', async () => {
    const address = freshEvm();
    const first = await screenGet(t, auth, address, 'polygon');
    assert.equal(first.statusCode, 200);
    assert.equal(calls(), 3);
    const second = await screenGet(t, auth, address, 'polygon');
    assert.equal(second.body, first.body);
    assert.equal(calls(), 3, 'served from the cache');
    // One entry serves every spelling of an EVM address, echoing the caller's.
    const upper = `0x${address.slice(2).toUpperCase()}`;
    const third = (await ok(upper, 'polygon')) as Screening;
    assert.equal(third.risk_profile.wallet_address, upper);
    assert.equal(calls(), 3);
    // Another chain is another entry.
    await ok(address, 'ethereum');
    assert.equal(calls(), 6);

    const inv = await t.app.inject({
      method: 'POST',
      url: '/api/mica/cache/invalidate',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: JSON.stringify({ cache: 'wallet_screening', wallet_address: address, blockchain: 'polygon' }),
    });
    assert.equal(inv.statusCode, 200, inv.body);
    assert.deepEqual(inv.json(), { invalidated: 1 });
    await ok(address, 'polygon');
    assert.equal(calls(), 9, 'screened again after invalidation');

    const stats = await t.app.inject({ method: 'GET', url: '/api/mica/cache/stats', headers: auth });
    const ws = stats.json().wallet_screening;
    assert.ok(ws.total_requests >= 5);
    assert.ok(ws.hit_rate > 0 && ws.miss_rate > 0);
    assert.ok(ws.cache_size >= 2);
  });

  it('a POST with names is screened afresh (names change the answer); one without is cached', async () => {
    const address = freshEvm();
    const body = { wallet_address: address, blockchain: 'ethereum', transaction_amount_eur: 250 };
    assert.equal((await screenPost(t, auth, body)).statusCode, 200);
    assert.equal((await screenPost(t, auth, body)).statusCode, 200);
    assert.equal(calls(), 3);
    const named = await screenPost(t, auth, { ...body, originator_name: 'John Smith' });
    assert.equal(named.statusCode, 200, named.body);
    assert.equal(calls(), 6);
  });

  it('opens a breaker after 5 consecutive failures, then fails fast without calling any vendor', async () => {
    b.mode = 'error500';
    for (let i = 1; i <= 5; i++) await vendorError(freshEvm(), 'vendor_b', i < 5 ? 'CLOSED' : 'OPEN');
    assert.equal(b.calls.length, 5, 'a failed call counts once: no hidden retries');
    const s = (await status()).vendor_b!;
    assert.equal(s.state, 'OPEN');
    assert.equal(s.failures, 5);
    assert.ok(s.successes >= 1);
    assert.ok(s.last_failure && Math.abs(Date.parse(s.last_failure) - Date.now()) < 5000);
    assert.match(s.last_failure!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal((await status()).vendor_a!.state, 'CLOSED');

    const before = calls();
    await vendorError(freshEvm(), 'vendor_b', 'OPEN');
    assert.equal(calls(), before, 'no vendor called while a breaker is OPEN');
  });

  it('while OPEN, a cached answer and a held-list hit are still answered', async () => {
    assert.equal((await status()).vendor_b!.state, 'OPEN');
    // Cached before the breaker opened (previous test's addresses are not cached: failures are not).
    const listed = '1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi';
    await importList(t, 'ofac', fixturePath('ofac_sdn/tiny_2025'), '2025-05-16');
    const before = calls();
    const res = await screenGet(t, auth, listed, 'bitcoin');
    assert.equal(res.statusCode, 200, res.body);
    const s = res.json() as Screening;
    assert.equal(s.rule_evaluation.actions[0], 'BLOCK');
    assert.equal(s.risk_profile.sanctions_matches[0]?.entry_id, '33151');
    assert.equal(calls(), before, 'no vendor called');
  });

  it('reads HALF_OPEN after the recovery time; a successful test request closes it', async () => {
    await sleep(RECOVERY_MS + 50);
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

  it('nothing is cached when a vendor fails', async () => {
    const address = freshEvm();
    a.mode = 'error500';
    await vendorError(address, 'vendor_a', 'CLOSED');
    a.mode = 'ok';
    const before = calls();
    await ok(address);
    assert.equal(calls(), before + 3);
  });

  it('rejects invalid addresses with a flat VALIDATION error, before any vendor is called', async () => {
    const bech = JSON.parse(readFileSync(fixturePath('address_formats/bip173_bip350_bech32_vectors.json'), 'utf8'));
    const sol = JSON.parse(readFileSync(fixturePath('address_formats/solana_address_examples.json'), 'utf8'));
    const checksummed = toChecksumAddress('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359');
    const badChecksum = checksummed.replace('fB69', 'Fb69');
    const cases: Array<[string, string]> = [
      ...bech.segwit_address_invalid.map((v: { string: string }) => [v.string, 'bitcoin'] as [string, string]),
      ...sol.invalid.map((v: { address: string }) => [v.address, 'solana'] as [string, string]),
      [badChecksum, 'ethereum'],
      ['0x1234', 'polygon'],
      ['1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qj', 'bitcoin'],
      ['0x901bb9583b24d97e995513c6778dc6888ab6870e', 'bitcoin'],
      ['12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz', 'ethereum'],
    ];
    for (const [address, chain] of cases) {
      const res = await screenGet(t, auth, address, chain);
      assert.equal(res.statusCode, 400, `${chain} ${JSON.stringify(address)}: ${res.body}`);
      const body = res.json() as FlatBody;
      assert.equal(body.type, 'VALIDATION');
      assert.equal(body.statusCode, 400);
      const errors = body.details.errors as string[];
      assert.equal(errors.length, 1);
      assert.match(errors[0]!, /^wallet_address: \S/);
    }
    assert.equal(calls(), 0);

    const missing = await t.app.inject({ method: 'GET', url: '/api/mica/wallet-screening?wallet_address=x', headers: auth });
    assert.deepEqual((missing.json() as FlatBody).details.errors, ['blockchain: Required']);
    const unknown = await screenGet(t, auth, 'x', 'dogecoin');
    assert.deepEqual((unknown.json() as FlatBody).details.errors, [
      'blockchain: Must be one of: ethereum, bitcoin, polygon, binance-smart-chain, solana',
    ]);
    const post = await screenPost(t, auth, { blockchain: 'ethereum', transaction_amount_eur: -1 });
    assert.equal(post.statusCode, 400);
    assert.deepEqual((post.json() as FlatBody).details.errors, [
      'wallet_address: Required',
      'transaction_amount_eur: Must be >= 0',
    ]);
  });

  it('answers 401 AUTHENTICATION (flat) without a key', async () => {
    for (const [method, url] of [
      ['GET', '/api/mica/wallet-screening?wallet_address=x&blockchain=bitcoin'],
      ['POST', '/api/mica/wallet-screening'],
      ['GET', '/api/mica/circuit-breaker/status'],
    ] as const) {
      const res = await t.app.inject({ method, url, payload: method === 'POST' ? {} : undefined });
      assert.equal(res.statusCode, 401, url);
      const body = res.json() as FlatBody;
      assert.equal(body.type, 'AUTHENTICATION');
      assert.equal(body.statusCode, 401);
    }
  });

  it('validates the address of a wallet_screen event on /evaluate too (nested format)', async () => {
    const client = (await t.deps.keys.authenticate(auth.authorization!.slice(7), 'live'))!.clientId;
    const send = (wallet_address: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/mica/evaluate',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: JSON.stringify({
          client_id: client,
          trigger_type: 'wallet_screen',
          data: { wallet_address, blockchain: 'bitcoin', wallet_risk_score: 80 },
        }),
      });
    const bad = await send('1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qj');
    assert.equal(bad.statusCode, 400);
    const e = bad.json().error;
    assert.equal(e.code, 'INVALID_REQUEST');
    assert.equal(e.details.field, 'data.wallet_address');
    assert.match(e.details.errors[0], /^data\.wallet_address: /);
    const good = await send('1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi');
    assert.equal(good.statusCode, 200, good.body);
    assert.equal(good.json().results.find((r: { rule_id: string }) => r.rule_id === 'MICA-WAL-003').triggered, true);
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
      const st = await t.app.inject({ method: 'GET', url: '/api/mica/circuit-breaker/status', headers: auth });
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
