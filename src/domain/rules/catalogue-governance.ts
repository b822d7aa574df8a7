// Governance rules (articles 30–31) and the periodic CDD review: the periodic context.
import type { RuleDefinition } from './rule-definition.ts';
import { daysOver, evidence } from './rule-definition.ts';

/** MICA-GOV-001 … MICA-GOV-004, MICA-CDD-007. */
export const GOVERNANCE_RULES: RuleDefinition[] = [
  {
    id: 'MICA-GOV-001',
    name: 'Compliance Officer Board Access',
    article: 31,
    contexts: ['periodic'],
    conditions: ['compliance_officer_board_access_documented'],
    result: 'alert',
    severity: 'high',
    actions: ['alert_management'],
    thresholds: [],
    evaluate: evidence('compliance_officer_board_access_documented'),
  },
  {
    id: 'MICA-GOV-002',
    name: 'Threshold Calibration Review',
    article: 30,
    contexts: ['periodic'],
    conditions: ['days_since_last_review_gt_365'],
    result: 'alert',
    severity: 'medium',
    actions: ['alert_compliance_officer'],
    thresholds: ['governance_review_days'],
    evaluate: daysOver('days_since_last_review', 'days_since_last_review_gt_365', 'governance_review_days'),
  },
  {
    id: 'MICA-GOV-003',
    name: 'Third-Party Oversight',
    article: 30,
    contexts: ['periodic'],
    conditions: ['third_party_oversight_active'],
    result: 'alert',
    severity: 'high',
    actions: ['alert_management'],
    thresholds: [],
    evaluate: evidence('third_party_oversight_active'),
  },
  {
    id: 'MICA-GOV-004',
    name: 'Training Completion',
    article: 30,
    contexts: ['periodic'],
    conditions: ['days_since_last_training_gt_365'],
    result: 'alert',
    severity: 'low',
    actions: ['alert_hr_compliance'],
    thresholds: ['training_days'],
    evaluate: daysOver('days_since_last_training', 'days_since_last_training_gt_365', 'training_days'),
  },
  {
    id: 'MICA-CDD-007',
    name: 'Periodic CDD Review',
    article: 19,
    contexts: ['periodic'],
    conditions: ['cdd_review_overdue', 'risk_profile_changed'],
    result: 'fail',
    severity: 'medium',
    actions: ['request_kyc'],
    thresholds: ['cdd_review_days'],
    evaluate: (f, { settings }) => {
      const days = f.num('days_since_last_cdd_review');
      const overdue = days !== undefined && days > settings.thresholds.cdd_review_days;
      const changed = f.bool('risk_profile_changed') === true;
      return {
        triggered: overdue || changed,
        conditions_met: { cdd_review_overdue: overdue, risk_profile_changed: changed },
      };
    },
  },
];
