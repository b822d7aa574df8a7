// The MiCA rule catalogue as data (CONTRACT §2): one row per rule, in the contract's table order,
// which is also the order of results and of actions_required. Thresholds come from the client's
// settings; condition names stay as the contract writes them whatever the threshold.
import { CDD_REPORTING_RULES } from './catalogue-cdd-reporting.ts';
import { GOVERNANCE_RULES } from './catalogue-governance.ts';
import { WALLET_TRAVEL_RULES } from './catalogue-wallet.ts';
import type { RuleDefinition } from './rule-definition.ts';
import type { ClientRuleSettings, HighRiskCountries } from './settings.ts';
import type { RuleContext, RuleResultValue, Severity } from './types.ts';

export type { ConditionOutcome, RuleCondition, RuleDefinition, RuleEvalContext } from './rule-definition.ts';

/** Identifies the catalogue's rows and semantics; bump on any change to a rule. */
export const CATALOGUE_VERSION = 'mica-2026.11.1';

const ROWS: RuleDefinition[] = [...CDD_REPORTING_RULES, ...GOVERNANCE_RULES, ...WALLET_TRAVEL_RULES];

for (const row of ROWS) {
  Object.freeze(row.contexts);
  Object.freeze(row.conditions);
  Object.freeze(row.actions);
  Object.freeze(row.thresholds);
  Object.freeze(row);
}

/** The catalogue, in contract order. */
export const CATALOGUE: readonly RuleDefinition[] = Object.freeze(ROWS);

/** Every rule id, in catalogue order. */
export const RULE_IDS: readonly string[] = Object.freeze(ROWS.map((r) => r.id));

const INDEX = new Map(ROWS.map((r, i) => [r.id, i]));

/** The catalogue row of a rule id, or undefined. */
export function findRule(id: string): RuleDefinition | undefined {
  const i = INDEX.get(id);
  return i === undefined ? undefined : ROWS[i];
}

/** A rule's position in the catalogue (unknown ids sort last). */
export function catalogueIndex(id: string): number {
  return INDEX.get(id) ?? Number.MAX_SAFE_INTEGER;
}

/** The rules of a context, in catalogue order. */
export function rulesForContext(context: RuleContext): readonly RuleDefinition[] {
  let rules = BY_CONTEXT.get(context);
  if (rules === undefined) {
    rules = Object.freeze(ROWS.filter((r) => r.contexts.includes(context)));
    BY_CONTEXT.set(context, rules);
  }
  return rules;
}
/** The rules of each context, filtered once (every evaluation asks; the catalogue is fixed data). */
const BY_CONTEXT = new Map<RuleContext, readonly RuleDefinition[]>();

/** A catalogue row as listed by GET /api/mica/rules. */
export interface CatalogueEntry {
  id: string;
  name: string;
  article: number;
  contexts: RuleContext[];
  result: Exclude<RuleResultValue, 'pass'>;
  severity: Severity;
  actions: string[];
  conditions: string[];
  enabled: boolean;
  /** The client's values of the thresholds this rule reads. */
  thresholds: Record<string, number>;
  /** Only on MICA-CDD-006: the list it checks against. */
  high_risk_countries?: { source: string; date: string; codes: string[] };
}

function copyList(list: HighRiskCountries): { source: string; date: string; codes: string[] } {
  return { source: list.source, date: list.date, codes: [...list.codes] };
}

/** The catalogue as plain data, as this client has it configured. */
export function listCatalogue(settings: ClientRuleSettings): CatalogueEntry[] {
  return ROWS.map((r) => {
    const entry: CatalogueEntry = {
      id: r.id,
      name: r.name,
      article: r.article,
      contexts: [...r.contexts],
      result: r.result,
      severity: r.severity,
      actions: [...r.actions],
      conditions: [...r.conditions],
      enabled: !settings.disabled_rules.includes(r.id),
      thresholds: Object.fromEntries(r.thresholds.map((t) => [t, settings.thresholds[t]])),
    };
    if (r.id === 'MICA-CDD-006') entry.high_risk_countries = copyList(settings.high_risk_countries);
    return entry;
  });
}
