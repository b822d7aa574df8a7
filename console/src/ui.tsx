import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, download, type HistoryEntry } from './api.ts';
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

/**
 * True when the keyboard focus is nowhere in particular: on the page itself, or on a control just
 * removed or disabled (the browser then starts the next Tab from the top of the page).
 */
export function focusLost(): boolean {
  const a = document.activeElement;
  return !a || a === document.body || !a.isConnected || (a as HTMLButtonElement).disabled === true;
}

/**
 * `takeFocus`: the box takes the keyboard focus when it appears and the focus has been lost, as when
 * the form whose submission was refused has gone (the item changed meanwhile).
 */
export function ErrorBox({
  error,
  title = 'Something went wrong',
  takeFocus = false,
}: {
  error: ApiError;
  title?: string;
  takeFocus?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (takeFocus && focusLost()) ref.current?.focus();
  }, []);
  return (
    <div class="error" role="alert" ref={ref} tabIndex={takeFocus ? -1 : undefined}>
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

/** Who made a move: the key's id (or a part of the service), and the person named for it. */
export function actorText(h: { actor: string; actor_name: string | null }) {
  // The name is the caller's X-Actor text: isolated, so a right-to-left override in it cannot
  // reverse the text around it ("(café (live" for "café ‮ evil").
  return h.actor_name ? (
    <>
      <bdi>{h.actor}</bdi> (<bdi>{h.actor_name}</bdi>)
    </>
  ) : (
    <bdi>{h.actor}</bdi>
  );
}

/** A history table: when, what, who, the move and its note; oldest first. */
export function HistoryTable({ lines }: { lines: HistoryLine[] }) {
  if (lines.length === 0) return <p class="muted">No history yet.</p>;
  return (
    <DataTable heads={['When', 'Item', 'Actor', 'Move', 'Note']}>
      {lines.map((h, i) => (
        <tr key={`${h.item}-${h.at}-${i}`}>
          <td class="nowrap" title={h.at}>
            {when(h.at)}
          </td>
          <td>{h.item}</td>
          <td>{actorText(h)}</td>
          <td class="nowrap">
            {h.from ? label(h.from) : 'created'} → {label(h.to)}
          </td>
          <td class="note">{h.note ?? ''}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/**
 * Every listing's frame: scrolls sideways on narrow screens instead of squeezing columns, and heads each
 * column with scope="col" so a screen reader announces the head with each cell. The rows are the caller's.
 */
export function DataTable({
  heads,
  caption,
  class: cls,
  children,
}: {
  heads: readonly string[];
  /** For screen readers only: what the rows are and in which order. */
  caption?: string;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table class={cls}>
        {caption && <caption class="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {heads.map((h) => (
              <th scope="col" key={h}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A control with its label above it; the id ties the two, so the label names the control and a click on it focuses it. */
export function Field({
  id,
  label: text,
  inline = false,
  children,
}: {
  id: string;
  label: string;
  /** Label beside the control, for a lone control in a panel's head. */
  inline?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class={inline ? 'field inline' : 'field'}>
      <label for={id}>{text}</label>
      {children}
    </div>
  );
}

/** One term and its value in a `<dl class="facts">`. */
export function Fact({
  term,
  testId,
  children,
}: {
  term: string;
  testId?: string;
  children: ComponentChildren;
}) {
  return (
    <>
      <dt>{term}</dt>
      <dd data-testid={testId}>{children}</dd>
    </>
  );
}

/** A detail screen that could not load: the heading stays, so the officer still sees what they asked for. */
export function LoadFailed({ heading, noun, error }: { heading: string; noun: string; error: ApiError }) {
  return (
    <>
      <h1 tabIndex={-1}>{heading}</h1>
      <ErrorBox
        error={error}
        title={
          error.status === 404
            ? `No such ${noun}${noun === 'page' ? '' : ' for this client'}`
            : `Could not load the ${noun}`
        }
      />
    </>
  );
}

const ID_NOUNS: Record<string, string> = { cases: 'case', alerts: 'alert', evaluations: 'evaluation' };

/**
 * An address that cannot name anything: a path segment with a broken %-escape (#/cases/%E0%A4%A). Said
 * as an unknown id is, without asking the service.
 */
export function NotFound({ what, malformed }: { what: string | undefined; malformed: string }) {
  const noun = (what && ID_NOUNS[what]) ?? 'page';
  const name = `${noun[0]?.toUpperCase()}${noun.slice(1)} ${malformed}`;
  return (
    <LoadFailed
      heading={noun === 'page' ? 'Not found' : name}
      noun={noun}
      error={
        new ApiError(
          404,
          'NOT_FOUND',
          `${name} not found: the address is not a valid link (“${malformed}” is a broken %-escape).`,
        )
      }
    />
  );
}

/**
 * A request started from a form or button: `busy` while it runs (to disable the button), and its
 * failure kept for an ErrorBox. `describe` may reword an error for the screen it is shown on.
 */
export function useAction() {
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<void>, describe: (e: ApiError) => ApiError = (e) => e) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(describe(asApiError(err)));
    } finally {
      setBusy(false);
    }
  };
  return { error, setError, busy, run };
}

/** What the last action on a screen did; `n` tells two equal texts apart. */
export interface Outcome {
  text: string;
  n: number;
}

export function useOutcome(): [Outcome | undefined, (text: string) => void] {
  const [outcome, setOutcome] = useState<Outcome>();
  const say = useCallback((text: string) => setOutcome((o) => ({ text, n: (o?.n ?? 0) + 1 })), []);
  return [outcome, say];
}

/**
 * What the last move or reassignment did, in a polite live region (a screen reader says it), and
 * holding the keyboard focus afterwards: the control used (a move's Confirm, the Reassign button) is
 * gone or disabled once the action is done, and the next Tab would otherwise start at the top of the
 * page. The focus is moved only from the panel the action was made in, or from nowhere.
 */
export function ActionOutcome({ outcome }: { outcome: Outcome | undefined }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!outcome || !el) return;
    const active = document.activeElement;
    if (focusLost() || (active && el.closest('section')?.contains(active))) el.focus();
  }, [outcome?.n]);
  // Always in the page (empty until an action is done): a live region must exist before it speaks.
  return (
    <p ref={ref} class="action-outcome" role="status" tabIndex={-1} data-testid="action-outcome">
      {outcome?.text ?? ''}
    </p>
  );
}

export type ExportFormat = 'csv' | 'json';

/**
 * Downloads of an export. A failed download is kept, not thrown: the screen shows it where it fits,
 * beside the buttons or above the table that was exported.
 */
export function useDownload(): [ApiError | undefined, (url: string, fileName: string) => void] {
  const [error, setError] = useState<ApiError>();
  const run = (url: string, fileName: string) => {
    download(url, fileName).catch((e) => setError(asApiError(e)));
  };
  return [error, run];
}

/** The CSV and JSON export buttons; `what` names the export when the screen shows more than one thing. */
export function ExportButtons({
  what,
  onExport,
}: {
  what?: string;
  onExport: (format: ExportFormat) => void;
}) {
  const name = what ? `${what} ` : '';
  return (
    <>
      <button type="button" onClick={() => onExport('csv')}>
        {`Export ${name}CSV`}
      </button>
      <button type="button" onClick={() => onExport('json')}>
        {`Export ${name}JSON`}
      </button>
    </>
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
    <Field id={id} label={text}>
      <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {any !== null && <option value="">{any}</option>}
        {options.map((o) => (
          <option key={o} value={o}>
            {label(o)}
          </option>
        ))}
      </select>
    </Field>
  );
}
