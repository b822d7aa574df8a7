import { isOverdue } from '../domain/cases/due-dates.ts';
import type { HistoryEntry, ItemKind, TransitionResult } from '../domain/cases/state-machines.ts';
import { AppError, fieldError } from '../errors.ts';
import type { After, AlertRow, CaseRow } from '../storage/alerts-cases.repo.ts';
import { isCursorTime, readCursor, writeCursor } from './cursor.ts';
import { RawJson } from './raw-json.ts';

// The wire forms of the alerts and cases API (CONTRACT §5): item shapes, cursors, refusals.

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** ISO 8601 UTC of a timestamp column. */
export const iso = (d: Date | string) => new Date(d).toISOString();

/** Opaque to callers: the (due_at, id) of the last item of a page. */
export function encodeCursor(a: After): string {
  return writeCursor([a.dueAt, a.id]);
}

/** The position a cursor names; a 400 for anything this API did not hand out. */
export function decodeCursor(s: string): After {
  const [dueAt, id] = readCursor<[string, string]>(
    s,
    (v) =>
      Array.isArray(v) && v.length === 2 && isCursorTime(v[0]) && typeof v[1] === 'string' && UUID.test(v[1]),
  );
  return { dueAt: new Date(dueAt).toISOString(), id };
}

/** History entries as the API shows them: `actor_name` is null in entries written without it. */
function historyOf(stored: unknown): Array<HistoryEntry & { actor_name: string | null }> {
  return (stored as HistoryEntry[]).map((e) => ({
    at: e.at,
    actor: e.actor,
    actor_name: e.actor_name ?? null,
    from: e.from,
    to: e.to,
    note: e.note,
  }));
}

/** An alert as the API shows it. */
export function alertView(r: AlertRow, now: Date) {
  return {
    id: r.id,
    status: r.status,
    resolution: r.resolution,
    severity: r.severity,
    source: r.source,
    event: r.event,
    vendor_object_id: r.vendor_object_id,
    customer_id: r.customer_id,
    transaction_id: r.transaction_id,
    evaluation_id: r.evaluation_id,
    case_id: r.case_id,
    due_at: iso(r.due_at),
    overdue: isOverdue(new Date(r.due_at), now, r.status),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    // The body as delivered, written into the response unparsed (cases.routes: stringifyWithRaw).
    payload: r.payload === null ? null : new RawJson(r.payload),
    history: historyOf(r.history),
  };
}

/** A case as the API shows it. */
export function caseView(r: CaseRow, alertIds: string[], now: Date) {
  return {
    id: r.id,
    case_number: r.case_number,
    status: r.status,
    resolution: r.resolution,
    reason: r.reason,
    assignee: r.assignee,
    rule_ids: r.rule_ids,
    alert_ids: alertIds,
    evaluation_id: r.evaluation_id,
    due_at: iso(r.due_at),
    overdue: isOverdue(new Date(r.due_at), now, r.status),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    history: historyOf(r.history),
  };
}
export type AlertView = ReturnType<typeof alertView>;
export type CaseView = ReturnType<typeof caseView>;

/** The 409 / 400 of a refused move (CONTRACT §5), listing what is allowed. */
export function refusal(
  kind: ItemKind,
  from: string,
  to: string,
  r: Exclude<TransitionResult<ItemKind>, { ok: true }>,
) {
  if (r.error === 'INVALID_TRANSITION')
    return new AppError(
      'INVALID_TRANSITION',
      `${kind === 'alert' ? 'An' : 'A'} ${kind} cannot move from ${from} to ${to}`,
      {
        from,
        to,
        allowed: r.allowed,
      },
    );
  const reason =
    r.error === 'RESOLUTION_REQUIRED'
      ? `Required when moving to ${to} (one of: ${r.allowed.join(', ')})`
      : r.allowed.length > 0
        ? `Must be one of: ${r.allowed.join(', ')}`
        : `Not accepted when moving to ${to}`;
  return fieldError('resolution', reason, { allowed: r.allowed });
}
