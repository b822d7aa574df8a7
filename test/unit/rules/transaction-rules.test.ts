import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NOT_BOOLEAN, NOT_NUMBER, NOT_STRING, runRule, triggers } from './helpers.ts';

describe('MICA-CDD-001 identity verification', () => {
  it('triggers (block, critical) when the customer is not verified', () => {
    assert.deepEqual(runRule('MICA-CDD-001', { customer_verified: false }), {
      rule_id: 'MICA-CDD-001',
      rule_name: 'Identity Verification Required',
      triggered: true,
      result: 'block',
      conditions_met: { customer_verified: false },
      actions_to_execute: ['block_transaction', 'request_kyc'],
      severity: 'critical',
    });
  });

  it('passes when verified', () => {
    assert.deepEqual(runRule('MICA-CDD-001', { customer_verified: true }), {
      rule_id: 'MICA-CDD-001',
      rule_name: 'Identity Verification Required',
      triggered: false,
      result: 'pass',
      conditions_met: { customer_verified: true },
      actions_to_execute: [],
      severity: 'critical',
    });
  });

  it('fails closed when the evidence is absent or of the wrong type', () => {
    assert.equal(triggers('MICA-CDD-001', {}), true);
    for (const v of NOT_BOOLEAN) {
      const r = runRule('MICA-CDD-001', { customer_verified: v });
      assert.equal(r.triggered, true, JSON.stringify(v));
      assert.deepEqual(r.conditions_met, { customer_verified: false });
    }
  });
});

describe('MICA-CDD-002 full CDD threshold', () => {
  it('triggers at and above 1000 EUR without full CDD (≥)', () => {
    assert.equal(triggers('MICA-CDD-002', { amount_eur: 999.99 }), false);
    assert.equal(triggers('MICA-CDD-002', { amount_eur: 1000 }), true);
    assert.equal(triggers('MICA-CDD-002', { amount_eur: 1000.01 }), true);
    const r = runRule('MICA-CDD-002', { amount_eur: 1000, full_cdd_complete: false });
    assert.equal(r.result, 'block');
    assert.equal(r.severity, 'high');
    assert.deepEqual(r.actions_to_execute, ['block_transaction', 'create_case']);
    assert.deepEqual(r.conditions_met, {
      amount_eur_gte_1000: true,
      cumulative_amount_eur_gte_1000: true,
      full_cdd_complete: false,
    });
  });

  it('passes with full CDD complete', () => {
    const r = runRule('MICA-CDD-002', { amount_eur: 5000, full_cdd_complete: true });
    assert.equal(r.triggered, false);
    assert.equal(r.result, 'pass');
    assert.deepEqual(r.conditions_met, {
      amount_eur_gte_1000: true,
      cumulative_amount_eur_gte_1000: true,
      full_cdd_complete: true,
    });
  });

  it('treats absent or wrong-typed full_cdd_complete as not complete', () => {
    assert.equal(triggers('MICA-CDD-002', { amount_eur: 5000 }), true);
    for (const v of NOT_BOOLEAN)
      assert.equal(triggers('MICA-CDD-002', { amount_eur: 5000, full_cdd_complete: v }), true);
  });

  it('cannot trigger without an amount, or with a wrong-typed one', () => {
    const r = runRule('MICA-CDD-002', { full_cdd_complete: false });
    assert.equal(r.triggered, false);
    assert.deepEqual(r.conditions_met, {
      amount_eur_gte_1000: false,
      cumulative_amount_eur_gte_1000: false,
      full_cdd_complete: false,
    });
    for (const v of NOT_NUMBER) assert.equal(triggers('MICA-CDD-002', { amount_eur: v }), false, String(v));
  });

  it('adds the prior window sum to this amount', () => {
    const r = runRule('MICA-CDD-002', { amount_eur: 500 }, { env: { priorCumulativeAmountEur: 600 } });
    assert.equal(r.triggered, true);
    assert.deepEqual(r.conditions_met, {
      amount_eur_gte_1000: false,
      cumulative_amount_eur_gte_1000: true,
      full_cdd_complete: false,
    });
    assert.equal(
      triggers('MICA-CDD-002', { amount_eur: 499.99 }, { env: { priorCumulativeAmountEur: 500 } }),
      false,
    );
    assert.equal(
      triggers('MICA-CDD-002', { amount_eur: 500 }, { env: { priorCumulativeAmountEur: 500 } }),
      true,
    );
  });

  it('compares sums without binary floating-point drift', () => {
    // 999.99 + 0.01 is 1000.0000000000001 or 999.9999999999999 in doubles depending on the pair.
    assert.equal(
      triggers('MICA-CDD-002', { amount_eur: 0.01 }, { env: { priorCumulativeAmountEur: 999.99 } }),
      true,
    );
    assert.equal(
      triggers('MICA-CDD-002', { amount_eur: 0.7 }, { env: { priorCumulativeAmountEur: 999.3 } }),
      true,
    );
    assert.equal(
      triggers('MICA-CDD-002', { amount_eur: 0.69 }, { env: { priorCumulativeAmountEur: 999.3 } }),
      false,
    );
  });

  it('compares a single amount as given, and sums below the threshold by a fraction of a cent stay below', () => {
    const alone = runRule('MICA-CDD-002', { amount_eur: 999.9999995 });
    assert.equal(alone.triggered, false);
    assert.deepEqual(alone.conditions_met, {
      amount_eur_gte_1000: false,
      cumulative_amount_eur_gte_1000: false,
      full_cdd_complete: false,
    });
    assert.equal(
      triggers('MICA-CDD-002', { amount_eur: 999.9999994 }, { env: { priorCumulativeAmountEur: 0.0000001 } }),
      false,
    );
    assert.equal(
      triggers('MICA-CDD-002', { amount_eur: 999.9999995 }, { env: { priorCumulativeAmountEur: 0.0000005 } }),
      true,
    );
  });

  it('never triggers on the prior sum alone, nor with full CDD', () => {
    assert.equal(triggers('MICA-CDD-002', {}, { env: { priorCumulativeAmountEur: 5000 } }), false);
    assert.equal(
      triggers(
        'MICA-CDD-002',
        { amount_eur: 10, full_cdd_complete: true },
        { env: { priorCumulativeAmountEur: 5000 } },
      ),
      false,
    );
  });

  it('ignores a non-finite prior sum', () => {
    const env = { priorCumulativeAmountEur: Number.NaN };
    assert.equal(triggers('MICA-CDD-002', { amount_eur: 999 }, { env }), false);
    assert.equal(triggers('MICA-CDD-002', { amount_eur: 1000 }, { env }), true);
  });
});

