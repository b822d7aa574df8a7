import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listCatalogue } from '../../src/domain/rules/catalogue.ts';
import { DEFAULT_RULE_SETTINGS } from '../../src/domain/rules/settings.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

const RESPONSE_FIELDS = [
  'rules_evaluated',
  'rules_triggered',
  'evaluation_id',
  'timestamp',
  'results',
  'highest_severity',
  'actions_required',
  'should_block',
  'should_alert',
  'should_create_case',
];
const RESULT_FIELDS = [
  'rule_id',
  'rule_name',
  'triggered',
  'result',
  'conditions_met',
  'actions_to_execute',
  'severity',
];

describe('POST /api/mica/evaluate', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  before(async () => {
    t = await startTestApp();
    ({ auth } = await clientWithKey(t, 'acme'));
  });
  after(() => t.close());

  const evaluate = (payload: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/mica/evaluate', headers: auth, payload: payload as object });

  it('answers a transaction with exactly the spec fields and the CDD-002 block', async () => {
    const res = await evaluate({
      client_id: 'acme',
      trigger_type: 'transaction',
      trigger_entity_type: 'transaction',
      trigger_entity_id: 'tx-1',
      data: { customer_id: 'c-1', customer_verified: true, amount_eur: 1500, full_cdd_complete: false },
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), RESPONSE_FIELDS);
    for (const r of body.results) assert.deepEqual(Object.keys(r), RESULT_FIELDS);
    assert.equal(body.rules_evaluated, 8);
    assert.equal(body.rules_triggered, 1);
    const cdd2 = body.results.find((r: { rule_id: string }) => r.rule_id === 'MICA-CDD-002');
    assert.deepEqual(cdd2, {
      rule_id: 'MICA-CDD-002',
      rule_name: 'Full CDD Threshold',
      triggered: true,
      result: 'block',
      conditions_met: {
        amount_eur_gte_1000: true,
        cumulative_amount_eur_gte_1000: true,
        full_cdd_complete: false,
      },
      actions_to_execute: ['block_transaction', 'create_case'],
      severity: 'high',
    });
    assert.equal(body.should_block, true);
    assert.equal(body.should_create_case, true);
    assert.equal(body.should_alert, false);
    assert.equal(body.highest_severity, 'high');
    assert.deepEqual(body.actions_required, ['block_transaction', 'create_case']);
    assert.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('writes one audit row per evaluated rule, with every column the spec names', async () => {
    const res = await evaluate({
      client_id: 'acme',
      trigger_type: 'transaction',
      trigger_entity_id: 'tx-audit',
      data: {
        customer_id: 'c-audit',
        customer_verified: false,
        amount_eur: 12000,
        suspicious_activity_detected: true,
      },
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    const rows = await t.deps.db
      .selectFrom('mica_rule_evaluations')
      .selectAll()
      .where('evaluation_id', '=', body.evaluation_id)
      .orderBy('rule_position')
      .execute();
    assert.equal(rows.length, body.rules_evaluated);
    assert.deepEqual(
      rows.map((r) => r.rule_id),
      body.results.map((r: { rule_id: string }) => r.rule_id),
    );
    for (const [i, row] of rows.entries()) {
      const result = body.results[i];
      assert.equal(row.client_id, 'acme');
      assert.equal(row.result, result.result);
      assert.equal(row.severity, result.severity);
      assert.equal(row.trigger_type, 'transaction');
      assert.equal(row.trigger_entity_type, 'transaction');
      assert.equal(row.trigger_entity_id, 'tx-audit');
      assert.equal(row.customer_id, 'c-audit');
      assert.equal(new Date(row.evaluated_at).toISOString(), body.timestamp);
      assert.equal(row.transaction_blocked, true);
      assert.equal(row.alert_generated, true);
      assert.deepEqual(row.conditions_met, result.conditions_met);
      assert.deepEqual(row.conditions_evaluated, Object.keys(result.conditions_met));
      assert.deepEqual(row.actions_executed, result.actions_to_execute);
      assert.match(row.evaluator_id, /^key:key_/);
      assert.match(row.rule_set_version, /^mica-\d{4}\.\d+\.\d+\+[0-9a-f]{12}$/);
    }
    const stored = await t.deps.db
      .selectFrom('evaluations')
      .select(['request', 'response'])
      .where('evaluation_id', '=', body.evaluation_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored.response, body);
    assert.equal((stored.request as { trigger_entity_id: string }).trigger_entity_id, 'tx-audit');
  });

  it('filters the audit view by rule, customer and transaction', async () => {
    const byCustomer = await t.deps.db
      .selectFrom('mica_rule_evaluations')
      .select(['rule_id', 'trigger_entity_id'])
      .where('client_id', '=', 'acme')
      .where('customer_id', '=', 'c-audit')
      .where('rule_id', '=', 'MICA-RPT-004')
      .execute();
    assert.deepEqual(byCustomer, [{ rule_id: 'MICA-RPT-004', trigger_entity_id: 'tx-audit' }]);
  });

  it('counts the rolling 30-day sum of the customer, replacing a re-evaluated transaction', async () => {
    const tx = (id: string, amount: number, full = false) =>
      evaluate({
        client_id: 'acme',
        trigger_type: 'transaction',
        trigger_entity_id: id,
        data: {
          customer_id: 'c-window',
          customer_verified: true,
          amount_eur: amount,
          full_cdd_complete: full,
        },
      }).then((r) => r.json());
    const cdd2 = (b: { results: Array<{ rule_id: string; triggered: boolean; conditions_met: object }> }) =>
      b.results.find((r) => r.rule_id === 'MICA-CDD-002')!;
    assert.equal(cdd2(await tx('w-1', 600)).triggered, false);
    // Re-evaluating w-1 replaces its amount: 600 is not counted twice.
    assert.equal(cdd2(await tx('w-1', 600)).triggered, false);
    const third = cdd2(await tx('w-2', 500));
    assert.equal(third.triggered, true);
    assert.deepEqual(third.conditions_met, {
      amount_eur_gte_1000: false,
      cumulative_amount_eur_gte_1000: true,
      full_cdd_complete: false,
    });
    // A blocked transaction does not count: w-2 was blocked, so w-3's window holds w-1 only.
    assert.equal(cdd2(await tx('w-3', 300)).triggered, false);
  });

  it('a re-evaluation without its amount or customer takes the latest decision for the amount counted', async () => {
    const tx = (id: string, data: Record<string, unknown>) =>
      evaluate({
        client_id: 'acme',
        trigger_type: 'transaction',
        trigger_entity_id: id,
        data: { full_cdd_complete: false, ...data },
      }).then((r) => r.json());
    const cdd2 = (b: { results: Array<{ rule_id: string; triggered: boolean }> }) =>
      b.results.find((r) => r.rule_id === 'MICA-CDD-002')!.triggered;
    // Allowed with 900, then blocked on re-evaluation without its amount: the 900 never moved.
    assert.equal(
      (await tx('r-1', { customer_id: 'c-re1', customer_verified: true, amount_eur: 900 })).should_block,
      false,
    );
    assert.equal((await tx('r-1', { customer_id: 'c-re1', customer_verified: false })).should_block, true);
    assert.equal(
      cdd2(await tx('r-2', { customer_id: 'c-re1', customer_verified: true, amount_eur: 100 })),
      false,
    );
    // Blocked with 900, then allowed on re-evaluation without its amount (nor its customer): it counts.
    assert.equal(
      (await tx('r-3', { customer_id: 'c-re2', customer_verified: false, amount_eur: 900 })).should_block,
      true,
    );
    assert.equal((await tx('r-3', { customer_verified: true })).should_block, false);
    assert.equal(
      cdd2(await tx('r-4', { customer_id: 'c-re2', customer_verified: true, amount_eur: 100 })),
      true,
    );
    // An id never evaluated with an amount adds nothing.
    await tx('r-5', { customer_id: 'c-re3', customer_verified: true });
    assert.equal(
      cdd2(await tx('r-6', { customer_id: 'c-re3', customer_verified: true, amount_eur: 999 })),
      false,
    );
  });

  it("a manual check of MICA-CDD-002 counts the customer's rolling sum and adds nothing to it", async () => {
    const tx = (id: string, amount: number) =>
      evaluate({
        client_id: 'acme',
        trigger_type: 'transaction',
        trigger_entity_id: id,
        data: { customer_id: 'c-manual', customer_verified: true, amount_eur: amount },
      }).then((r) => r.json());
    const manual = (data: Record<string, unknown>) =>
      evaluate({
        client_id: 'acme',
        trigger_type: 'manual',
        data: { customer_id: 'c-manual', ...data },
      }).then((r) => r.json());
    const cdd2 = (b: { results: Array<{ rule_id: string; triggered: boolean; conditions_met: object }> }) =>
      b.results.find((r) => r.rule_id === 'MICA-CDD-002')!;
    assert.equal(cdd2(await tx('m-1', 600)).triggered, false);
    const named = cdd2(await manual({ rule_ids: ['MICA-CDD-002'], amount_eur: 600 }));
    assert.equal(named.triggered, true, '600 + 600 reaches 1,000');
    assert.deepEqual(named.conditions_met, {
      amount_eur_gte_1000: false,
      cumulative_amount_eur_gte_1000: true,
      full_cdd_complete: false,
    });
    assert.equal(cdd2(await manual({ amount_eur: 600 })).triggered, true, 'every rule: CDD-002 among them');
    // The manual checks moved no money: the customer's next transaction of 300 still passes.
    assert.equal(cdd2(await tx('m-2', 300)).triggered, false);
    // Re-checking a transaction by its id replaces its amount, as a re-evaluation would.
    const recheck = await evaluate({
      client_id: 'acme',
      trigger_type: 'manual',
      trigger_entity_id: 'm-1',
      data: { customer_id: 'c-manual', rule_ids: ['MICA-CDD-002'], amount_eur: 600 },
    }).then((r) => r.json());
    assert.equal(cdd2(recheck).triggered, false, 'm-2 (300) + m-1 re-checked (600) = 900, not 1,500');
  });

  it('catches an amount split into transfers sent all at once (each sees the ones before it)', async () => {
    const sent = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        evaluate({
          client_id: 'acme',
          trigger_type: 'transaction',
          trigger_entity_id: `split-${i}`,
          data: {
            customer_id: 'c-split',
            customer_verified: true,
            amount_eur: 200,
            full_cdd_complete: false,
          },
        }).then((r) => r.json()),
      ),
    );
    const triggered = sent.filter(
      (b: { results: Array<{ rule_id: string; triggered: boolean }> }) =>
        b.results.find((r) => r.rule_id === 'MICA-CDD-002')!.triggered,
    );
    // 200, 400, 600 and 800 pass; every later one would reach 1,000 (the blocked ones do not count).
    assert.equal(triggered.length, 6);
  });

  it('evaluates every trigger type', async () => {
    const cases: Array<[string, Record<string, unknown>, number]> = [
      [
        'wallet_screen',
        {
          wallet_address: '0x8589427373D6D84E98730D7795D8f6f8731FDA16',
          blockchain: 'ethereum',
          associated_sanctions: true,
        },
        5,
      ],
      [
        'travel_rule',
        {
          transfer_id: 't-1',
          direction: 'outbound',
          amount_eur: 2000,
          amount_crypto: 0.1,
          transfer_type: 'external',
          data_completeness: 'partial',
          self_hosted_wallet: true,
        },
        3,
      ],
      [
        'periodic',
        { compliance_officer_board_access_documented: true, third_party_oversight_active: true },
        6,
      ],
      ['manual', { rule_ids: ['MICA-CDD-001', 'MICA-GOV-004'], days_since_last_training: 400 }, 2],
    ];
    for (const [trigger_type, data, count] of cases) {
      const res = await evaluate({
        client_id: 'acme',
        trigger_type,
        trigger_entity_id: `e-${trigger_type}`,
        data,
      });
      assert.equal(res.statusCode, 200, `${trigger_type}: ${res.body}`);
      assert.equal(res.json().rules_evaluated, count, trigger_type);
    }
    const wallet = await evaluate({
      client_id: 'acme',
      trigger_type: 'wallet_screen',
      data: {
        wallet_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
        blockchain: 'bitcoin',
        associated_sanctions: true,
      },
    });
    assert.equal(wallet.json().should_block, true);
    const manual = await evaluate({ client_id: 'acme', trigger_type: 'manual', data: {} });
    assert.equal(manual.json().rules_evaluated, 20);
  });

  it('without trigger_entity_id, the audit names the transfer or wallet by its own id in data (spec)', async () => {
    const transfer = await evaluate({
      client_id: 'acme',
      trigger_type: 'travel_rule',
      data: {
        transfer_id: 't-no-entity-id',
        direction: 'outbound',
        amount_eur: 50,
        amount_crypto: 0.001,
        transfer_type: 'external',
        data_completeness: 'complete',
        self_hosted_wallet: false,
      },
    });
    assert.equal(transfer.statusCode, 200, transfer.body);
    const address = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    const wallet = await evaluate({
      client_id: 'acme',
      trigger_type: 'wallet_screen',
      data: { wallet_address: address, blockchain: 'bitcoin' },
    });
    assert.equal(wallet.statusCode, 200, wallet.body);
    for (const [res, id, type] of [
      [transfer, 't-no-entity-id', 'transfer'],
      [wallet, address, 'wallet'],
    ] as const) {
      const rows = await t.deps.db
        .selectFrom('mica_rule_evaluations')
        .select(['trigger_entity_id', 'trigger_entity_type'])
        .distinct()
        .where('evaluation_id', '=', res.json().evaluation_id)
        .execute();
      assert.deepEqual(rows, [{ trigger_entity_id: id, trigger_entity_type: type }]);
    }
  });

  it('returns a stored evaluation by id, as it was returned, and 404 for another client', async () => {
    const first = (
      await evaluate({ client_id: 'acme', trigger_type: 'periodic', data: { days_since_last_review: 400 } })
    ).json();
    const got = await t.app.inject({
      method: 'GET',
      url: `/api/mica/evaluations/${first.evaluation_id}`,
      headers: auth,
    });
    assert.equal(got.statusCode, 200);
    assert.deepEqual(got.json(), first);

    const other = await clientWithKey(t, 'other-co');
    const foreign = await t.app.inject({
      method: 'GET',
      url: `/api/mica/evaluations/${first.evaluation_id}`,
      headers: other.auth,
    });
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/api/mica/evaluations/00000000-0000-4000-8000-000000000000',
      headers: other.auth,
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(foreign.json().error.code, unknown.json().error.code);
    const notUuid = await t.app.inject({ method: 'GET', url: '/api/mica/evaluations/xyz', headers: auth });
    assert.equal(notUuid.statusCode, 404);
  });

  it('lists the catalogue as the client has it configured', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/mica/rules', headers: auth });
    assert.equal(res.statusCode, 200);
    // A list as every list of CONTRACT §9: {items, next_cursor}; the catalogue is one page.
    const { items: rules, next_cursor } = res.json();
    assert.equal(next_cursor, null);
    assert.equal(rules.length, 20);
    assert.ok(rules.every((r: Record<string, unknown>) => r.id && r.name && r.article && r.severity));
    assert.ok(!rules.some((r: { id: string }) => r.id === 'MICA-RPT-003'));
    // The documented response schema serialises the catalogue whole: nothing dropped or altered.
    assert.deepEqual(rules, JSON.parse(JSON.stringify(listCatalogue(DEFAULT_RULE_SETTINGS))));
  });

  it('applies per-client settings: thresholds, disabled rules, high-risk list', async () => {
    const custom = await clientWithKey(t, 'strict-co', {
      settings: {
        thresholds: { cdd_amount_eur: 500 },
        disabled_rules: ['MICA-CDD-005'],
        high_risk_countries: { source: 'EU Annex (client)', date: '2026-01-01', codes: ['DE'] },
      },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: custom.auth,
      payload: {
        client_id: 'strict-co',
        trigger_type: 'transaction',
        data: { customer_verified: true, amount_eur: 600, customer_country: 'de' },
      },
    });
    const body = res.json();
    assert.equal(body.rules_evaluated, 7);
    const ids = body.results
      .filter((r: { triggered: boolean }) => r.triggered)
      .map((r: { rule_id: string }) => r.rule_id);
    assert.deepEqual(ids, ['MICA-CDD-002', 'MICA-CDD-006']);
    const row = await t.deps.db
      .selectFrom('evaluations')
      .select(['high_risk_list_date', 'rule_set_version'])
      .where('evaluation_id', '=', body.evaluation_id)
      .executeTakeFirstOrThrow();
    assert.equal(row.high_risk_list_date, '2026-01-01');
  });

  it('refuses a request whose rules are all disabled: no answer without a row in the audit view', async () => {
    const quiet = await clientWithKey(t, 'quiet-co', {
      settings: {
        disabled_rules: [
          'MICA-CDD-005',
          'MICA-GOV-001',
          'MICA-GOV-002',
          'MICA-GOV-003',
          'MICA-GOV-004',
          'MICA-RPT-002',
          'MICA-CDD-007',
        ],
      },
    });
    const post = (body: object) =>
      t.app.inject({
        method: 'POST',
        url: '/api/mica/evaluate',
        headers: quiet.auth,
        payload: { client_id: 'quiet-co', ...body },
      });
    const named = await post({
      trigger_type: 'manual',
      data: { rule_ids: ['MICA-CDD-005', 'MICA-CDD-001'] },
    });
    assert.equal(named.statusCode, 400, named.body);
    assert.equal(named.json().error.details.field, 'data.rule_ids');
    assert.match(named.json().error.details.reason, /^MICA-CDD-005 is disabled in this client's settings/);
    const periodic = await post({ trigger_type: 'periodic', data: { days_since_last_review: 400 } });
    assert.equal(periodic.statusCode, 400, periodic.body);
    assert.equal(periodic.json().error.details.field, 'trigger_type');
    assert.match(periodic.json().error.details.reason, /Every rule of the periodic context is disabled/);
    // Neither left an evaluation; a context with a rule left is evaluated on it.
    const stored = await t.deps.db
      .selectFrom('evaluations')
      .select('evaluation_id')
      .where('client_id', '=', 'quiet-co')
      .execute();
    assert.equal(stored.length, 0);
    // Listed with the request's other problems, all at once.
    const both = await post({
      trigger_type: 'manual',
      data: { rule_ids: ['MICA-CDD-005'], wallet_address: '0x123', blockchain: 'ethereum' },
    });
    assert.equal(both.statusCode, 400, both.body);
    assert.deepEqual(
      both.json().error.details.errors.map((e: string) => e.slice(0, e.indexOf(':'))),
      ['data.wallet_address', 'data.rule_ids'],
    );
    const some = await post({ trigger_type: 'manual', data: { rule_ids: ['MICA-CDD-001'] } });
    assert.equal(some.statusCode, 200, some.body);
    assert.equal(some.json().rules_evaluated, 1);
  });
});
