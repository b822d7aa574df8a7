import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateEvent } from '../../../src/domain/rules/engine.ts';
import { DEFAULT_RULE_SETTINGS, resolveRuleSettings } from '../../../src/domain/rules/settings.ts';
import { NOT_BOOLEAN, NOT_NUMBER, NOT_STRING, NOW, runRule, triggers } from './helpers.ts';

describe('MICA-WAL-001 sanctions and MICA-WAL-002 darknet exposure', () => {
  it('WAL-001 triggers (block, critical, block_transaction + create_case) on sanctions exposure', () => {
    const r = runRule('MICA-WAL-001', { associated_sanctions: true });
    assert.deepEqual(
      [r.triggered, r.result, r.severity, r.actions_to_execute, r.conditions_met],
      [true, 'block', 'critical', ['block_transaction', 'create_case'], { associated_sanctions: true }],
    );
  });

  it('WAL-002 triggers (alert, high, generate_alert + create_case) on darknet exposure', () => {
    const r = runRule('MICA-WAL-002', { associated_darknet: true });
    assert.deepEqual(
      [r.triggered, r.result, r.severity, r.actions_to_execute, r.conditions_met],
      [true, 'alert', 'high', ['generate_alert', 'create_case'], { associated_darknet: true }],
    );
  });

  for (const [id, field] of [
    ['MICA-WAL-001', 'associated_sanctions'],
    ['MICA-WAL-002', 'associated_darknet'],
  ] as const) {
    it(`${id} cannot trigger on false, absent or wrong-typed ${field}`, () => {
      assert.equal(triggers(id, { [field]: false }), false);
      assert.deepEqual(runRule(id, {}).conditions_met, { [field]: false });
      for (const v of NOT_BOOLEAN) assert.equal(triggers(id, { [field]: v }), false);
    });
  }
});

describe('MICA-WAL-003 wallet risk score', () => {
  it('triggers (alert, high) at a score of 75 or more', () => {
    assert.equal(triggers('MICA-WAL-003', { wallet_risk_score: 74.99 }), false);
    const r = runRule('MICA-WAL-003', { wallet_risk_score: 75 });
    assert.deepEqual(
      [r.triggered, r.result, r.severity, r.actions_to_execute, r.conditions_met],
      [true, 'alert', 'high', ['generate_alert'], { risk_score_gte_75: true }],
    );
    assert.equal(triggers('MICA-WAL-003', { wallet_risk_score: 100 }), true);
  });

  it('triggers on a high or critical level whatever the score', () => {
    assert.equal(triggers('MICA-WAL-003', { wallet_risk_level: 'high' }), true);
    assert.equal(triggers('MICA-WAL-003', { wallet_risk_level: 'critical', wallet_risk_score: 10 }), true);
    assert.equal(triggers('MICA-WAL-003', { wallet_risk_level: 'medium', wallet_risk_score: 50 }), false);
    assert.equal(triggers('MICA-WAL-003', { wallet_risk_level: 'low' }), false);
  });

  it('cannot trigger on absent or wrong-typed score and level', () => {
    assert.equal(triggers('MICA-WAL-003', {}), false);
    for (const v of NOT_NUMBER) assert.equal(triggers('MICA-WAL-003', { wallet_risk_score: v }), false);
    for (const v of NOT_STRING) assert.equal(triggers('MICA-WAL-003', { wallet_risk_level: v }), false);
    assert.equal(triggers('MICA-WAL-003', { wallet_risk_score: '90' }), false);
  });

  it('follows a per-client score threshold', () => {
    const settings = resolveRuleSettings({ thresholds: { wallet_risk_score: 50 } });
    assert.equal(triggers('MICA-WAL-003', { wallet_risk_score: 50 }, { settings }), true);
    assert.equal(triggers('MICA-WAL-003', { wallet_risk_score: 49 }, { settings }), false);
  });
});

