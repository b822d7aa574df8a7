import { useState } from 'preact/hooks';
import { type ApiError, type AuditRow, download, qs, type TransitionRow } from '../api.ts';
import { label, shortId, when } from '../format.ts';
import { href, navigate } from '../router.ts';
import { asApiError, ErrorBox, SeverityBadge } from '../ui.tsx';
import { PagedBody, usePaged } from './queue.tsx';
import { Conditions } from './triggered.tsx';

const EVAL_FIELDS = [
  ['from', 'From (date or date-time)'],
  ['to', 'To (exclusive)'],
  ['rule_id', 'Rule'],
  ['customer_id', 'Customer'],
  ['transaction_id', 'Transaction'],
  ['evaluation_id', 'Evaluation'],
] as const;
const TRANSITION_FIELDS = [
  ['from', 'From (date or date-time)'],
  ['to', 'To (exclusive)'],
  ['case_id', 'Case (id or number)'],
] as const;

function Filters({
  fields,
  values,
  onApply,
}: {
  fields: ReadonlyArray<readonly [string, string]>;
  values: Record<string, string>;
  onApply: (v: Record<string, string>) => void;
}) {
  const [draft, setDraft] = useState(values);
  return (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(draft);
      }}
    >
      {fields.map(([k, text]) => (
        <div class="field" key={k}>
          <label for={`a-${k}`}>{text}</label>
          <input
            id={`a-${k}`}
            value={draft[k] ?? ''}
            placeholder={k === 'from' || k === 'to' ? 'YYYY-MM-DD' : ''}
            onInput={(e) => setDraft({ ...draft, [k]: (e.target as HTMLInputElement).value.trim() })}
          />
        </div>
      ))}
      <button type="submit" class="primary">
        Search
      </button>
    </form>
  );
}

function Exports({ url, name }: { url: string; name: string }) {
  const [error, setError] = useState<ApiError>();
  const run = (format: 'csv' | 'json') =>
    download(`${url}${url.includes('?') ? '&' : '?'}format=${format}`, `${name}.${format}`).catch((e) =>
      setError(asApiError(e)),
    );
  return (
    <div class="buttons">
      <button type="button" onClick={() => run('csv')}>
        Export CSV
      </button>
      <button type="button" onClick={() => run('json')}>
        Export JSON
      </button>
      {error && <ErrorBox error={error} title="Export failed" />}
    </div>
  );
}

function EvaluationRows({ values }: { values: Record<string, string> }) {
  const url = `/api/mica/audit/evaluations${qs(values)}`;
  const paged = usePaged<AuditRow>(`${url}${url.includes('?') ? '&' : '?'}limit=100`);
  return (
    <>
      <Exports url={url} name="audit-evaluations" />
      <PagedBody paged={paged} what="audit rows">
        {(items) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Evaluated</th>
                  <th scope="col">Evaluation</th>
                  <th scope="col">Rule</th>
                  <th scope="col">Result</th>
                  <th scope="col">Severity</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Customer</th>
                  <th scope="col">Conditions</th>
                  <th scope="col">Evaluator</th>
                </tr>
              </thead>
              <tbody>
                {items.map((r) => (
                  <tr key={`${r.evaluation_id}-${r.rule_id}`}>
                    <td class="nowrap">{when(r.evaluated_at)}</td>
                    <td>
                      <a href={href(`/evaluations/${r.evaluation_id}`)}>{shortId(r.evaluation_id)}</a>
                    </td>
                    <td class="nowrap">{r.rule_id}</td>
                    <td>{label(r.result)}</td>
                    <td>
                      <SeverityBadge severity={r.severity} />
                    </td>
                    <td>
                      {r.trigger_type}
                      {r.trigger_entity_id ? ` · ${r.trigger_entity_id}` : ''}
                    </td>
                    <td>{r.customer_id ?? '—'}</td>
                    <td>
                      <Conditions met={r.conditions_met} />
                    </td>
                    <td>{r.evaluator_id}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedBody>
    </>
  );
}

function TransitionRows({ values }: { values: Record<string, string> }) {
  const url = `/api/mica/audit/transitions${qs(values)}`;
  const paged = usePaged<TransitionRow>(`${url}${url.includes('?') ? '&' : '?'}limit=100`);
  return (
    <>
      <Exports url={url} name="audit-transitions" />
      <PagedBody paged={paged} what="transitions">
        {(items) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Item</th>
                  <th scope="col">Case</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Move</th>
                  <th scope="col">Resolution</th>
                  <th scope="col">Note</th>
                </tr>
              </thead>
              <tbody>
                {items.map((r, i) => (
                  <tr key={`${r.item_id}-${r.at}-${i}`}>
                    <td class="nowrap">{when(r.at)}</td>
                    <td>
                      <a href={href(`/${r.kind === 'case' ? 'cases' : 'alerts'}/${r.item_id}`)}>
                        {r.kind} {shortId(r.item_id)}
                      </a>
                    </td>
                    <td>{r.case_number ?? '—'}</td>
                    <td>{r.actor}</td>
                    <td class="nowrap">
                      {r.from ? label(r.from) : 'created'} → {label(r.to)}
                    </td>
                    <td>{r.resolution ? label(r.resolution) : ''}</td>
                    <td class="note">{r.note ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedBody>
    </>
  );
}

/** Audit search: evaluation rows (the API's filters) or case and alert transitions, each exportable in one click. */
export function AuditSearch({ query }: { query: URLSearchParams }) {
  const tab = query.get('tab') === 'transitions' ? 'transitions' : 'evaluations';
  const fields = tab === 'transitions' ? TRANSITION_FIELDS : EVAL_FIELDS;
  const values: Record<string, string> = {};
  for (const [k] of fields) {
    const v = query.get(k);
    if (v) values[k] = v;
  }
  const key = `${tab}:${JSON.stringify(values)}`;
  return (
    <>
      <h1 tabIndex={-1}>Audit</h1>
      <div class="tabs" role="tablist" aria-label="Audit trail">
        <a role="tab" aria-selected={tab === 'evaluations'} href={href('/audit')}>
          Rule evaluations
        </a>
        <a role="tab" aria-selected={tab === 'transitions'} href={href('/audit', { tab: 'transitions' })}>
          Case and alert transitions
        </a>
      </div>
      <Filters
        key={key}
        fields={fields}
        values={values}
        onApply={(v) => navigate('/audit', { ...(tab === 'transitions' ? { tab } : {}), ...v })}
      />
      {tab === 'transitions' ? (
        <TransitionRows key={key} values={values} />
      ) : (
        <EvaluationRows key={key} values={values} />
      )}
    </>
  );
}
