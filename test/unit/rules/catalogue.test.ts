import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CATALOGUE,
  findRule,
  listCatalogue,
  RULE_IDS,
  rulesForContext,
} from '../../../src/domain/rules/catalogue.ts';
import { DEFAULT_RULE_SETTINGS, resolveRuleSettings } from '../../../src/domain/rules/settings.ts';

// CONTRACT §2, row by row: id, contexts, conditions_met keys, result, severity, actions.
const CONTRACT_TABLE = [
  [
    'MICA-CDD-001',
    ['transaction'],
    ['customer_verified'],
    'block',
    'critical',
    ['block_transaction', 'request_kyc'],
  ],
  [
    'MICA-CDD-002',
    ['transaction'],
    ['amount_eur_gte_1000', 'cumulative_amount_eur_gte_1000', 'full_cdd_complete'],
    'block',
    'high',
    ['block_transaction', 'create_case'],
  ],
  [
    'MICA-CDD-003',
    ['transaction', 'travel_rule'],
    ['self_hosted_wallet', 'amount_eur_gt_1000', 'ownership_verified'],
    'block',
    'high',
    ['block_transaction', 'request_ownership_proof'],
  ],
  [
    'MICA-CDD-004',
    ['transaction'],
    ['address_validation_failed'],
    'fail',
    'medium',
    ['request_verification'],
  ],
  ['MICA-CDD-005', ['transaction'], ['multiple_identities_detected'], 'alert', 'high', ['generate_alert']],
  [
    'MICA-CDD-006',
    ['transaction'],
    ['customer_country_high_risk'],
    'fail',
    'high',
    ['request_enhanced_documentation'],
  ],
  [
    'MICA-RPT-001',
    ['transaction'],
    ['suspicious_activity_detected'],
    'alert',
    'critical',
    ['create_case', 'generate_str'],
  ],
  ['MICA-RPT-002', ['periodic'], ['str_filed', 'str_overdue'], 'alert', 'high', ['alert_compliance_officer']],
  [
    'MICA-RPT-004',
    ['transaction', 'travel_rule'],
    ['amount_eur_gte_10000'],
    'alert',
    'medium',
    ['create_case'],
  ],
  [
    'MICA-GOV-001',
    ['periodic'],
    ['compliance_officer_board_access_documented'],
    'alert',
    'high',
    ['alert_management'],
  ],
  [
    'MICA-GOV-002',
    ['periodic'],
    ['days_since_last_review_gt_365'],
    'alert',
    'medium',
    ['alert_compliance_officer'],
  ],
  ['MICA-GOV-003', ['periodic'], ['third_party_oversight_active'], 'alert', 'high', ['alert_management']],
  [
    'MICA-GOV-004',
    ['periodic'],
    ['days_since_last_training_gt_365'],
    'alert',
    'low',
    ['alert_hr_compliance'],
  ],
  [
    'MICA-CDD-007',
    ['periodic'],
    ['cdd_review_overdue', 'risk_profile_changed'],
    'fail',
    'medium',
    ['request_kyc'],
  ],
  [
    'MICA-WAL-001',
    ['wallet_screen'],
    ['associated_sanctions'],
    'block',
    'critical',
    ['block_transaction', 'create_case'],
  ],
  [
    'MICA-WAL-002',
    ['wallet_screen'],
    ['associated_darknet'],
    'alert',
    'high',
    ['generate_alert', 'create_case'],
  ],
  ['MICA-WAL-003', ['wallet_screen'], ['risk_score_gte_75'], 'alert', 'high', ['generate_alert']],
  [
    'MICA-WAL-004',
    ['wallet_screen'],
    ['self_hosted_wallet', 'ownership_verified'],
    'fail',
    'medium',
    ['request_ownership_proof'],
  ],
  ['MICA-WAL-005', ['wallet_screen'], ['name_match_score_gte_0_92'], 'alert', 'high', ['generate_alert']],
  [
    'MICA-TR-001',
    ['travel_rule'],
    ['data_complete'],
    'block',
    'high',
    ['block_transaction', 'request_travel_rule_data'],
  ],
] as const;

// service-spec.md's catalogue: names and articles of the 13 specified rules.
const SPEC_NAMES: Record<string, [string, number]> = {
  'MICA-CDD-001': ['Identity Verification Required', 19],
  'MICA-CDD-002': ['Full CDD Threshold', 19],
  'MICA-CDD-003': ['Self-Hosted Wallet Attestation', 19],
  'MICA-CDD-004': ['Address Validation', 19],
  'MICA-CDD-005': ['Multiple Identity Detection', 19],
  'MICA-CDD-006': ['High-Risk Country EDD', 20],
  'MICA-RPT-001': ['STR Generation', 27],
  'MICA-RPT-002': ['STR Filing Deadline', 27],
  'MICA-RPT-004': ['Large Transaction Report', 28],
  'MICA-GOV-001': ['Compliance Officer Board Access', 31],
  'MICA-GOV-002': ['Threshold Calibration Review', 30],
  'MICA-GOV-003': ['Third-Party Oversight', 30],
  'MICA-GOV-004': ['Training Completion', 30],
};

