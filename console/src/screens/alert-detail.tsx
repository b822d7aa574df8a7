import type { Alert, CatalogueRule, EvaluationResponse } from '../api.ts';
import { getJson } from '../api.ts';
import { shortId, sourceText, stateText, when } from '../format.ts';
import { href } from '../router.ts';
import {
  ActionOutcome,
  Due,
  Fact,
  HistoryTable,
  Json,
  LoadFailed,
  Loading,
  Section,
  SeverityBadge,
  StatusBadge,
  useLoad,
  useNow,
  useOutcome,
} from '../ui.tsx';
import { TransitionPanel } from './transition.tsx';
import { TriggeredRules } from './triggered.tsx';

async function loadAlert(id: string) {
  const a = await getJson<Alert>(`/api/alerts/${encodeURIComponent(id)}`);
  const [evaluation, rules] = await Promise.all([
    a.evaluation_id
      ? getJson<EvaluationResponse>(`/api/mica/evaluations/${a.evaluation_id}`)
      : Promise.resolve(null),
    getJson<{ items: CatalogueRule[] }>('/api/mica/rules'),
  ]);
  return { a, evaluation, catalogue: new Map(rules.items.map((r) => [r.id, r])) };
}

/** One alert: facts, deadline, moves (escalating opens a case), payload, triggered rules, history. */
export function AlertDetail({ id, onChange }: { id: string; onChange: () => void }) {
  const now = useNow();
  const [loaded, reload] = useLoad(() => loadAlert(id), [id]);
  const [outcome, announce] = useOutcome();
  if (loaded.state === 'loading') return <Loading what="the alert" />;
  if (loaded.state === 'error')
    return <LoadFailed heading={`Alert ${id}`} noun="alert" error={loaded.error} />;
  const { a, evaluation, catalogue } = loaded.data;
  const final = a.status === 'closed' || a.status === 'escalated';
  return (
    <>
      <h1 tabIndex={-1}>
        Alert {shortId(a.id)} <StatusBadge status={a.status} /> <SeverityBadge severity={a.severity} />
      </h1>
      <div class="grid">
        <Section title="Alert">
          <dl class="facts">
            <Fact term="State">{stateText(a.status, a.resolution)}</Fact>
            <Fact term="Due">
              <Due dueAt={a.due_at} final={final} now={now} />
            </Fact>
            <Fact term="Source">{sourceText(a)}</Fact>
            <Fact term="Customer">{a.customer_id ?? '—'}</Fact>
            <Fact term="Transaction">{a.transaction_id ?? '—'}</Fact>
            <Fact term="Received">{when(a.created_at)}</Fact>
            <Fact term="Case">
              {a.case_id ? <a href={href(`/cases/${a.case_id}`)}>view the case</a> : 'none'}
            </Fact>
          </dl>
        </Section>
        <Section title="Actions">
          <ActionOutcome outcome={outcome} />
          <TransitionPanel
            kind="alert"
            url={`/api/alerts/${a.id}/transition`}
            status={a.status}
            onDone={() => {
              reload();
              onChange();
            }}
            announce={announce}
          />
        </Section>
      </div>
      {evaluation && (
        <Section title="Triggered rules">
          <TriggeredRules evaluation={evaluation} catalogue={catalogue} />
        </Section>
      )}
      {a.payload !== null && a.payload !== undefined && (
        <Section title="Raw vendor payload">
          <Json value={a.payload} label="Raw vendor payload" />
        </Section>
      )}
      <Section title="History">
        <HistoryTable lines={a.history.map((h) => ({ ...h, item: `alert ${shortId(a.id)}` }))} />
      </Section>
    </>
  );
}
