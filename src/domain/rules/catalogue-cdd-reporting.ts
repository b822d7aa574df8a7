// Customer due diligence and reporting rules (articles 19–28): the transaction rules and the STR
// filing deadline, in the contract's table order.
import { addBusinessDays, startOfLocalDate } from '../calendar/business-days.ts';
import type { Facts } from './facts.ts';
import { DATE_ONLY, parseIsoInstant, roundMoney } from './facts.ts';
import type { RuleDefinition, RuleEvalContext } from './rule-definition.ts';
import { evidence, flag } from './rule-definition.ts';
import type { ClientRuleSettings } from './settings.ts';

// An STR is overdue once now is past detection + N business days in the client's calendar.
function strOverdue(f: Facts, { settings, env }: RuleEvalContext): boolean {
  const raw = f.str('str_detected_at');
  let detected = raw === undefined ? undefined : parseIsoInstant(raw);
  if (detected === undefined) return false;
  // A date alone is that day in the client's calendar: counted from its local midnight.
  const dateOnly = DATE_ONLY.exec(raw!.trim());
  if (dateOnly)
    detected = startOfLocalDate(
      Number(dateOnly[1]),
      Number(dateOnly[2]),
      Number(dateOnly[3]),
      settings.time_zone,
    );
  // Not yet detected, so not yet due: and no calendar is walked towards a far-future date.
  if (detected.getTime() >= env.now.getTime()) return false;
  const deadline = addBusinessDays(detected, settings.thresholds.str_filing_business_days, {
    timeZone: settings.time_zone,
    isHoliday: env.isHoliday,
  });
  return env.now.getTime() > deadline.getTime();
}

/**
 * Whether the customer's prior sum can change MICA-CDD-002's result for this amount: not when the
 * rule is disabled, and not when the amount alone reaches the threshold (both conditions then hold
 * whatever came before). The service then skips reading the window, a database round trip on PostgreSQL.
 */
export function priorSumMatters(amount: number | undefined, settings: ClientRuleSettings): boolean {
  if (amount === undefined || settings.disabled_rules.includes('MICA-CDD-002')) return false;
  return amount < settings.thresholds.cdd_amount_eur;
}

