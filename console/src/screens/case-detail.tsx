import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  type ApiError,
  type Case,
  type CasePage,
  type CatalogueRule,
  getJson,
  type Page,
  postJson,
  qs,
  type TransitionRow,
  type WhoAmI,
} from '../api.ts';
import { shortId, sourceText, stateText, when } from '../format.ts';
import { href } from '../router.ts';
import {
  ActionOutcome,
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
  useOutcome,
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

type RestState =
  | { state: 'none' }
  | { state: 'loading'; count: number }
  | { state: 'error'; count: number; error: ApiError }
  | { state: 'ready'; lines: HistoryLine[] };

/**
 * The history of the linked alerts the case page leaves out (it carries the first 100 in full): read
 * from the case's transitions, page by page, each time the page is loaded. Only a case with more
 * alerts than the page carries costs these requests.
 */
function useOtherAlertsHistory(page: CasePage | undefined): [RestState, () => void] {
  const [value, setValue] = useState<RestState>({ state: 'none' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!page || page.alerts_not_shown === 0) {
      setValue((v) => (v.state === 'none' ? v : { state: 'none' }));
      return;
    }
    const shown = new Set(page.alerts.map((a) => a.id));
    const rest = new Set(page.case.alert_ids.filter((id) => !shown.has(id)));
    let live = true;
    setValue((v) => (v.state === 'ready' ? v : { state: 'loading', count: rest.size }));
    (async () => {
      const lines: HistoryLine[] = [];
      let cursor: string | null = null;
      do {
        const url = `/api/mica/audit/transitions${qs({ case_id: page.case.id, kind: 'alert', limit: 1000, cursor })}`;
        const res: Page<TransitionRow> = await getJson<Page<TransitionRow>>(url);
        for (const r of res.items)
          if (rest.has(r.item_id))
            lines.push({
              at: r.at,
              actor: r.actor,
              actor_name: r.actor_name,
              from: r.from,
              to: r.to,
              note: r.note,
              item: `alert ${shortId(r.item_id)}`,
            });
        cursor = res.next_cursor;
      } while (cursor && live);
      return lines;
    })().then(
      (lines) => live && setValue({ state: 'ready', lines }),
      (e) => live && setValue({ state: 'error', count: rest.size, error: asApiError(e) }),
    );
    return () => {
      live = false;
    };
  }, [page, tick]);
  return [value, () => setTick((n) => n + 1)];
}

function Reassign({
  c,
  me,
  onDone,
  announce,
}: {
  c: Case;
  me: WhoAmI;
  onDone: () => void;
  announce: (text: string) => void;
}) {
  const [officer, setOfficer] = useState(c.assignee ?? '');
  const { error, busy, run } = useAction();
  // Closed meanwhile (409): no reassignment any more, but the refusal is still said.
  if (c.status === 'closed')
    return error ? <ErrorBox error={error} title="Reassignment refused" takeFocus /> : null;
  if (me.officers.length === 0)
    return <p class="muted">No compliance officers are registered for this client.</p>;
  const submit = (e: Event) => {
    e.preventDefault();
    if (busy) return;
    void run(async () => {
      try {
        await postJson(`/api/cases/${c.id}/assign`, { officer });
      } catch (err) {
        // Closed or reassigned meanwhile (409): show the case as it is now, under the refusal.
        if (asApiError(err).status === 409) onDone();
        throw err;
      }
      announce(`Reassigned to ${officer}.`);
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
      {/* Not disabled while saving: a disabled button drops the keyboard focus (to the top of the page). */}
      <button
        type="submit"
        aria-disabled={busy ? 'true' : undefined}
        disabled={!officer || officer === c.assignee}
      >
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
  const [outcome, announce] = useOutcome();
  const [rest, retryRest] = useOtherAlertsHistory(loaded.state === 'ready' ? loaded.data : undefined);
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
    ...(rest.state === 'ready' ? rest.lines : []),
  ].sort((a, b) => a.at.localeCompare(b.at));
  const shownIds = new Set(alerts.map((a) => a.id));
  const otherIds = c.alert_ids.filter((a) => !shownIds.has(a));
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
          <ActionOutcome outcome={outcome} />
          <TransitionPanel
            kind="case"
            url={`/api/cases/${c.id}/transition`}
            status={c.status}
            onDone={done}
            announce={announce}
          />
          <Reassign c={c} me={me} onDone={done} announce={announce} />
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
        {otherIds.length > 0 && (
          <p data-testid="other-alerts">
            The other {otherIds.length}, each with its payload on its own page:{' '}
            {otherIds.map((a, i) => (
              <Fragment key={a}>
                {i > 0 && ', '}
                <a href={href(`/alerts/${a}`)}>alert {shortId(a)}</a>
              </Fragment>
            ))}
            .
          </p>
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
        {rest.state === 'loading' && (
          <p class="muted" aria-live="polite">
            Loading the history of the other {rest.count} alerts…
          </p>
        )}
        {rest.state === 'error' && (
          <div class="refresh-failed">
            <ErrorBox
              error={rest.error}
              title={`Could not load the history of the other ${rest.count} alerts: their entries are left out below; the export holds them`}
            />
            <button type="button" onClick={retryRest}>
              Retry
            </button>
          </div>
        )}
        <HistoryTable lines={history} />
      </Section>
    </>
  );
}
