import type { VNode } from 'preact';
import { useState } from 'preact/hooks';
import { type AuditRow, qs, type TransitionRow, withParam } from '../api.ts';
import { label, localOffset, localZone, readBound, shortId, when } from '../format.ts';
import { href, navigate } from '../router.ts';
import { actorText, DataTable, ErrorBox, ExportButtons, Field, SeverityBadge, useDownload } from '../ui.tsx';
import { PagedBody, usePaged } from './queue.tsx';
import { Conditions } from './triggered.tsx';

const EVAL_FIELDS = [
  ['from', 'From'],
  ['to', 'To (exclusive)'],
  ['rule_id', 'Rule'],
  ['customer_id', 'Customer'],
  ['transaction_id', 'Transaction'],
  ['evaluation_id', 'Evaluation'],
] as const;
const TRANSITION_FIELDS = [
  ['from', 'From'],
  ['to', 'To (exclusive)'],
  ['case_id', 'Case (id or number)'],
] as const;

const BOUNDS = new Set(['from', 'to']);

/**
 * The search form. From and To are days in the officer's time zone, the one the rows are shown in:
 * applied, each becomes the instant its day starts there, with its offset (2026-11-26 in Los Angeles
 * is 2026-11-26T00:00:00-08:00), which is what the address keeps and the service is sent. A bound the
 * address holds that is not the start of a local day (a link made in another time zone) is kept as it
 * is while its day is left unchanged.
 */
function Filters({
  fields,
  values,
  onApply,
}: {
  fields: ReadonlyArray<readonly [string, string]>;
  values: Record<string, string>;
  onApply: (v: Record<string, string>) => void;
}) {
  const shown = (k: string) => (BOUNDS.has(k) && values[k] ? readBound(values[k]).day : (values[k] ?? ''));
  const [draft, setDraft] = useState(() => Object.fromEntries(fields.map(([k]) => [k, shown(k)])));
  const zone = localZone();
  return (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        const applied: Record<string, string> = {};
        for (const [k] of fields) {
          const v = draft[k] ?? '';
          if (!v) continue;
          if (!BOUNDS.has(k)) applied[k] = v;
          else if (values[k] && v === shown(k)) applied[k] = values[k];
          else applied[k] = readBound(v).instant;
        }
        onApply(applied);
      }}
    >
      {fields.map(([k, text]) => {
        const onInput = (e: Event) =>
          setDraft({ ...draft, [k]: (e.target as HTMLInputElement).value.trim() });
        return (
          <Field id={`a-${k}`} label={text} key={k}>
            {BOUNDS.has(k) ? (
              <input
                id={`a-${k}`}
                type="date"
                value={draft[k] ?? ''}
                aria-describedby="a-zone"
                onInput={onInput}
              />
            ) : (
              <input id={`a-${k}`} value={draft[k] ?? ''} onInput={onInput} />
            )}
          </Field>
        );
      })}
      <button type="submit" class="primary">
        Search
      </button>
      <p class="hint" id="a-zone" data-testid="audit-zone">
        Dates are days in your time zone, {zone} (UTC{localOffset(new Date())} now), as the rows are shown: a
        search runs from the start of its From day to the start of its To day.
      </p>
    </form>
  );
}

/** The exact span searched, in the reader's time, when the search has a bound. */
function SearchedSpan({ values }: { values: Record<string, string> }) {
  if (!values.from && !values.to) return null;
  const at = (v: string | undefined) => {
    const b = v ? readBound(v) : undefined;
    return b?.date ? when(b.date.toISOString()) : b?.instant;
  };
  const from = at(values.from);
  const to = at(values.to);
  return (
    <p class="hint" data-testid="audit-span">
      {from && to
        ? `Rows from ${from} up to ${to} (not included).`
        : from
          ? `Rows from ${from} on.`
          : `Rows before ${to}.`}
    </p>
  );
}

/**
 * One audit listing: its export buttons (the same filters, every page, as a file), then the rows a page
 * at a time. Only the columns and the row differ between the evaluation and the transition trails.
 */
function AuditRows<T>({
  path,
  values,
  file,
  what,
  heads,
  row,
}: {
  path: string;
  values: Record<string, string>;
  /** The download's name when the server gives none. */
  file: string;
  what: string;
  heads: readonly string[];
  row: (r: T, i: number) => VNode;
}) {
  // The service is sent each bound as the instant it stands for (a day alone would be its UTC midnight).
  const sent = { ...values };
  for (const k of BOUNDS) if (values[k]) sent[k] = readBound(values[k]).instant;
  const url = `${path}${qs(sent)}`;
  const paged = usePaged<T>(withParam(url, 'limit', 100));
  const [exportError, exportAs] = useDownload();
  return (
    <>
      <SearchedSpan values={values} />
      <div class="buttons">
        <ExportButtons
          onExport={(format) => exportAs(withParam(url, 'format', format), `${file}.${format}`)}
        />
        {exportError && <ErrorBox error={exportError} title="Export failed" />}
      </div>
      <PagedBody paged={paged} what={what}>
        {(items) => <DataTable heads={heads}>{items.map(row)}</DataTable>}
      </PagedBody>
    </>
  );
}

const EVAL_HEADS = [
  'Evaluated',
  'Evaluation',
  'Rule',
  'Result',
  'Severity',
  'Trigger',
  'Customer',
  'Conditions',
  'Evaluator',
];

function EvaluationRows({ values }: { values: Record<string, string> }) {
  return (
    <AuditRows<AuditRow>
      path="/api/mica/audit/evaluations"
      values={values}
      file="audit-evaluations"
      what="audit rows"
      heads={EVAL_HEADS}
      row={(r) => (
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
      )}
    />
  );
}

const TRANSITION_HEADS = ['When', 'Item', 'Case', 'Actor', 'Move', 'Resolution', 'Note'];

function TransitionRows({ values }: { values: Record<string, string> }) {
  return (
    <AuditRows<TransitionRow>
      path="/api/mica/audit/transitions"
      values={values}
      file="audit-transitions"
      what="transitions"
      heads={TRANSITION_HEADS}
      row={(r, i) => (
        <tr key={`${r.item_id}-${r.at}-${i}`}>
          <td class="nowrap">{when(r.at)}</td>
          <td>
            <a href={href(`/${r.kind === 'case' ? 'cases' : 'alerts'}/${r.item_id}`)}>
              {r.kind} {shortId(r.item_id)}
            </a>
          </td>
          <td>{r.case_number ?? '—'}</td>
          <td>{actorText(r)}</td>
          <td class="nowrap">
            {r.from ? label(r.from) : 'created'} → {label(r.to)}
          </td>
          <td>{r.resolution ? label(r.resolution) : ''}</td>
          <td class="note">{r.note ?? ''}</td>
        </tr>
      )}
    />
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
