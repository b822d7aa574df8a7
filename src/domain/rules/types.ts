// Shared types of the MiCA rule engine (CONTRACT §2). The wire shapes mirror service-spec.md.

export type TriggerType = 'transaction' | 'wallet_screen' | 'travel_rule' | 'periodic' | 'manual';
export type RuleContext = 'transaction' | 'wallet_screen' | 'travel_rule' | 'periodic';
export type Severity = 'low' | 'medium' | 'high' | 'critical';
export type RuleResultValue = 'pass' | 'fail' | 'alert' | 'block';

export interface RuleResult {
  rule_id: string;
  rule_name: string;
  triggered: boolean;
  result: RuleResultValue;
  conditions_met: Record<string, boolean>;
  actions_to_execute: string[];
  severity: Severity;
}

export interface EvaluationSummary {
  rules_evaluated: number;
  rules_triggered: number;
  results: RuleResult[];
  highest_severity: Severity | null;
  actions_required: string[];
  should_block: boolean;
  should_alert: boolean;
  should_create_case: boolean;
}

/** What the caller knows beyond the event itself; time is a parameter so the engine stays pure. */
export interface RuleEnv {
  now: Date;
  /** Sum of the customer's OTHER non-blocked transactions in the cumulative window (EUR). */
  priorCumulativeAmountEur?: number;
  /** Public holiday test on a local calendar date `YYYY-MM-DD` of the client's time zone. */
  isHoliday?: (isoDate: string) => boolean;
}

export const TRIGGER_TYPES: readonly TriggerType[] = Object.freeze([
  'transaction',
  'wallet_screen',
  'travel_rule',
  'periodic',
  'manual',
]);

export const SEVERITY_RANK: Readonly<Record<Severity, number>> = Object.freeze({
  low: 1,
  medium: 2,
  high: 3,
  critical: 4,
});
