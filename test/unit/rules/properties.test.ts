import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { catalogueIndex, findRule, RULE_IDS, rulesForContext } from '../../../src/domain/rules/catalogue.ts';
import type { EvaluationOutcome } from '../../../src/domain/rules/engine.ts';
import { evaluateEvent, priorSumMatters, UnknownRuleError } from '../../../src/domain/rules/engine.ts';
import type { ClientRuleSettings } from '../../../src/domain/rules/settings.ts';
import {
  DEFAULT_RULE_SETTINGS,
  RuleSettingsError,
  resolveRuleSettings,
} from '../../../src/domain/rules/settings.ts';
import type { TriggerType } from '../../../src/domain/rules/types.ts';
import { SEVERITY_RANK, TRIGGER_TYPES } from '../../../src/domain/rules/types.ts';

const SETTINGS: ClientRuleSettings[] = [
  DEFAULT_RULE_SETTINGS,
  resolveRuleSettings({
    time_zone: 'Pacific/Auckland',
    holiday_country: 'NZ',
    disabled_rules: ['MICA-CDD-001'],
  }),
  resolveRuleSettings({
    thresholds: { cdd_amount_eur: 0, str_filing_business_days: 0, name_match_score: 0 },
    high_risk_countries: { date: '2025-01-01', codes: [] },
  }),
];

