// Summary flags of an evaluation (CONTRACT §2), derived only from the triggered rule results.
import { catalogueIndex } from './catalogue.ts';
import type { EvaluationSummary, RuleResult, Severity } from './types.ts';
import { SEVERITY_RANK } from './types.ts';

/** The highest severity among some rule results; null for none. */
export function highestSeverity(results: readonly Pick<RuleResult, 'severity'>[]): Severity | null {
  let highest: Severity | null = null;
  for (const r of results)
    if (highest === null || SEVERITY_RANK[r.severity] > SEVERITY_RANK[highest]) highest = r.severity;
  return highest;
}

/** Builds the summary of rule results: counts, highest severity, actions and the three flags. */
export function summarize(results: RuleResult[]): EvaluationSummary {
  const triggered = results.filter((r) => r.triggered);
  const highest = highestSeverity(triggered);
  // Actions in catalogue order whatever order the results come in; a stable sort keeps the
  // given order among ids the catalogue does not know.
  const ordered = [...triggered].sort((a, b) => catalogueIndex(a.rule_id) - catalogueIndex(b.rule_id));
  const actions = new Set<string>();
  for (const r of ordered) for (const a of r.actions_to_execute) actions.add(a);
  return {
    rules_evaluated: results.length,
    rules_triggered: triggered.length,
    results,
    highest_severity: highest,
    actions_required: [...actions],
    should_block: triggered.some((r) => r.result === 'block'),
    should_alert: triggered.some((r) => r.result === 'alert'),
    should_create_case: triggered.some((r) => r.actions_to_execute.includes('create_case')),
  };
}
