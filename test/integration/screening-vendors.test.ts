import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { base58 } from '@scure/base';
import { pino } from 'pino';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import {
  breakerStatus,
  expectVendorError,
  type FakeVendor,
  freshEvm,
  screenOk,
  startFakeVendor,
  startVendorApp,
  type VendorApp,
} from '../helpers/fake-vendors.ts';
import { clientWithKey, freshDatabase, TEST_DATABASE_URL, TEST_REDIS_URL } from '../helpers/harness.ts';
import { fixturePath, type Screening, screenGet, screenPost, uniqueClient } from '../helpers/screening.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const fixture = (name: string) => JSON.parse(readFileSync(fixturePath(`vendors/${name}`), 'utf8'));

describe('wallet screening through the three vendors: mapping and cache', () => {
  let v: VendorApp;
  let t: VendorApp['t'];
  let a: FakeVendor;
  let b: FakeVendor;
  let c: FakeVendor;
  let auth: Record<string, string>;
  let admin: Record<string, string>;
  before(async () => {
    v = await startVendorApp({ VENDOR_TIMEOUT_MS: '1500', BREAKER_RECOVERY_MS: '1000' });
    ({ t, a, b, c, auth } = v);
    ({ admin } = v);
  });
  after(() => v.close());
  beforeEach(() => v.reset());

  const calls = () => v.calls();
  const ok = (address: string, chain = 'ethereum') => screenOk(t, auth, address, chain);

  const status = () => breakerStatus(v);

  const vendorError = (address: string, vendor: string, state: string) =>
    expectVendorError(t, auth, address, vendor, state, 1);

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

  it('a small sanctioned exposure blocks, and the category says critical with it', async () => {
    const address = freshEvm();
    c.answers.set(address, {
      risk_score: 1,
      evaluation_detail: {
        source: [
          {
            rule_name: 'exposure',
            risk_score: 1,
            matched_elements: [{ category: 'Sanctions', contribution_percentage: 5 }],
          },
        ],
      },
    });
    const s = await ok(address);
    assert.equal(s.risk_profile.risk_score, 10);
    assert.equal(s.risk_profile.sanctioned_exposure, 0.05);
    assert.equal(s.risk_profile.risk_category, 'critical');
    assert.equal(s.rule_evaluation.should_block, true);
  });

  it('a trace of sanctioned or darknet exposure (under 5·10⁻⁷) is not rounded away: it still blocks', async () => {
    const address = freshEvm();
    // vendor_b reports exposure as volume: $1 to a sanctioned counterparty among $20,000,000.
    b.answers.set(address, [
      {
        address,
        chain: 'ethereum',
        addressRiskIndicators: [
          { category: 'Sanctions', categoryRiskScoreLevel: 5, riskType: 'COUNTERPARTY', totalVolumeUsd: '1' },
          { category: 'Darknet', categoryRiskScoreLevel: 5, riskType: 'COUNTERPARTY', totalVolumeUsd: '1' },
          {
            category: 'Exchange',
            categoryRiskScoreLevel: 1,
            riskType: 'COUNTERPARTY',
            totalVolumeUsd: '20000000',
          },
        ],
        entities: [],
      },
    ]);
    const s = await ok(address);
    assert.equal(s.risk_profile.risk_category, 'critical');
    assert.equal(s.risk_profile.sanctioned_exposure, 0.000001);
    assert.equal(s.risk_profile.darknet_exposure, 0.000001);
    assert.equal(s.rule_evaluation.should_block, true);
    const triggered = s.rule_evaluation.triggered_rules.map((r: { rule_id: string }) => r.rule_id);
    assert.ok(triggered.includes('MICA-WAL-001') && triggered.includes('MICA-WAL-002'), triggered.join());
  });

  it('an answer lacking a field the mapping needs is a failed call naming the field, never "clean"', async () => {
    // The review's answers, each read as ALLOW before: a 503 VENDOR now, counted by the breaker.
    const cases: Array<[FakeVendor, string, (address: string) => unknown, string]> = [
      [
        a,
        'vendor_a',
        () => ({
          identifications: [{ name: 'Lazarus Group', description: 'OFAC SDN designated', url: 'https://x' }],
        }),
        'identifications[0].category',
      ],
      [
        b,
        'vendor_b',
        (address) => [
          {
            address,
            chain: 'ethereum',
            addressRiskIndicators: [
              {
                category: 'Sanctions',
                categoryRiskScoreLevelLabel: 'Severe',
                riskType: 'COUNTERPARTY',
                totalVolumeUsd: '10',
              },
            ],
            entities: [],
          },
        ],
        'addressRiskIndicators[0].categoryRiskScoreLevel',
      ],
      [
        b,
        'vendor_b',
        (address) => [
          {
            address,
            chain: 'ethereum',
            addressRiskIndicators: [
              {
                category: 'Sanctions',
                categoryRiskScoreLevel: 15,
                riskType: 'COUNTERPARTY',
                totalVolumeUsd: 'n/a',
              },
            ],
            entities: [],
          },
        ],
        'addressRiskIndicators[0].totalVolumeUsd',
      ],
      [
        c,
        'vendor_c',
        () => ({
          risk_score: null,
          evaluation_detail: { source: [{ matched_elements: [{ category: 'Sanctions' }] }] },
        }),
        'evaluation_detail.source[0].matched_elements[0].contribution_percentage',
      ],
      [c, 'vendor_c', () => ({ risk_score: -3, evaluation_detail: { source: [] } }), 'risk_score'],
    ];
    for (const [vendor, name, answer, field] of cases) {
      const address = freshEvm();
      vendor.answers.set(address, answer(address));
      const failuresBefore = (await status())[name]!.failures;
      const body = await vendorError(address, name, 'CLOSED');
      // The message (also logged with the 503) says which field could not be read, and what was
      // expected, but not the vendor's value (that goes to the server log only).
      assert.ok(body.error.includes(`${field}: expected `), body.error);
      assert.ok(!/Lazarus|n\/a|-3\b/.test(JSON.stringify(body)), JSON.stringify(body));
      assert.equal((await status())[name]!.failures, failuresBefore + 1, `${name} counts the failure`);
      vendor.answers.delete(address);
      // Nothing was cached: the vendor's readable answer is asked for and taken.
      assert.deepEqual((await ok(address)).rule_evaluation.actions, ['ALLOW']);
    }
  });

  it("a float's rounding past a bound is the bound, not a failure; clearly out of range still fails", async () => {
    const address = freshEvm();
    c.answers.set(address, {
      risk_score: 10.000001,
      evaluation_detail: {
        source: [
          {
            rule_name: 'r',
            matched_elements: [{ category: 'Sanctions', contribution_percentage: 100.00000000000001 }],
          },
        ],
        destination: [
          { rule_name: 'r', matched_elements: [{ category: 'Darknet', contribution_percentage: -1e-7 }] },
        ],
      },
    });
    const failures = (await status()).vendor_c!.failures;
    const s = await ok(address);
    assert.equal(s.risk_profile.risk_score, 100);
    assert.equal(s.risk_profile.sanctioned_exposure, 1);
    assert.equal(s.risk_profile.darknet_exposure, 0);
    assert.equal(s.rule_evaluation.should_block, true);
    assert.equal((await status()).vendor_c!.failures, failures, 'not counted as a failure');
    const bad = freshEvm();
    c.answers.set(bad, { risk_score: 12, evaluation_detail: { source: [] } });
    const body = await vendorError(bad, 'vendor_c', 'CLOSED');
    assert.match(body.error, /risk_score: expected a number from 0 to 10, got a number out of range/);
  });

  it('optional parts sent as null, or left out, read as absent', async () => {
    // vendor_c "no data": no score, no detail (left out, or null); destination and cluster_entities null.
    const cAnswers: unknown[] = [
      { risk_score: null },
      { risk_score: null, evaluation_detail: null },
      { risk_score: null, evaluation_detail: { source: [], destination: null }, cluster_entities: null },
    ];
    for (const answer of cAnswers) {
      const address = freshEvm();
      c.answers.set(address, answer);
      const s = await ok(address);
      assert.deepEqual(s.rule_evaluation.actions, ['ALLOW'], JSON.stringify(answer));
    }
    // A score without its detail: the score counts, nothing itemised (no exposure).
    const scored = freshEvm();
    c.answers.set(scored, { risk_score: 8 });
    const s = await ok(scored);
    assert.equal(s.risk_profile.risk_score, 80);
    assert.equal(s.risk_profile.sanctioned_exposure, 0);
    assert.deepEqual(s.rule_evaluation.actions, ['REVIEW']);
    // vendor_b entities left out or null: none.
    for (const entities of [undefined, null]) {
      const address = freshEvm();
      b.answers.set(address, [
        {
          address,
          chain: 'ethereum',
          addressRiskIndicators: [
            { category: 'Darknet', categoryRiskScoreLevel: 10, riskType: 'COUNTERPARTY', totalVolumeUsd: 5 },
          ],
          ...(entities === undefined ? {} : { entities }),
        },
      ]);
      const r = await ok(address);
      assert.equal(r.risk_profile.darknet_exposure, 1, String(entities));
    }
    assert.equal((await status()).vendor_b!.failures, 0);
    assert.equal((await status()).vendor_c!.failures, 0);
  });

  it('vendor_b riskType in any case and volumes as any numeral text; an unknown riskType fails, saying so', async () => {
    const address = freshEvm();
    b.answers.set(address, [
      {
        address,
        chain: 'ethereum',
        addressRiskIndicators: [
          {
            category: 'Sanctions',
            categoryRiskScoreLevel: 15,
            riskType: 'ownership',
            totalVolumeUsd: '1e-7',
          },
          { category: 'Mixer', categoryRiskScoreLevel: 5, riskType: 'Counterparty', totalVolumeUsd: 3e-7 },
        ],
        entities: [],
      },
    ]);
    const s = await ok(address);
    assert.equal(s.risk_profile.sanctioned_exposure, 1);
    assert.equal(s.risk_profile.mixer_exposure, 0.75);
    assert.equal(s.rule_evaluation.actions[0], 'BLOCK');

    const unknown = freshEvm();
    b.answers.set(unknown, [
      {
        address: unknown,
        chain: 'ethereum',
        addressRiskIndicators: [
          { category: 'Sanctions', categoryRiskScoreLevel: 15, riskType: 'BENEFICIAL', totalVolumeUsd: '1' },
        ],
        entities: [],
      },
    ]);
    const body = await vendorError(unknown, 'vendor_b', 'CLOSED');
    assert.match(
      body.error,
      /riskType: expected OWNERSHIP or COUNTERPARTY in any case \(an unknown risk type is refused/,
    );
    assert.ok(!body.error.includes('BENEFICIAL'), body.error);
  });

  it('a vendor_b entity (who controls the address) counts: a sanctioned one blocks, its level scores', async () => {
    const address = freshEvm();
    b.answers.set(address, [
      {
        address,
        chain: 'ethereum',
        addressRiskIndicators: [],
        entities: [
          { entity: 'Garantex', category: 'sanctions', riskScoreLevel: 15, riskScoreLevelLabel: 'Severe' },
        ],
      },
    ]);
    const s = await ok(address);
    assert.equal(s.risk_profile.risk_score, 100);
    assert.equal(s.risk_profile.sanctioned_exposure, 1);
    assert.equal(s.risk_profile.risk_category, 'critical');
    assert.equal(s.rule_evaluation.actions[0], 'BLOCK');

    const mixer = freshEvm();
    b.answers.set(mixer, [
      {
        address: mixer,
        chain: 'ethereum',
        addressRiskIndicators: [],
        entities: [{ entity: 'Some Mixer', category: 'Mixing Service', riskScoreLevel: 10 }],
      },
    ]);
    const m = await ok(mixer);
    assert.equal(m.risk_profile.risk_score, 75);
    assert.equal(m.risk_profile.mixer_exposure, 1);
    assert.equal(m.risk_profile.sanctioned_exposure, 0);
  });

  it('a vendor_a 200 whose body is null is unreadable, not the "no data" of a 404', async () => {
    const address = freshEvm();
    a.answers.set(address, null);
    const body = await vendorError(address, 'vendor_a', 'CLOSED');
    assert.match(body.error, /identifications|answer/);
    a.answers.delete(address);
  });

  it('every vendor_b element for the address counts: a finding in a second one is not dropped', async () => {
    const address = freshEvm();
    const sanctioned = {
      address,
      chain: 'ethereum',
      addressRiskIndicators: [
        { category: 'Sanctions', categoryRiskScoreLevel: 15, riskType: 'OWNERSHIP', totalVolumeUsd: '1000' },
      ],
      entities: [],
    };
    b.answers.set(address, [
      { address, chain: 'bitcoin', addressRiskIndicators: [], entities: [] },
      sanctioned,
    ]);
    const s = await ok(address);
    assert.equal(s.risk_profile.sanctioned_exposure, 1);
    assert.equal(s.rule_evaluation.actions[0], 'BLOCK');
    // The same element twice, the finding second: still found.
    const repeated = freshEvm();
    b.answers.set(repeated, [
      { ...sanctioned, address: repeated, addressRiskIndicators: [] },
      { ...sanctioned, address: repeated },
    ]);
    assert.equal((await ok(repeated)).risk_profile.risk_category, 'critical');
  });

  it('a vendor_b answer about another address only is unreadable, never clean for this one', async () => {
    // A mix-up at the vendor or a proxy: the lone element names some other wallet.
    const address = freshEvm();
    b.answers.set(address, [
      { address: freshEvm(), chain: 'ethereum', addressRiskIndicators: [], entities: [] },
    ]);
    const body = await vendorError(address, 'vendor_b', 'CLOSED');
    assert.match(body.error, /no element for the address/);
    // Echoed in another case it is the same address (vendors normalise EVM addresses).
    const mixed = freshEvm();
    b.answers.set(mixed, [
      {
        address: mixed.toUpperCase().replace('0X', '0x'),
        chain: 'ethereum',
        addressRiskIndicators: [],
        entities: [],
      },
    ]);
    assert.deepEqual((await ok(mixed)).rule_evaluation.actions, ['ALLOW']);
    b.answers.delete(address);
    b.answers.delete(mixed);
    // Base58 letters differ by case: a Solana address echoed in another case is another address.
    const [sol, other] = solanaCasePair();
    b.answers.set(sol, [{ address: other, chain: 'solana', addressRiskIndicators: [], entities: [] }]);
    const res = await screenGet(t, auth, sol, 'solana');
    assert.equal(res.statusCode, 503, res.body);
    assert.equal((res.json() as { details: { vendor: string } }).details.vendor, 'vendor_b');
    b.answers.delete(sol);
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
    const id = String(first.headers['x-evaluation-id']);
    assert.match(id, UUID, 'the answer names its evaluation');
    const second = await screenGet(t, auth, address, 'polygon');
    assert.equal(second.body, first.body);
    assert.equal(calls(), 3, 'served from the cache');
    assert.equal(second.headers['x-evaluation-id'], id, 'a hit names the evaluation that produced it');
    // One entry serves every spelling of an EVM address, echoing the caller's.
    const upper = `0x${address.slice(2).toUpperCase()}`;
    const third = await screenGet(t, auth, upper, 'polygon');
    assert.equal((third.json() as Screening).risk_profile.wallet_address, upper);
    assert.equal(third.headers['x-evaluation-id'], id);
    assert.equal(calls(), 3);
    // The POST form without names shares the entry, and its evaluation.
    const posted = await screenPost(t, auth, { wallet_address: address, blockchain: 'polygon' });
    assert.equal(posted.headers['x-evaluation-id'], id);
    // Another chain is another entry, and another evaluation.
    const other = await screenGet(t, auth, address, 'ethereum');
    assert.equal(other.statusCode, 200, other.body);
    assert.match(String(other.headers['x-evaluation-id']), UUID);
    assert.notEqual(other.headers['x-evaluation-id'], id);
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
    const first = await screenPost(t, auth, body);
    assert.equal(first.statusCode, 200);
    const again = await screenPost(t, auth, body);
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['x-evaluation-id'], first.headers['x-evaluation-id']);
    assert.equal(calls(), 3);
    const named = await screenPost(t, auth, { ...body, originator_name: 'John Smith' });
    assert.equal(named.statusCode, 200, named.body);
    assert.equal(calls(), 6);
    // Its own evaluation, with the name in its audited data.
    const id = String(named.headers['x-evaluation-id']);
    assert.match(id, UUID);
    assert.notEqual(id, first.headers['x-evaluation-id']);
    const stored = await t.deps.db
      .selectFrom('evaluations')
      .select(['trigger_type', 'request'])
      .where('evaluation_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.trigger_type, 'wallet_screen');
    assert.equal(
      (stored.request as { data: { originator_name?: string } }).data.originator_name,
      'John Smith',
    );
  });

  it('X-Evaluation-Id finds the audited screening through GET /api/mica/evaluations/{id}, for its client only', async () => {
    const res = await screenGet(t, auth, freshEvm(), 'ethereum');
    assert.equal(res.statusCode, 200, res.body);
    const id = String(res.headers['x-evaluation-id']);
    assert.match(id, UUID);
    const record = await t.app.inject({ method: 'GET', url: `/api/mica/evaluations/${id}`, headers: auth });
    assert.equal(record.statusCode, 200, record.body);
    assert.equal(record.json().evaluation_id, id);
    assert.equal(record.json().rules_triggered, (res.json() as Screening).rule_evaluation.rules_triggered);
    const other = await clientWithKey(t, uniqueClient('vendors-other'));
    const foreign = await t.app.inject({
      method: 'GET',
      url: `/api/mica/evaluations/${id}`,
      headers: other.auth,
    });
    assert.equal(foreign.statusCode, 404, foreign.body);
    // A refused request screened nothing: no header.
    const refused = await screenGet(t, auth, '0x12', 'ethereum');
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.headers['x-evaluation-id'], undefined);
    // Documented on the 200s of both forms, and only there.
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const method of ['get', 'post']) {
      const responses = doc.paths['/api/mica/wallet-screening'][method].responses;
      assert.deepEqual(responses['200'].headers['X-Evaluation-Id'], {
        $ref: '#/components/headers/EvaluationId',
      });
      assert.equal(responses['400'].headers?.['X-Evaluation-Id'], undefined);
    }
  });

  it('a POST may state self-hosting and ownership (WAL-004, not cached); other fields are ignored', async () => {
    const address = freshEvm();
    const body = { wallet_address: address, blockchain: 'ethereum', client_id: 'someone-else', note: 'x' };
    const plain = await screenPost(t, auth, body);
    assert.equal(plain.statusCode, 200, plain.body);
    assert.deepEqual((plain.json() as Screening).rule_evaluation.actions, ['ALLOW']);
    const selfHosted = await screenPost(t, auth, { ...body, self_hosted_wallet: true });
    assert.equal(selfHosted.statusCode, 200, selfHosted.body);
    const r = (selfHosted.json() as Screening).rule_evaluation;
    assert.deepEqual(r.actions, ['REQUEST_INFO']);
    assert.deepEqual(
      r.triggered_rules.map((x) => x.rule_id),
      ['MICA-WAL-004'],
    );
    const proven = await screenPost(t, auth, { ...body, self_hosted_wallet: true, ownership_verified: true });
    assert.deepEqual((proven.json() as Screening).rule_evaluation.actions, ['ALLOW']);
    // The first answer was cached; the two with ownership facts were screened afresh.
    assert.equal(calls(), 9);
    const wrong = await screenPost(t, auth, { ...body, self_hosted_wallet: 'yes' });
    assert.equal(wrong.statusCode, 400, wrong.body);
    assert.deepEqual((wrong.json() as { details: { errors: string[] } }).details.errors, [
      'self_hosted_wallet: Expected boolean',
    ]);
  });

  it('the GET form screens the address only: a name (POST only) in its query is refused, not ignored', async () => {
    const address = freshEvm();
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/mica/wallet-screening?wallet_address=${address}&blockchain=ethereum&originator_name=Vladimir%20Putin&self_hosted_wallet=true`,
      headers: auth,
    });
    // Ignored, the answer would read as the name screened and cleared.
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual((res.json() as { details: { errors: string[] } }).details.errors, [
      "originator_name: Only in the POST form's body",
      "self_hosted_wallet: Only in the POST form's body",
    ]);
    assert.equal(calls(), 0, 'nothing was screened');
    // With a bad address too, both are listed.
    const both = await t.app.inject({
      method: 'GET',
      url: '/api/mica/wallet-screening?wallet_address=0x12&blockchain=ethereum&beneficiary_name=X',
      headers: auth,
    });
    assert.equal(both.statusCode, 400, both.body);
    const errors = (both.json() as { details: { errors: string[] } }).details.errors;
    assert.equal(errors.length, 2, both.body);
    assert.match(errors[0] ?? '', /^wallet_address: /);
    await ok(address);
    assert.equal(calls(), 3);
  });

  it('the same wallet asked eight times at once is screened once: one call per vendor, one evaluation', async () => {
    const address = freshEvm();
    a.delayMs = 30; // all eight arrive while the first screening waits for its vendors
    const spellings = [address, address.toUpperCase().replace('0X', '0x')];
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.app.inject({
          method: 'GET',
          url: `/api/mica/wallet-screening?wallet_address=${spellings[i % 2]}&blockchain=ethereum`,
          headers: auth,
        }),
      ),
    );
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      Array(8).fill(200),
    );
    // Each caller reads its own spelling of the address back.
    answers.forEach((r, i) => {
      assert.equal(r.json().risk_profile.wallet_address, spellings[i % 2]);
    });
    assert.equal(calls(), 3);
    const evaluations = await t.deps.db
      .selectFrom('evaluations')
      .select('evaluation_id')
      .where('trigger_type', '=', 'wallet_screen')
      .where((eb) => eb.fn('lower', ['trigger_entity_id']), '=', address)
      .execute();
    assert.equal(evaluations.length, 1);
    // Each caller, whichever spelling it sent, is named the one evaluation.
    assert.deepEqual(
      answers.map((r) => r.headers['x-evaluation-id']),
      Array(8).fill(evaluations[0]!.evaluation_id),
    );
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
});

describe("a vendor's value that cannot be read is logged, never answered", () => {
  it('the 503 names the field and the expectation; the log line has the value', async () => {
    const logs: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        cb();
      },
    });
    const logger = pino({ level: 'warn' }, sink);
    const vendor = await startFakeVendor('vendor_a');
    const config = loadConfig({
      MICA_DEMO_SEED: 'false',
      LOG_LEVEL: 'warn',
      AUTH_CACHE_MS: '0',
      VENDOR_A_URL: vendor.url,
      VENDOR_A_KEY: 'k',
      ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {}),
      ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
    });
    const deps = await createDeps(config, { database: await freshDatabase(), logger });
    const app = await buildApp(deps, { logger });
    await app.ready();
    const t = { app, deps, config, close: async () => {} };
    try {
      const { auth } = await clientWithKey(t, uniqueClient('vendor-log'));
      const address = freshEvm();
      const secret = 'Licensed-Intel: cluster 0xfeed, analyst note 7';
      vendor.answers.set(address, { identifications: [{ category: { label: secret } }] });
      const res = await screenGet(t, auth, address, 'ethereum');
      assert.equal(res.statusCode, 503, res.body);
      assert.ok(!res.body.includes('Licensed-Intel'), res.body);
      assert.match(
        res.json().error,
        /vendor_a: unreadable answer: identifications\[0\]\.category: expected a non-empty string, got an object/,
      );
      const line = logs.find((l) => l.msg === 'vendor call failed');
      assert.ok(line, JSON.stringify(logs));
      assert.equal(line.vendor, 'vendor_a');
      assert.equal(line.breaker_state, 'CLOSED');
      assert.match(String(line.reason), /identifications\[0\]\.category: expected a non-empty string/);
      assert.equal(line.received, JSON.stringify({ label: secret }));
    } finally {
      await app.close();
      await deps.close();
      await vendor.close();
    }
  });
});

/** Two valid Solana addresses (32 bytes each) that differ only in the case of one letter. */
function solanaCasePair(): [string, string] {
  for (;;) {
    const a = base58.encode(randomBytes(32));
    const i = [...a].findIndex(
      (ch) => /[a-km-zA-HJ-NP-Z]/.test(ch) && /[a-km-zA-HJ-NP-Z]/.test(swapCase(ch)),
    );
    if (i < 0) continue;
    const b = a.slice(0, i) + swapCase(a[i]!) + a.slice(i + 1);
    try {
      if (base58.decode(b).length === 32) return [a, b];
    } catch {
      /* another draw */
    }
  }
}

function swapCase(ch: string): string {
  return ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase();
}
