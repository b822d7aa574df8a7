import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fatf from '../../../src/domain/rules/data/fatf-high-risk-countries.json' with { type: 'json' };
import {
  DEFAULT_RULE_SETTINGS,
  RuleSettingsError,
  resolveRuleSettings,
} from '../../../src/domain/rules/settings.ts';

// FATF, June 2026 plenary: call for action + increased monitoring (secondary snapshot).
const JUNE_2026 = [
  ...['IR', 'KP', 'MM'],
  ...['AO', 'BA', 'BG', 'BO', 'CD', 'CI', 'CM', 'HT', 'IQ', 'KE', 'KW'],
  ...['LA', 'LB', 'MC', 'NP', 'PG', 'SS', 'SY', 'VE', 'VG', 'VN', 'YE'],
].sort();

function errorsOf(overrides: unknown): string[] {
  try {
    resolveRuleSettings(overrides);
  } catch (e) {
    assert.ok(e instanceof RuleSettingsError);
    assert.match(e.message, /^invalid rule settings: /);
    return e.errors;
  }
  assert.fail('expected a RuleSettingsError');
}

describe('DEFAULT_RULE_SETTINGS', () => {
  it("holds the contract's thresholds and calendar", () => {
    assert.deepEqual(DEFAULT_RULE_SETTINGS.thresholds, {
      cdd_amount_eur: 1000,
      self_hosted_amount_eur: 1000,
      large_transaction_eur: 10000,
      cumulative_window_days: 30,
      governance_review_days: 365,
      training_days: 365,
      cdd_review_days: 365,
      str_filing_business_days: 2,
      wallet_risk_score: 75,
      name_match_score: 0.92,
    });
    assert.deepEqual(DEFAULT_RULE_SETTINGS.disabled_rules, []);
    assert.equal(DEFAULT_RULE_SETTINGS.time_zone, 'UTC');
    assert.equal(DEFAULT_RULE_SETTINGS.holiday_country, null);
  });

  it('uses the latest dated FATF snapshot: call for action + increased monitoring', () => {
    const list = DEFAULT_RULE_SETTINGS.high_risk_countries;
    assert.equal(list.date, '2026-06-19');
    assert.deepEqual(list.codes, JUNE_2026);
    assert.match(list.source, /Call for Action/);
    assert.match(list.source, /Increased Monitoring/);
    assert.equal(fatf.date, list.date);
    assert.match(fatf._source, /fatf_lists_secondary_snapshot\.json/);
    assert.deepEqual(fatf.lists.length, 2);
  });

  it('is deeply frozen', () => {
    assert.ok(Object.isFrozen(DEFAULT_RULE_SETTINGS));
    assert.ok(Object.isFrozen(DEFAULT_RULE_SETTINGS.thresholds));
    assert.ok(Object.isFrozen(DEFAULT_RULE_SETTINGS.high_risk_countries.codes));
    assert.throws(() => {
      (DEFAULT_RULE_SETTINGS.thresholds as { cdd_amount_eur: number }).cdd_amount_eur = 1;
    }, TypeError);
  });
});

