import { type Case, qs, type WhoAmI } from '../api.ts';
import { href, navigate } from '../router.ts';
import { Due, Select, SeverityBadge, StatusBadge, useNow } from '../ui.tsx';
import { PagedBody, usePaged } from './queue.tsx';

const STATUSES = ['open', 'investigating', 'pending_filing', 'closed'] as const;

/** The cases queue: soonest due first, filtered by status, assignee and overdue; severity shown per case. */
export function CasesQueue({ query, me }: { query: URLSearchParams; me: WhoAmI }) {
  const now = useNow();
  const f = {
    status: query.get('status') ?? '',
    assignee: query.get('assignee') ?? '',
    overdue: query.get('overdue') ?? '',
  };
  const set = (k: keyof typeof f, v: string) => navigate('/cases', { ...f, [k]: v });
  const paged = usePaged<Case>(`/api/console/cases${qs({ ...f, limit: 50 })}`);
  return (
    <>
      <h1 tabIndex={-1}>Cases</h1>
      <form class="filters" aria-label="Case filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          id="f-status"
          label="Status"
          value={f.status}
          options={STATUSES}
          onChange={(v) => set('status', v)}
        />
        <Select
          id="f-assignee"
          label="Assignee"
          value={f.assignee}
          options={me.officers}
          onChange={(v) => set('assignee', v)}
        />
        <Select
          id="f-overdue"
          label="Deadline"
          value={f.overdue}
          options={['true', 'false']}
          onChange={(v) => set('overdue', v)}
        />
        {me.officer && me.officers.includes(me.officer) && (
          <button type="button" onClick={() => set('assignee', me.officer ?? '')}>
            Assigned to me
          </button>
        )}
        <p class="hint">Deadline: true = overdue only, false = not overdue. Sorted by due date.</p>
      </form>
      <PagedBody paged={paged} what="cases">
        {(items) => (
          <div class="table-wrap">
            <table class="queue">
              <caption class="sr-only">Cases, soonest due first</caption>
              <thead>
                <tr>
                  <th scope="col">Severity</th>
                  <th scope="col">Case</th>
                  <th scope="col">Status</th>
                  <th scope="col">Due</th>
                  <th scope="col">Assignee</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {items.map((c) => (
                  <tr key={c.id} class={`row-sev-${c.severity ?? 'none'} ${c.overdue ? 'row-overdue' : ''}`}>
                    <td>
                      <SeverityBadge severity={c.severity} />
                    </td>
                    <td>
                      <a href={href(`/cases/${c.case_number}`)}>{c.case_number}</a>
                    </td>
                    <td>
                      <StatusBadge status={c.status} />
                    </td>
                    <td>
                      <Due dueAt={c.due_at} final={c.status === 'closed'} now={now} />
                    </td>
                    <td>{c.assignee ?? <span class="muted">unassigned</span>}</td>
                    <td class="reason">{c.reason}</td>
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
