import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, getJson, type Page, withParam } from '../api.ts';
import { navigate } from '../router.ts';
import {
  asApiError,
  DataTable,
  Due,
  ErrorBox,
  Loading,
  Select,
  SeverityBadge,
  StatusBadge,
  useNow,
} from '../ui.tsx';

/** A cursor-paged listing: the first page for the given URL, then "Load more". */
export function usePaged<T>(url: string) {
  const [items, setItems] = useState<T[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  // The list's query as last loaded: a "Load more" answer for an earlier query (the filter changed
  // while it was on its way) is dropped rather than appended to the new list.
  const current = useRef(url);
  useEffect(() => {
    let live = true;
    current.current = url;
    setItems(null);
    setNext(null);
    setBusy(false);
    setError(undefined);
    getJson<Page<T>>(url).then(
      (p) => {
        if (!live) return;
        setItems(p.items);
        setNext(p.next_cursor);
      },
      (e) => live && setError(asApiError(e)),
    );
    return () => {
      live = false;
    };
  }, [url]);
  const more = async () => {
    if (!next || busy) return;
    const asked = url;
    setBusy(true);
    try {
      const p = await getJson<Page<T>>(withParam(url, 'cursor', next));
      if (current.current !== asked) return;
      setItems((old) => [...(old ?? []), ...p.items]);
      setNext(p.next_cursor);
    } catch (e) {
      if (current.current === asked) setError(asApiError(e));
    } finally {
      if (current.current === asked) setBusy(false);
    }
  };
  return { items, next, error, busy, more };
}

export function PagedBody<T>({
  paged,
  what,
  children,
}: {
  paged: ReturnType<typeof usePaged<T>>;
  what: string;
  children: (items: T[]) => ComponentChildren;
}) {
  if (paged.error) return <ErrorBox error={paged.error} title={`Could not load ${what}`} />;
  if (!paged.items) return <Loading what={what} />;
  if (paged.items.length === 0) return <p class="muted empty">No {what} match these filters.</p>;
  return (
    <>
      {children(paged.items)}
      <p class="muted">
        {paged.items.length} shown{paged.next ? ', more available' : ''}.{' '}
        {paged.next && (
          <button type="button" onClick={paged.more} disabled={paged.busy}>
            {paged.busy ? 'Loading…' : 'Load more'}
          </button>
        )}
      </p>
    </>
  );
}

/**
 * A queue's filters, read from and written to the URL: a filtered queue can be bookmarked or shared,
 * and Back undoes the last change. `keys` fixes the order of the query.
 */
export function useQueueFilters<K extends string>(path: string, query: URLSearchParams, keys: readonly K[]) {
  const values = {} as Record<K, string>;
  for (const k of keys) values[k] = query.get(k) ?? '';
  const set = (k: K, v: string) => navigate(path, { ...values, [k]: v });
  return { values, set };
}

/**
 * The filter bar of a work queue: the queue's own selects, then the deadline filter every queue has,
 * then `children` (extra buttons). Each select applies at once, so the form never submits.
 */
export function QueueFilters<K extends string>({
  label,
  selects,
  values,
  onChange,
  children,
}: {
  label: string;
  selects: ReadonlyArray<{ key: K; label: string; options: readonly string[] }>;
  values: Record<K | 'overdue', string>;
  onChange: (key: K | 'overdue', value: string) => void;
  children?: ComponentChildren;
}) {
  return (
    <form class="filters" aria-label={label} onSubmit={(e) => e.preventDefault()}>
      {selects.map((s) => (
        <Select
          key={s.key}
          id={`f-${s.key}`}
          label={s.label}
          value={values[s.key]}
          options={s.options}
          onChange={(v) => onChange(s.key, v)}
        />
      ))}
      <Select
        id="f-overdue"
        label="Deadline"
        value={values.overdue}
        options={['true', 'false']}
        onChange={(v) => onChange('overdue', v)}
      />
      {children}
      <p class="hint">Deadline: true = overdue only, false = not overdue. Sorted by due date.</p>
    </form>
  );
}

/** What every queue row has: the first four columns and the row's colouring come from these. */
interface QueueRow {
  id: string;
  severity?: string | null;
  status: string;
  due_at: string;
  overdue: boolean;
}

export interface QueueColumn<T> {
  head: string;
  cell: (row: T) => ComponentChildren;
  class?: string;
}

/**
 * A work queue's table: severity, the item's link, status and deadline first, as an officer triages,
 * then the queue's own columns. `final` says which statuses stop the deadline clock.
 */
export function QueueTable<T extends QueueRow>({
  caption,
  items,
  item,
  final,
  columns,
}: {
  caption: string;
  items: T[];
  item: QueueColumn<T>;
  final: (row: T) => boolean;
  columns: QueueColumn<T>[];
}) {
  const now = useNow();
  return (
    <DataTable
      class="queue"
      caption={caption}
      heads={['Severity', item.head, 'Status', 'Due', ...columns.map((c) => c.head)]}
    >
      {items.map((r) => (
        <tr key={r.id} class={`row-sev-${r.severity ?? 'none'} ${r.overdue ? 'row-overdue' : ''}`}>
          <td>
            <SeverityBadge severity={r.severity} />
          </td>
          <td>{item.cell(r)}</td>
          <td>
            <StatusBadge status={r.status} />
          </td>
          <td>
            <Due dueAt={r.due_at} final={final(r)} now={now} />
          </td>
          {columns.map((c) => (
            <td key={c.head} class={c.class}>
              {c.cell(r)}
            </td>
          ))}
        </tr>
      ))}
    </DataTable>
  );
}