describe('MICA-WAL-004 self-hosted wallet ownership', () => {
  it('triggers (fail, medium) for a self-hosted wallet without ownership proof', () => {
    const r = runRule('MICA-WAL-004', { self_hosted_wallet: true });
    assert.deepEqual(
      [r.triggered, r.result, r.severity, r.actions_to_execute, r.conditions_met],
      [
        true,
        'fail',
        'medium',
        ['request_ownership_proof'],
        { self_hosted_wallet: true, ownership_verified: false },
      ],
    );
    assert.equal(triggers('MICA-WAL-004', { self_hosted_wallet: true, ownership_verified: true }), false);
    for (const v of NOT_BOOLEAN) {
      assert.equal(triggers('MICA-WAL-004', { self_hosted_wallet: true, ownership_verified: v }), true);
    }
  });

  it('cannot trigger unless self_hosted_wallet is true', () => {
    assert.equal(triggers('MICA-WAL-004', {}), false);
    assert.equal(triggers('MICA-WAL-004', { self_hosted_wallet: false }), false);
    for (const v of NOT_BOOLEAN) assert.equal(triggers('MICA-WAL-004', { self_hosted_wallet: v }), false);
  });
});

describe('MICA-WAL-005 sanctions name match', () => {
  it('triggers (alert, high) at a name match score of 0.92 or more', () => {
    assert.equal(triggers('MICA-WAL-005', { name_match_score: 0.9199 }), false);
    const r = runRule('MICA-WAL-005', { name_match_score: 0.92 });
    assert.deepEqual(
      [r.triggered, r.result, r.severity, r.actions_to_execute, r.conditions_met],
      [true, 'alert', 'high', ['generate_alert'], { name_match_score_gte_0_92: true }],
    );
    assert.equal(triggers('MICA-WAL-005', { name_match_score: 1 }), true);
  });

  it('cannot trigger without a numeric score', () => {
    assert.equal(triggers('MICA-WAL-005', {}), false);
    for (const v of NOT_NUMBER) assert.equal(triggers('MICA-WAL-005', { name_match_score: v }), false);
  });

  it('keeps its condition name under a per-client threshold', () => {
    const settings = resolveRuleSettings({ thresholds: { name_match_score: 0.85 } });
    assert.deepEqual(runRule('MICA-WAL-005', { name_match_score: 0.86 }, { settings }).conditions_met, {
      name_match_score_gte_0_92: true,
    });
  });
});

describe('MICA-TR-001 travel rule data completeness', () => {
  it('triggers (block, high) on partial or missing data', () => {
    for (const c of ['partial', 'missing']) {
      const r = runRule('MICA-TR-001', { data_completeness: c });
      assert.deepEqual(
        [r.triggered, r.result, r.severity, r.actions_to_execute, r.conditions_met],
        [true, 'block', 'high', ['block_transaction', 'request_travel_rule_data'], { data_complete: false }],
      );
    }
  });

  it('passes on complete data', () => {
    const r = runRule('MICA-TR-001', { data_completeness: 'complete' });
    assert.equal(r.triggered, false);
    assert.deepEqual(r.conditions_met, { data_complete: true });
  });

  it('cannot trigger on an absent, unknown or wrong-typed value, and records the data as complete then', () => {
    assert.equal(triggers('MICA-TR-001', {}), false);
    // conditions_met records the value used (CONTRACT §2): not "incomplete" for a rule that passed.
    assert.deepEqual(runRule('MICA-TR-001', {}).conditions_met, { data_complete: true });
    assert.deepEqual(runRule('MICA-TR-001', { data_completeness: 'unknown' }).conditions_met, {
      data_complete: true,
    });
    assert.equal(triggers('MICA-TR-001', { data_completeness: 'PARTIAL' }), false);
    for (const v of NOT_STRING) assert.equal(triggers('MICA-TR-001', { data_completeness: v }), false);
  });
});

describe('travel_rule context', () => {
  it('evaluates CDD-003, RPT-004 and TR-001 on a transfer', () => {
    const out = evaluateEvent({
      triggerType: 'travel_rule',
      data: {
        transfer_id: 't-1',
        direction: 'outbound',
        amount_eur: 12000,
        amount_crypto: 0.2,
        transfer_type: 'external',
        data_completeness: 'partial',
        self_hosted_wallet: true,
      },
      settings: DEFAULT_RULE_SETTINGS,
      env: { now: NOW },
    });
    assert.deepEqual(
      out.results.map((r) => [r.rule_id, r.triggered]),
      [
        ['MICA-CDD-003', true],
        ['MICA-RPT-004', true],
        ['MICA-TR-001', true],
      ],
    );
    assert.deepEqual(out.actions_required, [
      'block_transaction',
      'request_ownership_proof',
      'create_case',
      'request_travel_rule_data',
    ]);
    assert.equal(out.should_block, true);
    assert.equal(out.should_alert, true);
    assert.equal(out.should_create_case, true);
    assert.equal(out.highest_severity, 'high');
    assert.equal(out.high_risk_list_date, null);
  });
});
