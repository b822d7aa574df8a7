// The rule engine: (event, client settings, catalogue) → per-rule results and summary flags.
// Pure: the time and the customer's prior cumulative amount come in through `env`.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { createHolidayChecker } from '../calendar/holidays.ts';
import { canonicalJson } from '../canonical-json.ts';
import { CATALOGUE, CATALOGUE_VERSION, findRule, rulesForContext } from './catalogue.ts';
import type { Facts } from './facts.ts';
import { readFacts } from './facts.ts';
import type { RuleDefinition, RuleEvalContext } from './rule-definition.ts';
import type { ClientRuleSettings } from './settings.ts';
import { summarize } from './summary.ts';
import type { EvaluationSummary, RuleEnv, RuleResult, TriggerType } from './types.ts';
import { TRIGGER_TYPES } from './types.ts';

export { listCatalogue } from './catalogue.ts';
export { priorSumMatters } from './catalogue-cdd-reporting.ts';

/** A manual evaluation named rules the catalogue does not hold (HTTP 400). */
export class UnknownRuleError extends Error {
  constructor(
    readonly unknownIds: string[],
    message = `unknown rule ids: ${unknownIds.join(', ')}`,
  ) {
    super(message);
    this.name = 'UnknownRuleError';
  }
}

export interface EvaluateEventInput {
  triggerType: TriggerType;
  /** The request's `data` object; anything else reads as empty. */
  data: unknown;
  settings: ClientRuleSettings;
  env: RuleEnv;
}

export interface EvaluationOutcome extends EvaluationSummary {
  /** Catalogue version + hash of the client's effective settings. */
  rule_set_version: string;
  /** Date of the high-risk country list, when MICA-CDD-006 was evaluated; else null. */
  high_risk_list_date: string | null;
}

const HIGH_RISK_RULE = 'MICA-CDD-006';

// Resolved settings are frozen, so the hash of one settings object never changes.
const versions = new WeakMap<ClientRuleSettings, string>();

/** The rule-set version: catalogue version + first 12 hex of SHA-256 of the canonical settings. */
export function ruleSetVersion(settings: ClientRuleSettings): string {
  let v = versions.get(settings);
  if (v === undefined) {
    const digest = bytesToHex(sha256(utf8ToBytes(canonicalJson(settings))));
    v = `${CATALOGUE_VERSION}+${digest.slice(0, 12)}`;
    if (Object.isFrozen(settings)) versions.set(settings, v);
  }
  return v;
}

function manualRules(facts: Facts): RuleDefinition[] {
  const ids = facts.raw('rule_ids');
  // No selection: every rule of the catalogue, evaluated on the fields given.
  if (ids === undefined) return [...CATALOGUE];
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
    throw new UnknownRuleError([], 'data.rule_ids must be an array of rule id strings');
  }
  const unknown = [...new Set((ids as string[]).filter((id) => findRule(id) === undefined))];
  if (unknown.length > 0) throw new UnknownRuleError(unknown);
  return CATALOGUE.filter((r) => ids.includes(r.id));
}

/** The rules an event is evaluated against, in catalogue order, before disabled rules are removed. */
export function selectRules(triggerType: TriggerType, data: unknown): readonly RuleDefinition[] {
  if (!TRIGGER_TYPES.includes(triggerType))
    throw new TypeError(`unknown trigger type: ${String(triggerType)}`);
  if (triggerType === 'manual') return manualRules(readFacts(data));
  return rulesForContext(triggerType);
}

function evaluateRule(rule: RuleDefinition, facts: Facts, ctx: RuleEvalContext): RuleResult {
  const { triggered, conditions_met } = rule.evaluate(facts, ctx);
  return {
    rule_id: rule.id,
    rule_name: rule.name,
    triggered,
    result: triggered ? rule.result : 'pass',
    conditions_met,
    actions_to_execute: triggered ? [...rule.actions] : [],
    severity: rule.severity,
  };
}

/** Evaluates an event against the rules of its trigger type, honouring the client's settings. */
export function evaluateEvent(input: EvaluateEventInput): EvaluationOutcome {
  const { triggerType, data, settings, env } = input;
  if (!(env.now instanceof Date) || Number.isNaN(env.now.getTime())) {
    throw new TypeError('env.now must be a valid Date');
  }
  const rules = selectRules(triggerType, data).filter((r) => !settings.disabled_rules.includes(r.id));
  // The client's holiday country applies unless the caller supplies its own calendar.
  const isHoliday = env.isHoliday ?? createHolidayChecker(settings.holiday_country);
  const ctx: RuleEvalContext = { settings, env: { ...env, isHoliday } };
  const facts = readFacts(data);
  const summary = summarize(rules.map((r) => evaluateRule(r, facts, ctx)));
  return {
    ...summary,
    rule_set_version: ruleSetVersion(settings),
    high_risk_list_date: rules.some((r) => r.id === HIGH_RISK_RULE)
      ? settings.high_risk_countries.date
      : null,
  };
}
