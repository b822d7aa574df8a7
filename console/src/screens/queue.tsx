import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, getJson, type Page } from '../api.ts';
import { asApiError, ErrorBox, Loading } from '../ui.tsx';

/** A cursor-paged listing: the first page for the given URL, then "Load more". */
export function usePaged<T>(url: string) {
  const [items, setItems] = useState<T[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    setItems(null);
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
    if (!next) return;
    setBusy(true);
    try {
      const sep = url.includes('?') ? '&' : '?';
      const p = await getJson<Page<T>>(`${url}${sep}cursor=${encodeURIComponent(next)}`);
      setItems((old) => [...(old ?? []), ...p.items]);
      setNext(p.next_cursor);
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
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
