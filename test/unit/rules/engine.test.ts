import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RULE_IDS } from '../../../src/domain/rules/catalogue.ts';
import type { EvaluateEventInput } from '../../../src/domain/rules/engine.ts';
import { evaluateEvent, ruleSetVersion, UnknownRuleError } from '../../../src/domain/rules/engine.ts';
import { DEFAULT_RULE_SETTINGS, resolveRuleSettings } from '../../../src/domain/rules/settings.ts';
import type { TriggerType } from '../../../src/domain/rules/types.ts';
import examples from '../../fixtures/rules/evaluation-examples.json' with { type: 'json' };
import { NOW } from './helpers.ts';

function run(triggerType: TriggerType, data: unknown, extra: Partial<EvaluateEventInput> = {}) {
  return evaluateEvent({ triggerType, data, settings: DEFAULT_RULE_SETTINGS, env: { now: NOW }, ...extra });
}

const ids = (out: ReturnType<typeof run>) => out.results.map((r) => r.rule_id);
const triggeredIds = (out: ReturnType<typeof run>) =>
  out.results.filter((r) => r.triggered).map((r) => r.rule_id);

describe('evaluateEvent: examples (test/fixtures/rules)', () => {
  for (const ex of examples.examples) {
    it(ex.name, () => {
      const out = run(ex.trigger_type as TriggerType, ex.data, {
        env: { now: new Date(ex.now) },
      });
      const { triggered, ...flags } = ex.expect;
      assert.deepEqual(triggeredIds(out), triggered);
      assert.deepEqual(
        {
          rules_evaluated: out.rules_evaluated,
          highest_severity: out.highest_severity,
          actions_required: out.actions_required,
          should_block: out.should_block,
          should_alert: out.should_alert,
          should_create_case: out.should_create_case,
          high_risk_list_date: out.high_risk_list_date,
        },
        flags,
      );
      assert.equal(out.rules_triggered, triggered.length);
    });
  }
});

describe('evaluateEvent: rule selection', () => {
  it('evaluates the rules of each context', () => {
    assert.equal(run('transaction', {}).rules_evaluated, 8);
    assert.equal(run('periodic', {}).rules_evaluated, 6);
    assert.equal(run('wallet_screen', {}).rules_evaluated, 5);
    assert.deepEqual(ids(run('travel_rule', {})), ['MICA-CDD-003', 'MICA-RPT-004', 'MICA-TR-001']);
  });

  it('manual without rule_ids evaluates every catalogue rule once, in order', () => {
    const out = run('manual', { customer_verified: true });
    assert.deepEqual(ids(out), RULE_IDS);
    assert.equal(out.high_risk_list_date, '2026-06-19');
  });

  it('manual with rule_ids evaluates those rules once each, in catalogue order', () => {
    const out = run('manual', { rule_ids: ['MICA-TR-001', 'MICA-CDD-001', 'MICA-TR-001', 'MICA-GOV-002'] });
    assert.deepEqual(ids(out), ['MICA-CDD-001', 'MICA-GOV-002', 'MICA-TR-001']);
    assert.equal(out.high_risk_list_date, null);
    assert.equal(run('manual', { rule_ids: [] }).rules_evaluated, 0);
  });

  it('manual rejects unknown rule ids, naming each once', () => {
    assert.throws(
      () => run('manual', { rule_ids: ['MICA-CDD-001', 'MICA-RPT-003', 'nope', 'nope'] }),
      (e: unknown) =>
        e instanceof UnknownRuleError &&
        e.unknownIds.join() === 'MICA-RPT-003,nope' &&
        /nope/.test(e.message),
    );
    assert.throws(() => run('manual', { rule_ids: ['mica-cdd-001'] }), UnknownRuleError);
  });

  it('manual rejects rule_ids that are not an array of strings', () => {
    for (const bad of ['MICA-CDD-001', null, 5, {}, ['MICA-CDD-001', 7], [null]]) {
      assert.throws(
        () => run('manual', { rule_ids: bad }),
        (e: unknown) => e instanceof UnknownRuleError && e.unknownIds.length === 0 && /array/.test(e.message),
        JSON.stringify(bad),
      );
    }
  });

  it('ignores rule_ids outside manual', () => {
    assert.equal(run('transaction', { rule_ids: ['nope'] }).rules_evaluated, 8);
  });

  it('rejects an unknown trigger type and an invalid clock', () => {
    assert.throws(() => run('sweep' as TriggerType, {}), TypeError);
    assert.throws(() => run('transaction', {}, { env: { now: new Date(Number.NaN) } }), TypeError);
  });
});

describe('evaluateEvent: disabled rules', () => {
  const settings = resolveRuleSettings({ disabled_rules: ['MICA-CDD-001', 'MICA-CDD-006'] });

  it('skips disabled rules in their context', () => {
    const out = run('transaction', {}, { settings });
    assert.equal(out.rules_evaluated, 6);
    assert.ok(!ids(out).includes('MICA-CDD-001'));
    assert.equal(out.should_block, false);
    // MICA-CDD-006 was not evaluated, so no list date is recorded.
    assert.equal(out.high_risk_list_date, null);
  });

  it('skips disabled rules even when a manual request names them', () => {
    assert.deepEqual(ids(run('manual', { rule_ids: ['MICA-CDD-001', 'MICA-CDD-002'] }, { settings })), [
      'MICA-CDD-002',
    ]);
    assert.equal(run('manual', {}, { settings }).rules_evaluated, 18);
  });
});