describe('resolveRuleSettings', () => {
  it('returns the defaults for no overrides', () => {
    assert.equal(resolveRuleSettings(undefined), DEFAULT_RULE_SETTINGS);
    assert.equal(resolveRuleSettings(null), DEFAULT_RULE_SETTINGS);
    assert.deepEqual(resolveRuleSettings({}), DEFAULT_RULE_SETTINGS);
  });

  it('deep-merges thresholds and keeps the others', () => {
    const s = resolveRuleSettings({ thresholds: { cdd_amount_eur: 500, wallet_risk_score: 60 } });
    assert.deepEqual(s.thresholds, {
      ...DEFAULT_RULE_SETTINGS.thresholds,
      cdd_amount_eur: 500,
      wallet_risk_score: 60,
    });
    assert.deepEqual(s.high_risk_countries, DEFAULT_RULE_SETTINGS.high_risk_countries);
    assert.ok(Object.isFrozen(s) && Object.isFrozen(s.thresholds));
  });

  it('replaces the high-risk list whole, upper-casing, sorting and de-duplicating codes', () => {
    const s = resolveRuleSettings({
      high_risk_countries: {
        source: 'EU Delegated Regulation 2016/1675 Annex',
        date: '2025-08-05',
        codes: ['kp', 'IR', 'ir'],
      },
    });
    assert.deepEqual(s.high_risk_countries, {
      source: 'EU Delegated Regulation 2016/1675 Annex',
      date: '2025-08-05',
      codes: ['IR', 'KP'],
    });
    const noSource = resolveRuleSettings({ high_risk_countries: { date: '2025-01-01', codes: [] } });
    assert.deepEqual(noSource.high_risk_countries, {
      source: 'client setting',
      date: '2025-01-01',
      codes: [],
    });
  });

  it('canonicalises disabled rules, time zone and holiday country', () => {
    const s = resolveRuleSettings({
      disabled_rules: ['MICA-GOV-004', 'MICA-CDD-001', 'MICA-GOV-004'],
      time_zone: 'europe/berlin',
      holiday_country: 'de',
    });
    assert.deepEqual(s.disabled_rules, ['MICA-CDD-001', 'MICA-GOV-004']);
    assert.equal(s.time_zone, 'Europe/Berlin');
    assert.equal(s.holiday_country, 'DE');
    assert.equal(resolveRuleSettings({ holiday_country: null }).holiday_country, null);
  });

  it('does not alias the overrides object', () => {
    const overrides = { thresholds: { cdd_amount_eur: 500 }, disabled_rules: ['MICA-GOV-004'] };
    const s = resolveRuleSettings(overrides);
    overrides.thresholds.cdd_amount_eur = 1;
    overrides.disabled_rules.push('MICA-GOV-001');
    assert.equal(s.thresholds.cdd_amount_eur, 500);
    assert.deepEqual(s.disabled_rules, ['MICA-GOV-004']);
  });

  it('rejects a non-object', () => {
    for (const v of [[], 'x', 5, true]) assert.deepEqual(errorsOf(v), ['settings: must be an object']);
  });

  it('rejects bad threshold values with a message naming the field', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ cdd_amount_eur: -1 }, /thresholds\.cdd_amount_eur: must be a number between 0 and 9007199254740991/],
      // Over 2^53 − 1 the message states that bound, not only "≥ 0" (which 1e16 meets).
      [
        { cdd_amount_eur: 1e16 },
        /thresholds\.cdd_amount_eur: must be a number between 0 and 9007199254740991/,
      ],
      [{ cdd_amount_eur: '1000' }, /thresholds\.cdd_amount_eur/],
      [{ large_transaction_eur: Number.NaN }, /thresholds\.large_transaction_eur/],
      [{ cumulative_window_days: 0 }, /thresholds\.cumulative_window_days: must be an integer between 1 and/],
      // The embedded store holds a year of transactions for the window sums: no longer window.
      [
        { cumulative_window_days: 366 },
        /thresholds\.cumulative_window_days: must be an integer between 1 and 365/,
      ],
      [{ training_days: 365.5 }, /thresholds\.training_days/],
      [{ str_filing_business_days: -1 }, /thresholds\.str_filing_business_days/],
      [{ wallet_risk_score: 101 }, /thresholds\.wallet_risk_score: must be a number between 0 and 100/],
      [{ name_match_score: 1.5 }, /thresholds\.name_match_score: must be a number between 0 and 1/],
      [{ cdd_amount: 5 }, /thresholds\.cdd_amount: unknown setting/],
    ];
    for (const [thresholds, re] of cases) {
      const errors = errorsOf({ thresholds });
      assert.equal(errors.length, 1, JSON.stringify(thresholds));
      assert.match(errors[0]!, re);
    }
    assert.match(errorsOf({ thresholds: [] })[0]!, /thresholds: must be an object/);
  });

  it('rejects a bad high-risk list', () => {
    assert.match(errorsOf({ high_risk_countries: ['IR'] })[0]!, /high_risk_countries: must be an object/);
    assert.match(errorsOf({ high_risk_countries: { codes: ['IR'] } })[0]!, /high_risk_countries\.date/);
    assert.match(errorsOf({ high_risk_countries: { codes: ['IR'], date: '2026-02-30' } })[0]!, /\.date/);
    assert.match(errorsOf({ high_risk_countries: { date: '2026-01-01' } })[0]!, /\.codes: required/);
    assert.match(errorsOf({ high_risk_countries: { date: '2026-01-01', codes: ['IRN', 1] } })[0]!, /IRN/);
    assert.match(errorsOf({ high_risk_countries: { date: '2026-01-01', codes: ['IR', 'ſy'] } })[0]!, /ſy/);
    assert.match(
      errorsOf({ high_risk_countries: { date: '2026-01-01', codes: [], source: '' } })[0]!,
      /\.source/,
    );
    assert.match(
      errorsOf({ high_risk_countries: { date: '2026-01-01', codes: [], extra: 1 } })[0]!,
      /\.extra/,
    );
  });

  it('rejects unknown rules, zones, holiday countries and top-level keys', () => {
    assert.match(errorsOf({ disabled_rules: ['MICA-RPT-003'] })[0]!, /unknown rule ids \["MICA-RPT-003"\]/);
    assert.match(errorsOf({ disabled_rules: 'MICA-CDD-001' })[0]!, /disabled_rules: must be an array/);
    assert.match(errorsOf({ disabled_rules: [1] })[0]!, /disabled_rules/);
    assert.match(errorsOf({ time_zone: 'Mars/Olympus' })[0]!, /time_zone/);
    assert.match(errorsOf({ time_zone: 3 })[0]!, /time_zone/);
    for (const c of ['XX', 'DEU', 5, '', 'ſe'])
      assert.match(errorsOf({ holiday_country: c })[0]!, /holiday_country/);
    assert.match(errorsOf({ threshold: {} })[0]!, /^threshold: unknown setting/);
  });

  it('reports every problem at once', () => {
    const errors = errorsOf({
      thresholds: { cdd_amount_eur: -5, training_days: 'x' },
      time_zone: 'Nowhere/Land',
      disabled_rules: ['NOPE'],
      color: 'red',
    });
    assert.equal(errors.length, 5);
  });
});
