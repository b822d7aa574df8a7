import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateEvent } from '../../../src/domain/rules/engine.ts';
import { DEFAULT_RULE_SETTINGS } from '../../../src/domain/rules/settings.ts';
import { summarize } from '../../../src/domain/rules/summary.ts';
import type { RuleResult, RuleResultValue, Severity } from '../../../src/domain/rules/types.ts';
import { NOW } from './helpers.ts';

function result(
  rule_id: string,
  triggered: boolean,
  value: Exclude<RuleResultValue, 'pass'>,
  severity: Severity,
  actions: string[],
): RuleResult {
  return {
    rule_id,
    rule_name: rule_id,
    triggered,
    result: triggered ? value : 'pass',
    conditions_met: {},
    actions_to_execute: triggered ? actions : [],
    severity,
  };
}

describe('summarize', () => {
  it("matches the spec's example: one triggered block rule with block_transaction, create_case", () => {
    const r = result('MICA-CDD-002', true, 'block', 'high', ['block_transaction', 'create_case']);
    const s = summarize([r]);
    assert.deepEqual(s, {
      rules_evaluated: 1,
      rules_triggered: 1,
      results: [r],
      highest_severity: 'high',
      actions_required: ['block_transaction', 'create_case'],
      should_block: true,
      should_alert: false,
      should_create_case: true,
    });
  });

  it('reports nothing when no rule triggered', () => {
    const s = summarize([
      result('MICA-CDD-001', false, 'block', 'critical', ['block_transaction']),
      result('MICA-RPT-001', false, 'alert', 'critical', ['create_case']),
    ]);
    assert.equal(s.rules_evaluated, 2);
    assert.equal(s.rules_triggered, 0);
    assert.equal(s.highest_severity, null);
    assert.deepEqual(s.actions_required, []);
    assert.deepEqual([s.should_block, s.should_alert, s.should_create_case], [false, false, false]);
  });

  it('handles an empty result list', () => {
    const s = summarize([]);
    assert.deepEqual([s.rules_evaluated, s.rules_triggered, s.highest_severity], [0, 0, null]);
  });

  it('derives each flag from triggered rules only', () => {
    const alert = summarize([result('MICA-CDD-005', true, 'alert', 'high', ['generate_alert'])]);
    assert.deepEqual(
      [alert.should_block, alert.should_alert, alert.should_create_case],
      [false, true, false],
    );
    const fail = summarize([result('MICA-CDD-004', true, 'fail', 'medium', ['request_verification'])]);
    assert.deepEqual([fail.should_block, fail.should_alert, fail.should_create_case], [false, false, false]);
    const alertCase = summarize([result('MICA-RPT-004', true, 'alert', 'medium', ['create_case'])]);
    assert.deepEqual(
      [alertCase.should_block, alertCase.should_alert, alertCase.should_create_case],
      [false, true, true],
    );
  });

  it('takes the highest severity of the triggered rules (low < medium < high < critical)', () => {
    const s = summarize([
      result('MICA-GOV-004', true, 'alert', 'low', ['alert_hr_compliance']),
      result('MICA-CDD-001', false, 'block', 'critical', ['block_transaction']),
      result('MICA-GOV-002', true, 'alert', 'medium', ['alert_compliance_officer']),
    ]);
    assert.equal(s.highest_severity, 'medium');
    const c = summarize([
      result('MICA-GOV-004', true, 'alert', 'low', []),
      result('MICA-RPT-001', true, 'alert', 'critical', []),
      result('MICA-GOV-001', true, 'alert', 'high', []),
    ]);
    assert.equal(c.highest_severity, 'critical');
  });

  it('unions actions in catalogue order without duplicates, whatever the result order', () => {
    const s = summarize([
      result('MICA-RPT-004', true, 'alert', 'medium', ['create_case']),
      result('MICA-RPT-001', true, 'alert', 'critical', ['create_case', 'generate_str']),
      result('MICA-CDD-002', true, 'block', 'high', ['block_transaction', 'create_case']),
      result('MICA-CDD-001', true, 'block', 'critical', ['block_transaction', 'request_kyc']),
    ]);
    assert.deepEqual(s.actions_required, ['block_transaction', 'request_kyc', 'create_case', 'generate_str']);
    assert.deepEqual(
      s.results.map((r) => r.rule_id),
      ['MICA-RPT-004', 'MICA-RPT-001', 'MICA-CDD-002', 'MICA-CDD-001'],
    );
  });
});

describe('summary of a full transaction evaluation', () => {
  it('a worst-case transaction sets every flag and orders the actions by catalogue', () => {
    const out = evaluateEvent({
      triggerType: 'transaction',
      data: {
        customer_verified: false,
        customer_country: 'KP',
        amount_eur: 25000,
        self_hosted_wallet: true,
        address_validation_status: 'failed',
        multiple_identities_detected: true,
        suspicious_activity_detected: true,
      },
      settings: DEFAULT_RULE_SETTINGS,
      env: { now: NOW },
    });
    assert.equal(out.rules_evaluated, 8);
    assert.equal(out.rules_triggered, 8);
    assert.equal(out.highest_severity, 'critical');
    assert.deepEqual(out.actions_required, [
      'block_transaction',
      'request_kyc',
      'create_case',
      'request_ownership_proof',
      'request_verification',
      'generate_alert',
      'request_enhanced_documentation',
      'generate_str',
    ]);
    assert.deepEqual([out.should_block, out.should_alert, out.should_create_case], [true, true, true]);
  });

  it('a clean transaction passes every rule with no actions, keeping each rule severity', () => {
    const out = evaluateEvent({
      triggerType: 'transaction',
      data: { customer_verified: true, full_cdd_complete: true, amount_eur: 50, customer_country: 'DE' },
      settings: DEFAULT_RULE_SETTINGS,
      env: { now: NOW },
    });
    assert.equal(out.rules_triggered, 0);
    for (const r of out.results) {
      assert.equal(r.result, 'pass');
      assert.deepEqual(r.actions_to_execute, []);
    }
    assert.deepEqual(
      out.results.map((r) => r.severity),
      ['critical', 'high', 'high', 'medium', 'high', 'high', 'critical', 'medium'],
    );
    assert.equal(out.highest_severity, null);
    assert.deepEqual([out.should_block, out.should_alert, out.should_create_case], [false, false, false]);
  });
});
