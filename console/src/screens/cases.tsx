import { type Case, qs, type WhoAmI } from '../api.ts';
import { SEVERITIES } from '../format.ts';
import { href } from '../router.ts';
import { PagedBody, QueueFilters, QueueTable, usePaged, useQueueFilters } from './queue.tsx';

const STATUSES = ['open', 'investigating', 'pending_filing', 'closed'] as const;

/**
 * The cases queue: soonest due first, filtered by status, severity (the highest of the case's alerts
 * and evaluation, as shown per case), assignee and overdue.
 */
export function CasesQueue({ query, me }: { query: URLSearchParams; me: WhoAmI }) {
  const { values, set } = useQueueFilters('/cases', query, ['status', 'severity', 'assignee', 'overdue']);
  const paged = usePaged<Case>(`/api/console/cases${qs({ ...values, limit: 50 })}`);
  return (
    <>
      <h1 tabIndex={-1}>Cases</h1>
      <QueueFilters
        label="Case filters"
        selects={[
          { key: 'status', label: 'Status', options: STATUSES },
          { key: 'severity', label: 'Severity', options: SEVERITIES },
          { key: 'assignee', label: 'Assignee', options: me.officers },
        ]}
        values={values}
        onChange={set}
      >
        {me.officer && me.officers.includes(me.officer) && (
          <button type="button" onClick={() => set('assignee', me.officer ?? '')}>
            Assigned to me
          </button>
        )}
      </QueueFilters>
      <PagedBody paged={paged} what="cases">
        {(items) => (
          <QueueTable
            caption="Cases, soonest due first"
            items={items}
            item={{
              head: 'Case',
              cell: (c) => <a href={href(`/cases/${c.case_number}`)}>{c.case_number}</a>,
            }}
            final={(c) => c.status === 'closed'}
            columns={[
              { head: 'Assignee', cell: (c) => c.assignee ?? <span class="muted">unassigned</span> },
              { head: 'Reason', cell: (c) => c.reason, class: 'reason' },
            ]}
          />
        )}
      </PagedBody>
    </>
  );
}
