import { useState } from 'preact/hooks';
import {
  allowedTransitions,
  type ItemKind,
  resolutionsFor,
} from '../../../src/domain/cases/state-machines.ts';
import { type EscalationTargets, getJson, postJson } from '../api.ts';
import { label, when } from '../format.ts';
import { asApiError, ErrorBox, Field, useAction, useLoad } from '../ui.tsx';

/** The alert a transition URL moves (`/api/alerts/{id}/transition`), if it is one. */
function alertOf(url: string): string | undefined {
  return /^\/api\/alerts\/([^/?#]+)\/transition$/.exec(url)?.[1];
}

/**
 * Escalating an alert: where it goes. Without a choice the alert stays in the open case it is in,
 * else a new case is opened (CONTRACT §5); or it joins an open case of the client chosen here
 * (`case_id`). What will happen is said before the move is confirmed.
 */
function EscalationChoice({
  alertId,
  caseId,
  onChange,
}: {
  alertId: string;
  caseId: string;
  onChange: (caseId: string) => void;
}) {
  const [loaded] = useLoad(
    () => getJson<EscalationTargets>(`/api/console/alerts/${encodeURIComponent(alertId)}/escalation`),
    [alertId],
  );
  if (loaded.state === 'loading') return <p class="muted">Loading the open cases…</p>;
  if (loaded.state === 'error')
    return (
      <>
        <ErrorBox error={loaded.error} title="Could not load the open cases" />
        <p class="hint" data-testid="escalation-outcome">
          Escalating opens a new case, unless the alert is already in an open case, where it stays.
        </p>
      </>
    );
  const t = loaded.data;
  const current = t.case?.open ? t.case : null;
  const others = t.open_cases.filter((c) => c.id !== current?.id);
  const chosen = others.find((c) => c.id === caseId);
  let outcome: string;
  if (chosen) outcome = `The alert will join ${chosen.case_number}; no new case is opened.`;
  else if (current) outcome = `The alert stays in its case ${current.case_number}; no new case is opened.`;
  else
    outcome = `A new case will be opened for this alert${t.case ? ` (its case ${t.case.case_number} is closed)` : ''}.`;
  return (
    <>
      <Field id="move-case" label="Case">
        <select
          id="move-case"
          value={chosen ? chosen.id : ''}
          onChange={(e) => onChange((e.target as HTMLSelectElement).value)}
        >
          <option value="">{current ? `Keep it in ${current.case_number}` : 'Open a new case'}</option>
          {others.map((c) => (
            <option key={c.id} value={c.id}>
              Join {c.case_number} ({label(c.status)}, {c.assignee ?? 'unassigned'}, due {when(c.due_at)})
            </option>
          ))}
        </select>
      </Field>
      {t.open_cases_not_shown > 0 && (
        <p class="hint">
          The {t.open_cases.length} soonest due of {t.open_cases.length + t.open_cases_not_shown} open cases
          are listed.
        </p>
      )}
      <p class="hint" data-testid="escalation-outcome" aria-live="polite">
        {outcome}
      </p>
    </>
  );
}

/**
 * The moves the state machine allows from the current status (the service's own table, bundled),
 * one button each; a move asks for a note, and for a resolution where the state machine needs one.
 * `announce` says a recorded move (the screen's ActionOutcome, which then holds the focus).
 */
export function TransitionPanel({
  kind,
  url,
  status,
  onDone,
  announce,
}: {
  kind: ItemKind;
  url: string;
  status: string;
  onDone: () => void;
  announce: (text: string) => void;
}) {
  const allowed = allowedTransitions(kind, status);
  const [to, setTo] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const [resolution, setResolution] = useState('');
  const [joinCase, setJoinCase] = useState('');
  const { error, setError, busy, run } = useAction();
  // A move refused because someone else finished the item first (409) leaves it here: the refusal
  // is still shown, so the officer knows their move and note were not recorded.
  if (allowed.length === 0)
    return (
      <>
        <p class="muted">
          This {kind} is {label(status)}: no further move is possible.
        </p>
        {error && <ErrorBox error={error} title={moveErrorTitle(error)} takeFocus />}
      </>
    );
  const resolutions = to ? resolutionsFor(kind, to) : [];
  const alertId = kind === 'alert' && to === 'escalated' ? alertOf(url) : undefined;
  const choose = (t: string) => {
    setTo(t);
    setError(undefined);
    setResolution('');
    setJoinCase('');
    window.setTimeout(() => document.getElementById('move-note')?.focus(), 0);
  };
  // The form goes: the focus goes back to the move's button, not to the top of the page.
  const cancel = () => {
    const was = to;
    setTo(null);
    window.setTimeout(() => document.querySelector<HTMLElement>(`[data-move="${was}"]`)?.focus(), 0);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    if (!to || busy) return;
    const from = status;
    void run(async () => {
      try {
        await postJson(url, {
          // The status shown: moved meanwhile (another tab, a colleague), the item is not moved
          // from a status this officer never saw; the 409 below shows it as it is now.
          from,
          to,
          note: note.trim(),
          ...(resolutions.length ? { resolution } : {}),
          ...(alertId && joinCase ? { case_id: joinCase } : {}),
        });
      } catch (err) {
        // Refused because someone else moved it first (409): show the state it is in now, and the
        // moves allowed from there, under the refusal.
        if (asApiError(err).status === 409) onDone();
        throw err;
      }
      setTo(null);
      setNote('');
      setJoinCase('');
      announce(`Moved from ${label(from)} to ${label(to)}; your note is in the history.`);
      onDone();
    });
  };
  // After such a reload the chosen move may no longer be offered: the form closes, the refusal stays.
  const open = to !== null && (allowed as readonly string[]).includes(to);
  return (
    <div class="transition">
      <fieldset class="buttons">
        <legend class="sr-only">Move this {kind}</legend>
        {allowed.map((t) => (
          <button
            type="button"
            key={t}
            class={to === t ? 'primary' : ''}
            aria-pressed={to === t}
            data-move={t}
            onClick={() => choose(t)}
          >
            Move to {label(t)}
          </button>
        ))}
      </fieldset>
      {!open && error && <ErrorBox error={error} title={moveErrorTitle(error)} takeFocus />}
      {open && to && (
        <form class="move-form" onSubmit={submit} aria-label={`Move to ${label(to)}`}>
          <Field id="move-note" label="Note (required)">
            <textarea
              id="move-note"
              rows={3}
              maxLength={2000}
              required
              value={note}
              onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)}
            />
          </Field>
          {resolutions.length > 0 && (
            <Field id="move-resolution" label="Resolution (required)">
              <select
                id="move-resolution"
                required
                value={resolution}
                onChange={(e) => setResolution((e.target as HTMLSelectElement).value)}
              >
                <option value="">Choose…</option>
                {resolutions.map((r) => (
                  <option key={r} value={r}>
                    {label(r)}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {alertId && <EscalationChoice alertId={alertId} caseId={joinCase} onChange={setJoinCase} />}
          {error && <ErrorBox error={error} title={moveErrorTitle(error)} />}
          <div class="buttons">
            {/* Not disabled while saving: a disabled button drops the keyboard focus (to the top of the page). */}
            <button
              type="submit"
              class="primary"
              aria-disabled={busy ? 'true' : undefined}
              disabled={!note.trim() || (resolutions.length > 0 && !resolution)}
            >
              {busy ? 'Saving…' : `Confirm: ${label(status)} → ${label(to)}`}
            </button>
            <button type="button" onClick={cancel}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

/**
 * A 4xx refusal is the move's; a 503 or 429 is the service saying it did nothing. Anything else (the
 * network, a proxy's 502/504, a 500) may have come after the move was made: reload to see (a retry
 * is safe, the move names the status it was made from).
 */
function moveErrorTitle(error: { status: number }): string {
  if (error.status === 503 || error.status === 429) return 'The move was not made';
  if (error.status >= 400 && error.status < 500) return 'The move was refused';
  return 'The move may not have been made: reload to see its status';
}