// Values that exercise the rules: right types, wrong types, boundaries and arbitrary JSON.
const fieldValue = fc.oneof(
  fc.jsonValue(),
  fc.boolean(),
  fc.double(),
  fc.constantFrom(0, 999.99, 1000, 1000.01, 9999.99, 10000, 75, 0.92, 365, 366, -1),
  fc.constantFrom(
    'failed',
    'passed',
    'pending',
    'partial',
    'missing',
    'complete',
    'high',
    'critical',
    'IR',
    'de',
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2026-02-30', 'not a date', '2026-06-29T09:00:00+02:00', '2026-06-29'),
);

const FIELDS = [
  'customer_verified',
  'full_cdd_complete',
  'ownership_verified',
  'compliance_officer_board_access_documented',
  'third_party_oversight_active',
  'str_filed',
  'amount_eur',
  'self_hosted_wallet',
  'address_validation_status',
  'multiple_identities_detected',
  'suspicious_activity_detected',
  'customer_country',
  'days_since_last_review',
  'days_since_last_training',
  'days_since_last_cdd_review',
  'risk_profile_changed',
  'str_detected_at',
  'wallet_risk_score',
  'wallet_risk_level',
  'associated_sanctions',
  'associated_darknet',
  'name_match_score',
  'data_completeness',
];

const knownFields = fc.record(Object.fromEntries(FIELDS.map((f) => [f, fieldValue])), { requiredKeys: [] });
const ruleIds = fc.oneof(
  fc.subarray([...RULE_IDS]),
  fc.array(fc.constantFrom(...RULE_IDS, 'MICA-RPT-003', 'x')),
  fc.jsonValue(),
);
const data = fc.oneof(
  fc.jsonValue(),
  knownFields,
  fc.tuple(knownFields, ruleIds).map(([d, r]) => ({ ...d, rule_ids: r })),
);
const env = fc.record({
  now: fc.date({
    min: new Date('1990-01-01T00:00:00Z'),
    max: new Date('2100-01-01T00:00:00Z'),
    noInvalidDate: true,
  }),
  priorCumulativeAmountEur: fc.option(fc.double(), { nil: undefined }),
});

function expectedRules(
  triggerType: TriggerType,
  d: unknown,
  settings: ClientRuleSettings,
): string[] | 'unknown' {
  let ids: string[];
  if (triggerType !== 'manual') ids = rulesForContext(triggerType).map((r) => r.id);
  else {
    const named =
      d !== null && typeof d === 'object' && !Array.isArray(d)
        ? (d as { rule_ids?: unknown }).rule_ids
        : undefined;
    if (named === undefined) ids = [...RULE_IDS];
    else if (
      !Array.isArray(named) ||
      named.some((id) => typeof id !== 'string' || findRule(id) === undefined)
    ) {
      return 'unknown';
    } else ids = RULE_IDS.filter((id) => named.includes(id));
  }
  return ids.filter((id) => !settings.disabled_rules.includes(id));
}

function assertConsistent(out: EvaluationOutcome, expected: string[], settings: ClientRuleSettings): void {
  assert.deepEqual(
    out.results.map((r) => r.rule_id),
    expected,
  );
  const triggered = out.results.filter((r) => r.triggered);
  for (const r of out.results) {
    const rule = findRule(r.rule_id)!;
    assert.equal(r.rule_name, rule.name);
    assert.equal(r.severity, rule.severity);
    assert.deepEqual(Object.keys(r.conditions_met), rule.conditions);
    for (const v of Object.values(r.conditions_met)) assert.equal(typeof v, 'boolean');
    assert.equal(typeof r.triggered, 'boolean');
    assert.equal(r.result, r.triggered ? rule.result : 'pass');
    assert.deepEqual(r.actions_to_execute, r.triggered ? rule.actions : []);
  }
  assert.equal(out.rules_evaluated, out.results.length);
  assert.equal(out.rules_triggered, triggered.length);
  assert.equal(
    out.should_block,
    triggered.some((r) => r.result === 'block'),
  );
  assert.equal(
    out.should_alert,
    triggered.some((r) => r.result === 'alert'),
  );
  assert.equal(
    out.should_create_case,
    triggered.some((r) => r.actions_to_execute.includes('create_case')),
  );
  const ranks = triggered.map((r) => SEVERITY_RANK[r.severity]);
  assert.equal(
    out.highest_severity === null ? 0 : SEVERITY_RANK[out.highest_severity],
    Math.max(0, ...ranks),
  );
  const union = [...new Set(triggered.flatMap((r) => r.actions_to_execute))];
  assert.deepEqual(out.actions_required, union);
  const indexes = out.results.map((r) => catalogueIndex(r.rule_id));
  assert.deepEqual(
    indexes,
    [...indexes].sort((a, b) => a - b),
  );
  assert.equal(
    out.high_risk_list_date,
    expected.includes('MICA-CDD-006') ? settings.high_risk_countries.date : null,
  );
  assert.match(out.rule_set_version, /^mica-2026\.11\.1\+[0-9a-f]{12}$/);
}

describe('evaluateEvent properties', () => {
  for (const triggerType of TRIGGER_TYPES) {
    it(`${triggerType}: never throws on arbitrary JSON data and returns consistent flags`, () => {
      fc.assert(
        fc.property(data, env, fc.constantFrom(...SETTINGS), (d, e, settings) => {
          const expected = expectedRules(triggerType, d, settings);
          let out: EvaluationOutcome;
          try {
            out = evaluateEvent({ triggerType, data: d, settings, env: e });
          } catch (err) {
            // Only a manual request naming bad rule ids may fail, and only with UnknownRuleError.
            assert.equal(expected, 'unknown', String(err));
            assert.ok(err instanceof UnknownRuleError);
            return;
          }
          assert.notEqual(expected, 'unknown');
          assertConsistent(out, expected as string[], settings);
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('resolveRuleSettings properties', () => {
  it('either returns frozen settings or throws RuleSettingsError', () => {
    const overrides = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          thresholds: fc.dictionary(
            fc.constantFrom('cdd_amount_eur', 'training_days', 'name_match_score', 'x'),
            fc.jsonValue(),
          ),
          high_risk_countries: fc.jsonValue(),
          disabled_rules: fc.oneof(fc.subarray([...RULE_IDS]), fc.jsonValue()),
          time_zone: fc.oneof(fc.constantFrom('UTC', 'Europe/Berlin', 'Nowhere'), fc.jsonValue()),
          holiday_country: fc.oneof(fc.constantFrom('DE', 'us', 'XX', null), fc.jsonValue()),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(overrides, (o) => {
        try {
          const s = resolveRuleSettings(o);
          assert.ok(Object.isFrozen(s) && Object.isFrozen(s.thresholds));
        } catch (err) {
          assert.ok(err instanceof RuleSettingsError, String(err));
          assert.ok(err.errors.length > 0);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('priorSumMatters', () => {
  it('when it says the prior sum cannot matter, no prior sum changes the outcome', () => {
    const settingsArb = fc.constantFrom(
      ...SETTINGS,
      resolveRuleSettings({ disabled_rules: ['MICA-CDD-002'] }),
      resolveRuleSettings({ thresholds: { cdd_amount_eur: 1000.004 } }),
      resolveRuleSettings({ thresholds: { cdd_amount_eur: 0.005 } }),
    );
    const amount = fc.oneof(
      fc.double({ min: 0, max: 1e7, noNaN: true }),
      fc.constantFrom(0, 0.004, 0.005, 999.99, 999.995, 1000, 1000.004, 1000.005, 1000.01),
    );
    const prior = fc.oneof(
      fc.double({ min: 0, max: 1e7, noNaN: true }),
      fc.constantFrom(0, 0.001, 0.01, 1000),
    );
    fc.assert(
      fc.property(settingsArb, amount, prior, fc.boolean(), (settings, amount_eur, p, full) => {
        const data = { customer_id: 'c', amount_eur, full_cdd_complete: full, customer_verified: true };
        if (priorSumMatters(amount_eur, settings)) return;
        const at = new Date('2026-11-26T10:00:00Z');
        const run = (priorCumulativeAmountEur: number | undefined) =>
          evaluateEvent({
            triggerType: 'transaction',
            data,
            settings,
            env: { now: at, priorCumulativeAmountEur },
          });
        assert.deepEqual(run(p), run(undefined));
      }),
      { numRuns: 2000 },
    );
  });

  it('asks for the sum below the threshold, when CDD-002 runs', () => {
    assert.equal(priorSumMatters(999.99, DEFAULT_RULE_SETTINGS), true);
    assert.equal(priorSumMatters(1000, DEFAULT_RULE_SETTINGS), false);
    assert.equal(priorSumMatters(undefined, DEFAULT_RULE_SETTINGS), false);
    assert.equal(priorSumMatters(5, resolveRuleSettings({ disabled_rules: ['MICA-CDD-002'] })), false);
  });
});
