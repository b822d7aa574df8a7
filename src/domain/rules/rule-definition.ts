// The shape of a catalogue row and the small condition builders the rows share.
import type { Facts } from './facts.ts';
import type { ClientRuleSettings, RuleThresholds } from './settings.ts';
import type { RuleContext, RuleEnv, RuleResultValue, Severity } from './types.ts';

export interface RuleEvalContext {
  settings: ClientRuleSettings;
  env: RuleEnv;
}

export interface ConditionOutcome {
  triggered: boolean;
  /** The boolean value used for each of the rule's conditions. */
  conditions_met: Record<string, boolean>;
}

/** A rule's condition: reads the event's facts, never throws. */
export type RuleCondition = (facts: Facts, ctx: RuleEvalContext) => ConditionOutcome;

export interface RuleDefinition {
  readonly id: string;
  readonly name: string;
  readonly article: number;
  readonly contexts: readonly RuleContext[];
  readonly conditions: readonly string[];
  readonly result: Exclude<RuleResultValue, 'pass'>;
  readonly severity: Severity;
  readonly actions: readonly string[];
  /** The settings thresholds the rule reads (listed by GET /api/mica/rules). */
  readonly thresholds: readonly (keyof RuleThresholds)[];
  readonly evaluate: RuleCondition;
}

/** Evidence of compliance: absent counts as false (fail closed); the rule triggers when false. */
export function evidence(key: string): RuleCondition {
  return (f) => {
    const v = f.bool(key) ?? false;
    return { triggered: !v, conditions_met: { [key]: v } };
  };
}

/** A fact that triggers: only an explicit true can trigger. */
export function flag(key: string): RuleCondition {
  return (f) => {
    const v = f.bool(key) === true;
    return { triggered: v, conditions_met: { [key]: v } };
  };
}

/** A day count strictly above a threshold; absent cannot trigger. */
export function daysOver(field: string, condition: string, threshold: keyof RuleThresholds): RuleCondition {
  return (f, { settings }) => {
    const days = f.num(field);
    const v = days !== undefined && days > settings.thresholds[threshold];
    return { triggered: v, conditions_met: { [condition]: v } };
  };
}