describe('evaluateEvent: per-client settings', () => {
  it('applies per-client amount thresholds under the contract condition names', () => {
    const settings = resolveRuleSettings({
      thresholds: { cdd_amount_eur: 500, self_hosted_amount_eur: 2000, large_transaction_eur: 15000 },
    });
    const out = run(
      'transaction',
      { customer_verified: true, amount_eur: 12000, self_hosted_wallet: true },
      { settings },
    );
    const byId = new Map(out.results.map((r) => [r.rule_id, r]));
    assert.deepEqual(byId.get('MICA-CDD-002')?.conditions_met, {
      amount_eur_gte_1000: true,
      cumulative_amount_eur_gte_1000: true,
      full_cdd_complete: false,
    });
    assert.equal(byId.get('MICA-CDD-003')?.triggered, true);
    assert.equal(byId.get('MICA-RPT-004')?.triggered, false);
    const small = run('transaction', { customer_verified: true, amount_eur: 600 }, { settings });
    assert.deepEqual(triggeredIds(small), ['MICA-CDD-002']);
    const selfHosted = run(
      'transaction',
      { amount_eur: 1500, self_hosted_wallet: true, full_cdd_complete: true },
      { settings },
    );
    assert.ok(!triggeredIds(selfHosted).includes('MICA-CDD-003'));
  });

  it('replaces the high-risk list and reports its date', () => {
    const settings = resolveRuleSettings({
      high_risk_countries: { source: 'EU Annex', date: '2025-08-05', codes: ['AF', 'KP'] },
    });
    const af = run('transaction', { customer_country: 'AF' }, { settings });
    assert.ok(triggeredIds(af).includes('MICA-CDD-006'));
    assert.equal(af.high_risk_list_date, '2025-08-05');
    const vn = run('transaction', { customer_country: 'VN' }, { settings });
    assert.ok(!triggeredIds(vn).includes('MICA-CDD-006'));
    assert.ok(triggeredIds(run('transaction', { customer_country: 'VN' })).includes('MICA-CDD-006'));
  });
});

describe('rule_set_version', () => {
  const version = (overrides: unknown) =>
    run('transaction', {}, { settings: resolveRuleSettings(overrides) }).rule_set_version;

  it('names the catalogue version and a 12-hex settings hash', () => {
    assert.match(run('transaction', {}).rule_set_version, /^mica-2026\.11\.1\+[0-9a-f]{12}$/);
    assert.equal(ruleSetVersion(DEFAULT_RULE_SETTINGS), run('periodic', {}).rule_set_version);
  });

  it('is stable for equal settings', () => {
    assert.equal(version({}), version(undefined));
    assert.equal(version({ thresholds: { cdd_amount_eur: 1000 } }), version({}));
    assert.equal(
      version({ disabled_rules: ['MICA-GOV-004', 'MICA-CDD-001'] }),
      version({ disabled_rules: ['MICA-CDD-001', 'MICA-GOV-004', 'MICA-CDD-001'] }),
    );
    assert.equal(version({ time_zone: 'utc' }), version({}));
    const list = { date: '2025-01-01', codes: ['kp', 'IR'] };
    assert.equal(
      version({ high_risk_countries: list }),
      version({ high_risk_countries: { ...list, codes: ['IR', 'KP'] } }),
    );
  });

  it('changes when any effective setting changes', () => {
    const seen = new Set([
      version({}),
      version({ thresholds: { cdd_amount_eur: 999 } }),
      version({ thresholds: { str_filing_business_days: 3 } }),
      version({ disabled_rules: ['MICA-GOV-004'] }),
      version({ high_risk_countries: { date: '2025-01-01', codes: ['IR'] } }),
      version({ high_risk_countries: { date: '2025-01-02', codes: ['IR'] } }),
      version({ time_zone: 'Europe/Paris' }),
      version({ holiday_country: 'FR' }),
    ]);
    assert.equal(seen.size, 8);
  });
});

describe('evaluateEvent: odd data', () => {
  it('reads a non-object data as empty (evidence fails closed, facts cannot trigger)', () => {
    for (const data of [null, undefined, [], 'x', 5, true, [{ customer_verified: true }]]) {
      const out = run('transaction', data);
      assert.deepEqual(triggeredIds(out), ['MICA-CDD-001'], JSON.stringify(data));
    }
  });

  it('ignores values inherited through the prototype', () => {
    const data = Object.create({ customer_verified: true, suspicious_activity_detected: true });
    assert.deepEqual(triggeredIds(run('transaction', data)), ['MICA-CDD-001']);
  });

  it('does not mutate the data', () => {
    const data = Object.freeze({
      customer_verified: false,
      amount_eur: 5000,
      rule_ids: Object.freeze(['MICA-CDD-001']),
    });
    assert.doesNotThrow(() => run('manual', data));
    assert.doesNotThrow(() => run('transaction', data));
  });
});
