import { useState } from 'preact/hooks';
import {
  type EvaluationRecord,
  type EvaluationResponse,
  getJson,
  postJsonText,
  type WhoAmI,
} from '../api.ts';
import { label, when } from '../format.ts';
import { href, navigate } from '../router.ts';
import {
  asApiError,
  DataTable,
  ErrorBox,
  Field,
  Json,
  LoadFailed,
  Loading,
  Section,
  SeverityBadge,
  useAction,
  useLoad,
} from '../ui.tsx';
import { Conditions } from './triggered.tsx';

function Flags({ r }: { r: EvaluationResponse }) {
  const flag = (on: boolean, text: string) => (
    <li class={on ? 'flag on' : 'flag'}>
      {text}: <b>{on ? 'yes' : 'no'}</b>
    </li>
  );
  return (
    <ul class="flags" aria-label="Summary flags">
      {flag(r.should_block, 'Block')}
      {flag(r.should_alert, 'Alert')}
      {flag(r.should_create_case, 'Create case')}
      <li class="flag">
        Highest severity: <SeverityBadge severity={r.highest_severity} />
      </li>
      <li class="flag">
        Actions: <b>{r.actions_required.join(', ') || 'none'}</b>
      </li>
    </ul>
  );
}

function Results({ r }: { r: EvaluationResponse }) {
  return (
    <DataTable heads={['Rule', 'Name', 'Triggered', 'Result', 'Severity', 'Conditions', 'Actions']}>
      {r.results.map((x) => (
        <tr key={x.rule_id} class={x.triggered ? `row-sev-${x.severity}` : ''}>
          <td class="nowrap">{x.rule_id}</td>
          <td>{x.rule_name}</td>
          <td>{x.triggered ? <b>yes</b> : 'no'}</td>
          <td>{label(x.result)}</td>
          <td>
            <SeverityBadge severity={x.severity} />
          </td>
          <td>
            <Conditions met={x.conditions_met} />
          </td>
          <td>{x.actions_to_execute.join(', ') || '—'}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** One stored evaluation: the request, every rule's result and conditions, the flags, a link to its audit rows. */
export function EvaluationDetail({ id }: { id: string }) {
  const [loaded] = useLoad(
    () => getJson<EvaluationRecord>(`/api/console/evaluations/${encodeURIComponent(id)}`),
    [id],
  );
  if (loaded.state === 'loading') return <Loading what="the evaluation" />;
  if (loaded.state === 'error')
    return <LoadFailed heading="Evaluation" noun="evaluation" error={loaded.error} />;
  const e = loaded.data;
  const r = e.response;
  return (
    <>
      <h1 tabIndex={-1}>Evaluation {e.evaluation_id}</h1>
      <p>
        Evaluated {when(e.evaluated_at)} by {e.evaluator_id} · rule set {e.rule_set_version}
        {e.high_risk_list_date ? ` · high-risk list of ${e.high_risk_list_date}` : ''} ·{' '}
        <a href={href('/audit', { evaluation_id: e.evaluation_id })}>audit rows of this evaluation</a>
      </p>
      <Section title="Summary">
        <p>
          {r.rules_triggered} of {r.rules_evaluated} rules triggered.
        </p>
        <Flags r={r} />
      </Section>
      <Section title="Rules">
        <Results r={r} />
      </Section>
      <Section title="Request">
        <Json value={e.request} label="Evaluation request" />
      </Section>
    </>
  );
}

const EXAMPLE = {
  client_id: '',
  trigger_type: 'transaction',
  trigger_entity_id: 'tx-console-1',
  data: { customer_id: 'c-1', customer_verified: true, amount_eur: 1500, full_cdd_complete: false },
};

/**
 * A free-form evaluation for sandbox keys: the live service never offers it. `onEvaluated` runs once an
 * evaluation is recorded (it may have opened cases and alerts: the counts are refreshed).
 */
export function TryEvaluation({ me, onEvaluated }: { me: WhoAmI; onEvaluated?: () => void }) {
  const [text, setText] = useState(JSON.stringify({ ...EXAMPLE, client_id: me.client_id }, null, 2));
  const { error, setError, busy, run } = useAction();
  if (!me.sandbox)
    return (
      <>
        <h1 tabIndex={-1}>Try an evaluation</h1>
        <p>
          Trying evaluations is for sandbox keys only: sign in to the sandbox service with a mica_test_ key.
        </p>
      </>
    );
  const submit = (e: Event) => {
    e.preventDefault();
    // Checked here, but sent as typed: a parse and re-stringify would round the officer's numbers
    // (12345678901234567890123 sent, and audited, as 1.2345678901234568e+22).
    try {
      JSON.parse(text);
    } catch (err) {
      setError(asApiError(new Error(`The request is not valid JSON: ${(err as Error).message}`)));
      return;
    }
    void run(async () => {
      const r = await postJsonText<EvaluationResponse>('/api/mica/evaluate', text);
      onEvaluated?.();
      navigate(`/evaluations/${r.evaluation_id}`);
    });
  };
  return (
    <>
      <h1 tabIndex={-1}>Try an evaluation (sandbox)</h1>
      <form onSubmit={submit} class="panel">
        <Field id="try-body" label="Evaluation request (JSON)">
          <textarea
            id="try-body"
            class="code"
            rows={16}
            spellcheck={false}
            value={text}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          />
        </Field>
        {error && <ErrorBox error={error} title="Evaluation refused" />}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Evaluating…' : 'Evaluate'}
        </button>
      </form>
    </>
  );
}