describe('MICA-CDD-003 self-hosted wallet attestation', () => {
  const base = { self_hosted_wallet: true };

  it('triggers strictly above 1000 EUR (>)', () => {
    assert.equal(triggers('MICA-CDD-003', { ...base, amount_eur: 999.99 }), false);
    assert.equal(triggers('MICA-CDD-003', { ...base, amount_eur: 1000 }), false);
    const r = runRule('MICA-CDD-003', { ...base, amount_eur: 1000.01 });
    assert.equal(r.triggered, true);
    assert.equal(r.result, 'block');
    assert.equal(r.severity, 'high');
    assert.deepEqual(r.actions_to_execute, ['block_transaction', 'request_ownership_proof']);
    assert.deepEqual(r.conditions_met, {
      self_hosted_wallet: true,
      amount_eur_gt_1000: true,
      ownership_verified: false,
    });
  });

  it('passes with verified ownership or a hosted wallet', () => {
    assert.equal(triggers('MICA-CDD-003', { ...base, amount_eur: 5000, ownership_verified: true }), false);
    assert.equal(triggers('MICA-CDD-003', { self_hosted_wallet: false, amount_eur: 5000 }), false);
  });

  it('fails closed on ownership evidence, cannot trigger without the facts', () => {
    for (const v of NOT_BOOLEAN) {
      assert.equal(triggers('MICA-CDD-003', { ...base, amount_eur: 5000, ownership_verified: v }), true);
    }
    assert.equal(triggers('MICA-CDD-003', { amount_eur: 5000 }), false);
    for (const v of NOT_BOOLEAN)
      assert.equal(triggers('MICA-CDD-003', { self_hosted_wallet: v, amount_eur: 5000 }), false);
    assert.equal(triggers('MICA-CDD-003', base), false);
    for (const v of NOT_NUMBER) assert.equal(triggers('MICA-CDD-003', { ...base, amount_eur: v }), false);
  });
});

