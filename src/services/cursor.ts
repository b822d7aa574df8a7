import { isStorableInstant, parseIsoInstant } from '../domain/rules/facts.ts';
import { fieldError } from '../errors.ts';
import { isStorable } from '../storage/storable.ts';

// The cursors of every list (CONTRACT §9): the last item's sort position as base64url JSON, opaque
// to the caller. A cursor comes back from the caller, so everything in it is checked before it
// reaches a query: a forged or mangled one is the caller's 400, never the database's error.

/** A cursor as handed out. */
export function writeCursor(c: unknown): string {
  return Buffer.from(JSON.stringify(c), 'utf8').toString('base64url');
}

/** A cursor handed back: decoded, and accepted only if `valid` says it has the listing's shape. */
export function readCursor<T>(s: string, valid: (c: T) => boolean): T {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as T;
    if (c !== null && typeof c === 'object' && valid(c)) return c;
  } catch {
    /* reported below */
  }
  throw fieldError('cursor', 'Not a cursor from this API');
}

/**
 * A time as cursors carry it: ISO 8601 (`…T…Z`) or PostgreSQL's text of a timestamptz
 * (`2026-11-26 08:00:00.123456+00`), of a date that exists in years 1–9999 (what both the
 * database and Date take; 2026-02-30 or year 275760 would fail the query).
 */
const CURSOR_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2})(?::?(\d{2}))?)$/;

export function isCursorTime(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  const m = CURSOR_TIME.exec(v);
  if (m === null) return false;
  // An offset PostgreSQL takes: hours up to 15, minutes up to 59 (+16:00 is its error, not ours).
  if (m[7] !== undefined && (Number(m[7]) > 15 || Number(m[8] ?? 0) > 59)) return false;
  const d = parseIsoInstant(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return d !== undefined && isStorableInstant(d);
}

/** A position within an item (a rule's, an action's, a history entry's): a small whole number. */
export const isCursorCount = (v: unknown): v is number =>
  Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) < 2 ** 31;

/** An id as cursors carry it: text the database can take. */
export const isCursorText = (v: unknown): v is string =>
  typeof v === 'string' && v.length <= 256 && isStorable(v);
