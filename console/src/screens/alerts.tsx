import { type Alert, qs } from '../api.ts';
import { SEVERITIES, shortId } from '../format.ts';
import { href, navigate } from '../router.ts';
import { Due, Select, SeverityBadge, StatusBadge, useNow } from '../ui.tsx';
import { PagedBody, usePaged } from './queue.tsx';

const STATUSES = ['open', 'acknowledged', 'escalated', 'closed'] as const;
const FINAL = new Set(['escalated', 'closed']);

/** The alerts queue: soonest due first, filtered by status, severity and overdue. */
export function AlertsQueue({ query }: { query: URLSearchParams }) {
  const now = useNow();
  const f = {
    status: query.get('status') ?? '',
    severity: query.get('severity') ?? '',
    overdue: query.get('overdue') ?? '',
  };
  const set = (k: keyof typeof f, v: string) => navigate('/alerts', { ...f, [k]: v });
  const paged = usePaged<Alert>(`/api/alerts${qs({ ...f, limit: 50 })}`);
  return (
    <>
      <h1 tabIndex={-1}>Alerts</h1>
      <form class="filters" aria-label="Alert filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          id="f-status"
          label="Status"
          value={f.status}
          options={STATUSES}
          onChange={(v) => set('status', v)}
        />
        <Select
          id="f-severity"
          label="Severity"
          value={f.severity}
          options={SEVERITIES}
          onChange={(v) => set('severity', v)}
        />
        <Select
          id="f-overdue"
          label="Deadline"
          value={f.overdue}
          options={['true', 'false']}
          onChange={(v) => set('overdue', v)}
        />
        <p class="hint">Deadline: true = overdue only, false = not overdue. Sorted by due date.</p>
      </form>
      <PagedBody paged={paged} what="alerts">
        {(items) => (
          <div class="table-wrap">
            <table class="queue">
              <caption class="sr-only">Alerts, soonest due first</caption>
              <thead>
                <tr>
                  <th scope="col">Severity</th>
                  <th scope="col">Alert</th>
                  <th scope="col">Status</th>
                  <th scope="col">Due</th>
                  <th scope="col">Source / event</th>
                  <th scope="col">Customer</th>
                  <th scope="col">Case</th>
                </tr>
              </thead>
              <tbody>
                {items.map((a) => (
                  <tr key={a.id} class={`row-sev-${a.severity} ${a.overdue ? 'row-overdue' : ''}`}>
                    <td>
                      <SeverityBadge severity={a.severity} />
                    </td>
                    <td>
                      <a href={href(`/alerts/${a.id}`)}>Alert {shortId(a.id)}</a>
                    </td>
                    <td>
                      <StatusBadge status={a.status} />
                    </td>
                    <td>
                      <Due dueAt={a.due_at} final={FINAL.has(a.status)} now={now} />
                    </td>
                    <td>
                      {a.source}
                      {a.event ? ` · ${a.event}` : ''}
                    </td>
                    <td>{a.customer_id ?? '—'}</td>
                    <td>{a.case_id ? <a href={href(`/cases/${a.case_id}`)}>open case</a> : '—'}</td>
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