describe('MICA-CDD-004 address validation', () => {
  it('triggers (fail, medium) on status failed only', () => {
    const r = runRule('MICA-CDD-004', { address_validation_status: 'failed' });
    assert.equal(r.triggered, true);
    assert.equal(r.result, 'fail');
    assert.equal(r.severity, 'medium');
    assert.deepEqual(r.actions_to_execute, ['request_verification']);
    assert.deepEqual(r.conditions_met, { address_validation_failed: true });
    assert.equal(triggers('MICA-CDD-004', { address_validation_status: 'passed' }), false);
    assert.equal(triggers('MICA-CDD-004', { address_validation_status: 'pending' }), false);
  });

  it('cannot trigger when the status is absent or not a string', () => {
    assert.deepEqual(runRule('MICA-CDD-004', {}).conditions_met, { address_validation_failed: false });
    for (const v of NOT_STRING)
      assert.equal(triggers('MICA-CDD-004', { address_validation_status: v }), false);
  });
});

describe('MICA-CDD-005 multiple identities', () => {
  it('triggers (alert, high) on true only', () => {
    const r = runRule('MICA-CDD-005', { multiple_identities_detected: true });
    assert.deepEqual(
      [r.triggered, r.result, r.severity, r.actions_to_execute],
      [true, 'alert', 'high', ['generate_alert']],
    );
    assert.equal(triggers('MICA-CDD-005', { multiple_identities_detected: false }), false);
    assert.equal(triggers('MICA-CDD-005', {}), false);
    for (const v of NOT_BOOLEAN)
      assert.equal(triggers('MICA-CDD-005', { multiple_identities_detected: v }), false);
  });
});

describe('MICA-CDD-006 high-risk country', () => {
  it('triggers (fail, high) for a country of the default FATF list, any case', () => {
    for (const c of ['IR', 'KP', 'MM', 'ir', ' kp ', 'BA', 'IQ', 'KW', 'PG', 'VG']) {
      assert.equal(triggers('MICA-CDD-006', { customer_country: c }), true, c);
    }
    const r = runRule('MICA-CDD-006', { customer_country: 'IR' });
    assert.deepEqual(
      [r.result, r.severity, r.actions_to_execute, r.conditions_met],
      ['fail', 'high', ['request_enhanced_documentation'], { customer_country_high_risk: true }],
    );
  });

  it('passes for other countries, including those the June 2026 plenary removed', () => {
    for (const c of ['DE', 'FR', 'RU', 'DZ', 'NA', 'NG', 'ZA', 'XX', '']) {
      assert.equal(triggers('MICA-CDD-006', { customer_country: c }), false, c);
    }
  });

  it('cannot trigger when the country is absent or not a string', () => {
    assert.equal(triggers('MICA-CDD-006', {}), false);
    for (const v of NOT_STRING) assert.equal(triggers('MICA-CDD-006', { customer_country: v }), false);
  });
});

describe('MICA-RPT-001 STR generation', () => {
  it('triggers (alert, critical, create_case + generate_str) on suspicious activity', () => {
    const r = runRule('MICA-RPT-001', { suspicious_activity_detected: true });
    assert.deepEqual(
      [r.triggered, r.result, r.severity, r.actions_to_execute],
      [true, 'alert', 'critical', ['create_case', 'generate_str']],
    );
    assert.equal(triggers('MICA-RPT-001', { suspicious_activity_detected: false }), false);
    assert.equal(triggers('MICA-RPT-001', {}), false);
    for (const v of NOT_BOOLEAN)
      assert.equal(triggers('MICA-RPT-001', { suspicious_activity_detected: v }), false);
  });
});

describe('MICA-RPT-004 large transaction', () => {
  it('triggers (alert, medium, create_case) at and above 10000 EUR', () => {
    assert.equal(triggers('MICA-RPT-004', { amount_eur: 9999.99 }), false);
    const r = runRule('MICA-RPT-004', { amount_eur: 10000 });
    assert.deepEqual(
      [r.triggered, r.result, r.severity, r.actions_to_execute, r.conditions_met],
      [true, 'alert', 'medium', ['create_case'], { amount_eur_gte_10000: true }],
    );
    assert.equal(triggers('MICA-RPT-004', { amount_eur: 10000.01 }), true);
  });

  it('cannot trigger without a numeric amount', () => {
    assert.equal(triggers('MICA-RPT-004', {}), false);
    for (const v of NOT_NUMBER) assert.equal(triggers('MICA-RPT-004', { amount_eur: v }), false);
  });
});