describe('catalogue', () => {
  it('holds exactly the 20 rules of the contract, in its order, with its values', () => {
    const actual = CATALOGUE.map((r) => [r.id, r.contexts, r.conditions, r.result, r.severity, r.actions]);
    assert.deepEqual(actual, CONTRACT_TABLE);
    assert.deepEqual(
      RULE_IDS,
      CONTRACT_TABLE.map((row) => row[0]),
    );
    assert.equal(findRule('MICA-RPT-003'), undefined);
  });

  it("uses the spec's names and articles, and a name for every extension rule", () => {
    for (const rule of CATALOGUE) {
      const spec = SPEC_NAMES[rule.id];
      if (spec) assert.deepEqual([rule.name, rule.article], spec, rule.id);
      else assert.match(rule.name, /^[A-Z][A-Za-z -]+$/, rule.id);
    }
    assert.equal(findRule('MICA-WAL-001')?.name, 'Sanctioned Wallet Exposure');
    assert.equal(findRule('MICA-TR-001')?.name, 'Travel Rule Data Completeness');
    assert.equal(findRule('MICA-CDD-007')?.name, 'Periodic CDD Review');
  });

  it('maps each context to its rules in catalogue order', () => {
    const ids = (c: Parameters<typeof rulesForContext>[0]) => rulesForContext(c).map((r) => r.id);
    assert.deepEqual(ids('transaction'), [
      'MICA-CDD-001',
      'MICA-CDD-002',
      'MICA-CDD-003',
      'MICA-CDD-004',
      'MICA-CDD-005',
      'MICA-CDD-006',
      'MICA-RPT-001',
      'MICA-RPT-004',
    ]);
    assert.deepEqual(ids('periodic'), [
      'MICA-RPT-002',
      'MICA-GOV-001',
      'MICA-GOV-002',
      'MICA-GOV-003',
      'MICA-GOV-004',
      'MICA-CDD-007',
    ]);
    assert.deepEqual(ids('wallet_screen'), [
      'MICA-WAL-001',
      'MICA-WAL-002',
      'MICA-WAL-003',
      'MICA-WAL-004',
      'MICA-WAL-005',
    ]);
    assert.deepEqual(ids('travel_rule'), ['MICA-CDD-003', 'MICA-RPT-004', 'MICA-TR-001']);
  });

  it('is frozen data', () => {
    assert.ok(Object.isFrozen(CATALOGUE));
    for (const r of CATALOGUE) assert.ok(Object.isFrozen(r) && Object.isFrozen(r.actions), r.id);
  });
});

describe('listCatalogue', () => {
  it('lists every rule as plain data with the default thresholds', () => {
    const list = listCatalogue(DEFAULT_RULE_SETTINGS);
    assert.equal(list.length, 20);
    const cdd2 = list[1]!;
    assert.deepEqual(cdd2, {
      id: 'MICA-CDD-002',
      name: 'Full CDD Threshold',
      article: 19,
      contexts: ['transaction'],
      result: 'block',
      severity: 'high',
      actions: ['block_transaction', 'create_case'],
      conditions: ['amount_eur_gte_1000', 'cumulative_amount_eur_gte_1000', 'full_cdd_complete'],
      enabled: true,
      thresholds: { cdd_amount_eur: 1000, cumulative_window_days: 30 },
    });
    assert.ok(list.every((e) => e.enabled));
    assert.deepEqual(list.find((e) => e.id === 'MICA-CDD-001')?.thresholds, {});
    assert.equal(JSON.stringify(JSON.parse(JSON.stringify(list))), JSON.stringify(list));
  });

  it("shows the client's thresholds, disabled rules and high-risk list", () => {
    const settings = resolveRuleSettings({
      thresholds: { large_transaction_eur: 15000, str_filing_business_days: 3 },
      disabled_rules: ['MICA-GOV-004'],
      high_risk_countries: { source: 'EU Annex', date: '2025-08-05', codes: ['ir', 'KP'] },
    });
    const list = listCatalogue(settings);
    const byId = new Map(list.map((e) => [e.id, e]));
    assert.deepEqual(byId.get('MICA-RPT-004')?.thresholds, { large_transaction_eur: 15000 });
    assert.deepEqual(byId.get('MICA-RPT-002')?.thresholds, { str_filing_business_days: 3 });
    assert.equal(byId.get('MICA-GOV-004')?.enabled, false);
    assert.equal(byId.get('MICA-GOV-003')?.enabled, true);
    assert.deepEqual(byId.get('MICA-CDD-006')?.high_risk_countries, {
      source: 'EU Annex',
      date: '2025-08-05',
      codes: ['IR', 'KP'],
    });
    assert.equal(byId.get('MICA-CDD-005')?.high_risk_countries, undefined);
  });

  it('returns copies that cannot alter the catalogue', () => {
    const entry = listCatalogue(DEFAULT_RULE_SETTINGS)[0]!;
    entry.actions.push('x');
    assert.deepEqual(listCatalogue(DEFAULT_RULE_SETTINGS)[0]!.actions, ['block_transaction', 'request_kyc']);
  });
});
