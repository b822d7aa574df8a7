// Shared helpers of the rule tests: run one rule through the public engine (manual, rule_ids).
import assert from 'node:assert/strict';
import { evaluateEvent } from '../../../src/domain/rules/engine.ts';
import type { ClientRuleSettings } from '../../../src/domain/rules/settings.ts';
import { DEFAULT_RULE_SETTINGS } from '../../../src/domain/rules/settings.ts';
import type { RuleEnv, RuleResult } from '../../../src/domain/rules/types.ts';

/** A Wednesday, mid-morning UTC. */
export const NOW = new Date('2026-07-01T10:00:00Z');

export interface RunOptions {
  settings?: ClientRuleSettings;
  env?: Partial<RuleEnv>;
}

/** Evaluates a single rule on `data` and returns its result. */
export function runRule(ruleId: string, data: Record<string, unknown>, opts: RunOptions = {}): RuleResult {
  const out = evaluateEvent({
    triggerType: 'manual',
    data: { ...data, rule_ids: [ruleId] },
    settings: opts.settings ?? DEFAULT_RULE_SETTINGS,
    env: { now: NOW, ...opts.env },
  });
  assert.equal(out.results.length, 1);
  const result = out.results[0]!;
  assert.equal(result.rule_id, ruleId);
  return result;
}

/** Whether the rule triggers on `data`. */
export function triggers(ruleId: string, data: Record<string, unknown>, opts: RunOptions = {}): boolean {
  return runRule(ruleId, data, opts).triggered;
}

/** Values of the wrong JS type for a boolean, number or string field. */
export const NOT_BOOLEAN = ['true', 1, 0, null, {}, []];
export const NOT_NUMBER = ['5000', '1000', true, null, {}, [5000], Number.NaN, Number.POSITIVE_INFINITY];
export const NOT_STRING = [1, true, null, {}, ['failed']];
