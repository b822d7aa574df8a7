import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, type HistoryEntry } from './api.ts';
import { label, timeLeft, when } from './format.ts';

/** The current time, refreshed every 30 s so that "time left" stays true while the page is open. */
export function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), 30_000);
    return () => window.clearInterval(t);
  }, []);
  return now;
}

export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'error'; error: ApiError }
  | { state: 'ready'; data: T };

/** Runs a load whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Loaded<T>, () => void] {
  const [value, setValue] = useState<Loaded<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setValue((v) => (v.state === 'ready' ? v : { state: 'loading' }));
    load().then(
      (data) => live && setValue({ state: 'ready', data }),
      (e) => live && setValue({ state: 'error', error: asApiError(e) }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return [value, reload];
}

export function asApiError(e: unknown): ApiError {
  return e instanceof ApiError ? e : new ApiError(0, 'ERROR', e instanceof Error ? e.message : String(e));
}

export function SeverityBadge({ severity }: { severity: string | null | undefined }) {
  if (!severity) return <span class="badge sev-none">no severity</span>;
  return <span class={`badge sev-${severity}`}>{severity}</span>;
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status status-${status}`}>{label(status)}</span>;
}

/** The due date with the time left, or how long it is overdue. */
export function Due({ dueAt, final, now }: { dueAt: string; final: boolean; now: number }) {
  const t = timeLeft(dueAt, now, final);
  return (
    <span class={`due due-${t.tone}`} title={`Due ${new Date(dueAt).toISOString()} (UTC)`}>
      <span class="due-left">{t.text}</span>
      <span class="due-at">{when(dueAt)}</span>
    </span>
  );
}

export function ErrorBox({ error, title = 'Something went wrong' }: { error: ApiError; title?: string }) {
  return (
    <div class="error" role="alert">
      <strong>{title}.</strong> {error.message}
      {error.details?.errors && error.details.errors.length > 1 && (
        <ul>
          {error.details.errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Json({ value, label: name }: { value: unknown; label: string }) {
  return (
    <pre class="json" title={name}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

export function Section({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  const id = `s-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section class="panel" aria-labelledby={id}>
      <div class="panel-head">
        <h2 id={id}>{title}</h2>
        {actions && <div class="panel-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

export interface HistoryLine extends HistoryEntry {
  item: string;
}

/** A history table: when, what, who, the move and its note; oldest first. */
export function HistoryTable({ lines }: { lines: HistoryLine[] }) {
  if (lines.length === 0) return <p class="muted">No history yet.</p>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Item</th>
            <th scope="col">Actor</th>
            <th scope="col">Move</th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((h, i) => (
            <tr key={`${h.item}-${h.at}-${i}`}>
              <td class="nowrap" title={h.at}>
                {when(h.at)}
              </td>
              <td>{h.item}</td>
              <td>{h.actor}</td>
              <td class="nowrap">
                {h.from ? label(h.from) : 'created'} → {label(h.to)}
              </td>
              <td class="note">{h.note ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A labelled select of fixed options, with "any" first. */
export function Select({
  id,
  label: text,
  value,
  options,
  onChange,
  any = 'Any',
}: {
  id: string;
  label: string;
  value: string;
  options: readonly string[];
  onChange: (v: string) => void;
  any?: string | null;
}) {
  return (
    <div class="field">
      <label for={id}>{text}</label>
      <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {any !== null && <option value="">{any}</option>}
        {options.map((o) => (
          <option key={o} value={o}>
            {label(o)}
          </option>
        ))}
      </select>
    </div>
  );
}