/** MICA-CDD-001 … MICA-RPT-004. */
export const CDD_REPORTING_RULES: RuleDefinition[] = [
  {
    id: 'MICA-CDD-001',
    name: 'Identity Verification Required',
    article: 19,
    contexts: ['transaction'],
    conditions: ['customer_verified'],
    result: 'block',
    severity: 'critical',
    actions: ['block_transaction', 'request_kyc'],
    thresholds: [],
    evaluate: evidence('customer_verified'),
  },
  {
    id: 'MICA-CDD-002',
    name: 'Full CDD Threshold',
    article: 19,
    contexts: ['transaction'],
    conditions: ['amount_eur_gte_1000', 'cumulative_amount_eur_gte_1000', 'full_cdd_complete'],
    result: 'block',
    severity: 'high',
    actions: ['block_transaction', 'create_case'],
    thresholds: ['cdd_amount_eur', 'cumulative_window_days'],
    evaluate: (f, { settings, env }) => {
      const limit = settings.thresholds.cdd_amount_eur;
      const amount = f.num('amount_eur');
      const prior = env.priorCumulativeAmountEur;
      // An infinite sum (finite amounts can add up past the double's range) is over any limit.
      const priorSum = typeof prior === 'number' && prior > 0 ? prior : 0;
      const single = amount !== undefined && amount >= limit;
      // Prior transactions alone never trigger: this rule judges this transaction. Without prior
      // transactions the sum is the amount itself, compared as given (no rounding to add).
      const cumulative =
        amount !== undefined && (single || (priorSum > 0 && roundMoney(priorSum + amount) >= limit));
      const full = f.bool('full_cdd_complete') ?? false;
      return {
        triggered: (single || cumulative) && !full,
        conditions_met: {
          amount_eur_gte_1000: single,
          cumulative_amount_eur_gte_1000: cumulative,
          full_cdd_complete: full,
        },
      };
    },
  },
  {
    id: 'MICA-CDD-003',
    name: 'Self-Hosted Wallet Attestation',
    article: 19,
    contexts: ['transaction', 'travel_rule'],
    conditions: ['self_hosted_wallet', 'amount_eur_gt_1000', 'ownership_verified'],
    result: 'block',
    severity: 'high',
    actions: ['block_transaction', 'request_ownership_proof'],
    thresholds: ['self_hosted_amount_eur'],
    evaluate: (f, { settings }) => {
      const selfHosted = f.bool('self_hosted_wallet') === true;
      const amount = f.num('amount_eur');
      const over = amount !== undefined && amount > settings.thresholds.self_hosted_amount_eur;
      const owned = f.bool('ownership_verified') ?? false;
      return {
        triggered: selfHosted && over && !owned,
        conditions_met: {
          self_hosted_wallet: selfHosted,
          amount_eur_gt_1000: over,
          ownership_verified: owned,
        },
      };
    },
  },
  {
    id: 'MICA-CDD-004',
    name: 'Address Validation',
    article: 19,
    contexts: ['transaction'],
    conditions: ['address_validation_failed'],
    result: 'fail',
    severity: 'medium',
    actions: ['request_verification'],
    thresholds: [],
    evaluate: (f) => {
      const failed = f.str('address_validation_status') === 'failed';
      return { triggered: failed, conditions_met: { address_validation_failed: failed } };
    },
  },
  {
    id: 'MICA-CDD-005',
    name: 'Multiple Identity Detection',
    article: 19,
    contexts: ['transaction'],
    conditions: ['multiple_identities_detected'],
    result: 'alert',
    severity: 'high',
    actions: ['generate_alert'],
    thresholds: [],
    evaluate: flag('multiple_identities_detected'),
  },
  {
    id: 'MICA-CDD-006',
    name: 'High-Risk Country EDD',
    article: 20,
    contexts: ['transaction'],
    conditions: ['customer_country_high_risk'],
    result: 'fail',
    severity: 'high',
    actions: ['request_enhanced_documentation'],
    thresholds: [],
    evaluate: (f, { settings }) => {
      const country = f.str('customer_country')?.trim().toUpperCase();
      const high = country !== undefined && settings.high_risk_countries.codes.includes(country);
      return { triggered: high, conditions_met: { customer_country_high_risk: high } };
    },
  },
  {
    id: 'MICA-RPT-001',
    name: 'STR Generation',
    article: 27,
    contexts: ['transaction'],
    conditions: ['suspicious_activity_detected'],
    result: 'alert',
    severity: 'critical',
    actions: ['create_case', 'generate_str'],
    thresholds: [],
    evaluate: flag('suspicious_activity_detected'),
  },
  {
    id: 'MICA-RPT-002',
    name: 'STR Filing Deadline',
    article: 27,
    contexts: ['periodic'],
    conditions: ['str_filed', 'str_overdue'],
    result: 'alert',
    severity: 'high',
    actions: ['alert_compliance_officer'],
    thresholds: ['str_filing_business_days'],
    evaluate: (f, ctx) => {
      const filed = f.bool('str_filed') ?? false;
      const overdue = strOverdue(f, ctx);
      return { triggered: overdue && !filed, conditions_met: { str_filed: filed, str_overdue: overdue } };
    },
  },
  {
    id: 'MICA-RPT-004',
    name: 'Large Transaction Report',
    article: 28,
    contexts: ['transaction', 'travel_rule'],
    conditions: ['amount_eur_gte_10000'],
    result: 'alert',
    severity: 'medium',
    actions: ['create_case'],
    thresholds: ['large_transaction_eur'],
    evaluate: (f, { settings }) => {
      const amount = f.num('amount_eur');
      const large = amount !== undefined && amount >= settings.thresholds.large_transaction_eur;
      return { triggered: large, conditions_met: { amount_eur_gte_10000: large } };
    },
  },
];
