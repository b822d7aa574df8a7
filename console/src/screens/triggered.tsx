import type { CatalogueRule, EvaluationResponse } from '../api.ts';
import { shortId, when } from '../format.ts';
import { href } from '../router.ts';
import { DataTable, SeverityBadge } from '../ui.tsx';

/** Condition values as chips: what held (or not) when the rule was evaluated. */
export function Conditions({ met }: { met: Record<string, unknown> }) {
  const entries = Object.entries(met);
  if (entries.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="chips">
      {entries.map(([k, v]) => (
        // Neutral on purpose: a true value is evidence for one condition and a trigger for another.
        <li key={k} class="chip">
          {k}: <b>{String(v)}</b>
        </li>
      ))}
    </ul>
  );
}

/** The triggered rules of an evaluation: id, name, article, conditions met, actions. */
export function TriggeredRules({
  evaluation,
  catalogue,
}: {
  evaluation: EvaluationResponse;
  catalogue: Map<string, CatalogueRule>;
}) {
  const triggered = evaluation.results.filter((r) => r.triggered);
  return (
    <div class="evaluation-card">
      <p>
        Evaluation{' '}
        <a href={href(`/evaluations/${evaluation.evaluation_id}`)}>{shortId(evaluation.evaluation_id)}</a> of{' '}
        {when(evaluation.timestamp)}: {evaluation.rules_triggered} of {evaluation.rules_evaluated} rules
        triggered
        {evaluation.should_block && <span class="badge flag-block">block</span>}
        {evaluation.should_alert && <span class="badge flag-alert">alert</span>}
        {evaluation.should_create_case && <span class="badge flag-case">case</span>}
      </p>
      {triggered.length > 0 && (
        <DataTable heads={['Rule', 'Name', 'Article', 'Severity', 'Conditions met', 'Actions']}>
          {triggered.map((r) => (
            <tr key={r.rule_id}>
              <td class="nowrap">{r.rule_id}</td>
              <td>{r.rule_name}</td>
              <td>{catalogue.get(r.rule_id)?.article ?? '—'}</td>
              <td>
                <SeverityBadge severity={r.severity} />
              </td>
              <td>
                <Conditions met={r.conditions_met} />
              </td>
              <td>{r.actions_to_execute.join(', ') || '—'}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </div>
  );
}
