import { type Alert, qs } from '../api.ts';
import { SEVERITIES, shortId, sourceText } from '../format.ts';
import { href } from '../router.ts';
import { PagedBody, QueueFilters, QueueTable, usePaged, useQueueFilters } from './queue.tsx';

const STATUSES = ['open', 'acknowledged', 'escalated', 'closed'] as const;
const FINAL = new Set(['escalated', 'closed']);

/** The alerts queue: soonest due first, filtered by status, severity and overdue. */
export function AlertsQueue({ query }: { query: URLSearchParams }) {
  const { values, set } = useQueueFilters('/alerts', query, ['status', 'severity', 'overdue']);
  const paged = usePaged<Alert>(`/api/alerts${qs({ ...values, limit: 50 })}`);
  return (
    <>
      <h1 tabIndex={-1}>Alerts</h1>
      <QueueFilters
        label="Alert filters"
        selects={[
          { key: 'status', label: 'Status', options: STATUSES },
          { key: 'severity', label: 'Severity', options: SEVERITIES },
        ]}
        values={values}
        onChange={set}
      />
      <PagedBody paged={paged} what="alerts">
        {(items) => (
          <QueueTable
            caption="Alerts, soonest due first"
            items={items}
            item={{ head: 'Alert', cell: (a) => <a href={href(`/alerts/${a.id}`)}>Alert {shortId(a.id)}</a> }}
            final={(a) => FINAL.has(a.status)}
            columns={[
              { head: 'Source / event', cell: sourceText },
              { head: 'Customer', cell: (a) => a.customer_id ?? '—' },
              {
                head: 'Case',
                cell: (a) => (a.case_id ? <a href={href(`/cases/${a.case_id}`)}>view case</a> : '—'),
              },
            ]}
          />
        )}
      </PagedBody>
    </>
  );
}
