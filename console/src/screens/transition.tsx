import { useState } from 'preact/hooks';
import {
  allowedTransitions,
  type ItemKind,
  resolutionsFor,
} from '../../../src/domain/cases/state-machines.ts';
import { postJson } from '../api.ts';
import { label } from '../format.ts';
import { asApiError, ErrorBox, Field, useAction } from '../ui.tsx';

/**
 * The moves the state machine allows from the current status (the service's own table, bundled),
 * one button each; a move asks for a note, and for a resolution where the state machine needs one.
 */
export function TransitionPanel({
  kind,
  url,
  status,
  onDone,
}: {
  kind: ItemKind;
  url: string;
  status: string;
  onDone: () => void;
}) {
  const allowed = allowedTransitions(kind, status);
  const [to, setTo] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const [resolution, setResolution] = useState('');
  const { error, setError, busy, run } = useAction();
  // A move refused because someone else finished the item first (409) leaves it here: the refusal
  // is still shown, so the officer knows their move and note were not recorded.
  if (allowed.length === 0)
    return (
      <>
        <p class="muted">
          This {kind} is {label(status)}: no further move is possible.
        </p>
        {error && <ErrorBox error={error} title="The move was refused" />}
      </>
    );
  const resolutions = to ? resolutionsFor(kind, to) : [];
  const choose = (t: string) => {
    setTo(t);
    setError(undefined);
    setResolution('');
    window.setTimeout(() => document.getElementById('move-note')?.focus(), 0);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    if (!to) return;
    void run(async () => {
      try {
        await postJson(url, { to, note: note.trim(), ...(resolutions.length ? { resolution } : {}) });
      } catch (err) {
        // Refused because someone else moved it first (409): show the state it is in now, and the
        // moves allowed from there, under the refusal.
        if (asApiError(err).status === 409) onDone();
        throw err;
      }
      setTo(null);
      setNote('');
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
      {!open && error && <ErrorBox error={error} title="The move was refused" />}
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
          {error && <ErrorBox error={error} title="The move was refused" />}
          <div class="buttons">
            <button
              type="submit"
              class="primary"
              disabled={busy || !note.trim() || (resolutions.length > 0 && !resolution)}
            >
              {busy ? 'Saving…' : `Confirm: ${label(status)} → ${label(to)}`}
            </button>
            <button type="button" onClick={() => setTo(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
