// Public surface of the rule engine.
export type { CatalogueEntry, RuleDefinition } from './catalogue.ts';
export { CATALOGUE, CATALOGUE_VERSION, listCatalogue, RULE_IDS } from './catalogue.ts';
export type { EvaluateEventInput, EvaluationOutcome } from './engine.ts';
export { evaluateEvent, ruleSetVersion, UnknownRuleError } from './engine.ts';
export type { ClientRuleSettings, HighRiskCountries, RuleThresholds } from './settings.ts';
export { DEFAULT_RULE_SETTINGS, RuleSettingsError, resolveRuleSettings } from './settings.ts';
export { summarize } from './summary.ts';
export type * from './types.ts';
