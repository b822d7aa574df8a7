import { useEffect, useState } from 'preact/hooks';
import {
  type ApiError,
  type Case,
  type CasePage,
  type CatalogueRule,
  getJson,
  postJson,
  qs,
  type WhoAmI,
} from '../api.ts';
import { shortId, sourceText, stateText, when } from '../format.ts';
import { href } from '../router.ts';
import {
  asApiError,
  Due,
  ErrorBox,
  ExportButtons,
  Fact,
  Field,
  type HistoryLine,
  HistoryTable,
  Json,
  LoadFailed,
  Loading,
  Section,
  SeverityBadge,
  StatusBadge,
  useAction,
  useDownload,
  useNow,
} from '../ui.tsx';
import { TransitionPanel } from './transition.tsx';
import { TriggeredRules } from './triggered.tsx';

type CaseState =
  | { state: 'loading' }
  | { state: 'error'; error: ApiError }
  /** `refreshError`: the last reload failed; the case is shown as it was last loaded. */
  | { state: 'ready'; forId: string; data: CasePage; refreshError?: ApiError };

/**
 * The case page in one request (GET /api/console/cases/{id}: the case, its first 100 alerts, their
 * evaluations), so opening and reloading a case costs one request of the client's rate limit, not
 * one per alert. A reload that fails after a move keeps the case on screen with the error beside it.
 */
function useCasePage(id: string): [CaseState, () => void] {
  const [value, setValue] = useState<CaseState>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setValue((v) => (v.state === 'ready' && v.forId === id ? v : { state: 'loading' }));
    getJson<CasePage>(`/api/console/cases/${encodeURIComponent(id)}`).then(
      (data) => live && setValue({ state: 'ready', forId: id, data }),
      (e) =>
        live &&
        setValue((v) =>
          v.state === 'ready' && v.forId === id
            ? { ...v, refreshError: asApiError(e) }
            : { state: 'error', error: asApiError(e) },
        ),
    );
    return () => {
      live = false;
    };
  }, [id, tick]);
  return [value, () => setTick((n) => n + 1)];
}

