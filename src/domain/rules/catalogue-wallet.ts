// Extension rules for wallet screening and the travel rule (CONTRACT §2 and §7).
import type { RuleDefinition } from './rule-definition.ts';
import { flag } from './rule-definition.ts';

const RISKY_WALLET_LEVELS = new Set(['high', 'critical']);
const INCOMPLETE_TRAVEL_DATA = new Set(['partial', 'missing']);

/** MICA-WAL-001 … MICA-WAL-005, MICA-TR-001. */
export const WALLET_TRAVEL_RULES: RuleDefinition[] = [
  {
    id: 'MICA-WAL-001',
    name: 'Sanctioned Wallet Exposure',
    article: 20,
    contexts: ['wallet_screen'],
    conditions: ['associated_sanctions'],
    result: 'block',
    severity: 'critical',
    actions: ['block_transaction', 'create_case'],
    thresholds: [],
    evaluate: flag('associated_sanctions'),
  },
  {
    id: 'MICA-WAL-002',
    name: 'Darknet Wallet Exposure',
    article: 20,
    contexts: ['wallet_screen'],
    conditions: ['associated_darknet'],
    result: 'alert',
    severity: 'high',
    actions: ['generate_alert', 'create_case'],
    thresholds: [],
    evaluate: flag('associated_darknet'),
  },
  {
    id: 'MICA-WAL-003',
    name: 'High Wallet Risk Score',
    article: 20,
    contexts: ['wallet_screen'],
    conditions: ['risk_score_gte_75'],
    result: 'alert',
    severity: 'high',
    actions: ['generate_alert'],
    thresholds: ['wallet_risk_score'],
    evaluate: (f, { settings }) => {
      const score = f.num('wallet_risk_score');
      const level = f.str('wallet_risk_level');
      const risky =
        (score !== undefined && score >= settings.thresholds.wallet_risk_score) ||
        (level !== undefined && RISKY_WALLET_LEVELS.has(level));
      return { triggered: risky, conditions_met: { risk_score_gte_75: risky } };
    },
  },
  {
    id: 'MICA-WAL-004',
    name: 'Self-Hosted Wallet Ownership',
    article: 19,
    contexts: ['wallet_screen'],
    conditions: ['self_hosted_wallet', 'ownership_verified'],
    result: 'fail',
    severity: 'medium',
    actions: ['request_ownership_proof'],
    thresholds: [],
    evaluate: (f) => {
      const selfHosted = f.bool('self_hosted_wallet') === true;
      const owned = f.bool('ownership_verified') ?? false;
      return {
        triggered: selfHosted && !owned,
        conditions_met: { self_hosted_wallet: selfHosted, ownership_verified: owned },
      };
    },
  },
  {
    id: 'MICA-WAL-005',
    name: 'Sanctions Name Match',
    article: 20,
    contexts: ['wallet_screen'],
    conditions: ['name_match_score_gte_0_92'],
    result: 'alert',
    severity: 'high',
    actions: ['generate_alert'],
    thresholds: ['name_match_score'],
    evaluate: (f, { settings }) => {
      const score = f.num('name_match_score');
      const match = score !== undefined && score >= settings.thresholds.name_match_score;
      return { triggered: match, conditions_met: { name_match_score_gte_0_92: match } };
    },
  },
  {
    id: 'MICA-TR-001',
    name: 'Travel Rule Data Completeness',
    article: 26,
    contexts: ['travel_rule'],
    conditions: ['data_complete'],
    result: 'block',
    severity: 'high',
    actions: ['block_transaction', 'request_travel_rule_data'],
    thresholds: [],
    evaluate: (f) => {
      const completeness = f.str('data_completeness');
      // Absent or an unknown value cannot trigger: only 'partial' / 'missing' say data is lacking.
      const incomplete = completeness !== undefined && INCOMPLETE_TRAVEL_DATA.has(completeness);
      // The value used: data counts as complete unless it is said to be lacking.
      return { triggered: incomplete, conditions_met: { data_complete: !incomplete } };
    },
  },
];