function Reassign({ c, me, onDone }: { c: Case; me: WhoAmI; onDone: () => void }) {
  const [officer, setOfficer] = useState(c.assignee ?? '');
  const { error, busy, run } = useAction();
  // Closed meanwhile (409): no reassignment any more, but the refusal is still said.
  if (c.status === 'closed') return error ? <ErrorBox error={error} title="Reassignment refused" /> : null;
  if (me.officers.length === 0)
    return <p class="muted">No compliance officers are registered for this client.</p>;
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      try {
        await postJson(`/api/cases/${c.id}/assign`, { officer });
      } catch (err) {
        // Closed or reassigned meanwhile (409): show the case as it is now, under the refusal.
        if (asApiError(err).status === 409) onDone();
        throw err;
      }
      onDone();
    });
  };
  return (
    <form class="inline-form" onSubmit={submit} aria-label="Reassign">
      <Field id="assignee" label="Assignee">
        <select
          id="assignee"
          value={officer}
          onChange={(e) => setOfficer((e.target as HTMLSelectElement).value)}
        >
          {!c.assignee && <option value="">unassigned</option>}
          {me.officers.map((o) => (
            <option key={o} value={o}>
              {o}
              {o === me.officer ? ' (me)' : ''}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" disabled={busy || !officer || officer === c.assignee}>
        {busy ? 'Saving…' : 'Reassign'}
      </button>
      {error && <ErrorBox error={error} title="Reassignment refused" />}
    </form>
  );
}

/** One case: its facts, deadline, moves, assignment, alerts with their payloads, triggered rules and history. */
export function CaseDetail({ id, me, onChange }: { id: string; me: WhoAmI; onChange: () => void }) {
  const now = useNow();
  const [loaded, reload] = useCasePage(id);
  const [exportError, exportAs] = useDownload();
  if (loaded.state === 'loading') return <Loading what="the case" />;
  if (loaded.state === 'error') return <LoadFailed heading={`Case ${id}`} noun="case" error={loaded.error} />;
  const { case: c, alerts, alerts_total, evaluations, rule_articles } = loaded.data;
  // The triggered-rules table reads a rule's article from the catalogue.
  const catalogue = new Map(
    Object.entries(rule_articles).map(([rule, article]) => [rule, { id: rule, article } as CatalogueRule]),
  );
  const done = () => {
    reload();
    onChange();
  };
  // The service's: the highest of all its alerts (not only those shown) and its evaluation.
  const severity = c.severity ?? undefined;
  const history: HistoryLine[] = [
    ...c.history.map((h) => ({ ...h, item: c.case_number })),
    ...alerts.flatMap((a) => a.history.map((h) => ({ ...h, item: `alert ${shortId(a.id)}` }))),
  ].sort((a, b) => a.at.localeCompare(b.at));
  return (
    <>
      <h1 tabIndex={-1}>
        {c.case_number} <StatusBadge status={c.status} /> <SeverityBadge severity={severity} />
      </h1>
      {loaded.refreshError && (
        <div class="refresh-failed" data-testid="refresh-failed">
          <ErrorBox
            error={loaded.refreshError}
            title="Could not refresh the case; it is shown as last loaded"
          />
          <button type="button" onClick={reload}>
            Retry
          </button>
        </div>
      )}
      <div class="grid">
        <Section title="Case">
          <dl class="facts">
            <Fact term="State" testId="case-status">
              {stateText(c.status, c.resolution)}
            </Fact>
            <Fact term="Due">
              <Due dueAt={c.due_at} final={c.status === 'closed'} now={now} />
            </Fact>
            <Fact term="Assignee">{c.assignee ?? 'unassigned'}</Fact>
            <Fact term="Opened">{when(c.created_at)}</Fact>
            <Fact term="Reason">{c.reason}</Fact>
            <Fact term="Rules">{c.rule_ids.length ? c.rule_ids.join(', ') : '—'}</Fact>
          </dl>
        </Section>
        <Section title="Actions">
          <TransitionPanel
            kind="case"
            url={`/api/cases/${c.id}/transition`}
            status={c.status}
            onDone={done}
          />
          <Reassign c={c} me={me} onDone={done} />
          {me.officer ? (
            <p class="hint">Actions are recorded as {me.officer}.</p>
          ) : (
            <p class="hint">This key carries no officer name: actions are recorded under the key id only.</p>
          )}
        </Section>
      </div>
      <Section
        title={
          alerts_total > alerts.length
            ? `Linked alerts (the first ${alerts.length} of ${alerts_total})`
            : `Linked alerts (${alerts.length})`
        }
      >
        {alerts.length === 0 ? (
          <p class="muted">No alert is linked to this case.</p>
        ) : (
          alerts.map((a) => (
            <article key={a.id} class={`alert-card row-sev-${a.severity}`}>
              <h3>
                <a href={href(`/alerts/${a.id}`)}>Alert {shortId(a.id)}</a>{' '}
                <SeverityBadge severity={a.severity} /> <StatusBadge status={a.status} />
              </h3>
              <p>
                {sourceText(a)} · customer {a.customer_id ?? '—'} · transaction {a.transaction_id ?? '—'} ·
                vendor object {a.vendor_object_id ?? '—'}
              </p>
              {a.payload !== null && a.payload !== undefined && (
                <details>
                  <summary>Raw vendor payload</summary>
                  <Json value={a.payload} label={`Payload of alert ${a.id}`} />
                </details>
              )}
            </article>
          ))
        )}
      </Section>
      <Section title="Evaluations and triggered rules">
        {evaluations.length === 0 ? (
          <p class="muted">No evaluation is linked (the case came from a vendor webhook).</p>
        ) : (
          evaluations.map((e) => (
            <TriggeredRules key={e.evaluation_id} evaluation={e} catalogue={catalogue} />
          ))
        )}
      </Section>
      <Section
        title="History"
        actions={
          <ExportButtons
            what="history"
            onExport={(format) =>
              exportAs(
                `/api/mica/audit/transitions${qs({ case_id: c.id, format })}`,
                `${c.case_number}-history.${format}`,
              )
            }
          />
        }
      >
        {exportError && <ErrorBox error={exportError} title="Export failed" />}
        <HistoryTable lines={history} />
      </Section>
    </>
  );
}
