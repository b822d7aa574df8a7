import { DATE_ONLY, isStorableInstant, parseIsoInstant } from '../../rules/facts.ts';

// A publication date comes as a date (the OFAC CSV set's, from the operator or the file date; the
// sdn.xml's Publish_Date) or as a date-time (UN "2026-02-27T00:00:09.554Z", EU
// "2025-10-01T10:00:00.000+02:00"). One list is held per source and an import may not roll it back
// to an older publication (services/sanctions-lists.service.ts), so the dates must compare.

/**
 * A publication date as stored and answered: a date alone stays YYYY-MM-DD, a date-time becomes
 * its UTC instant (…Z; the EU's offset converted, a time without a zone read as UTC); undefined
 * when it is no ISO 8601 date or lies outside the storable years.
 */
export function normalizePublishedAt(value: string): string | undefined {
  const v = value.trim();
  const at = parseIsoInstant(v);
  if (at === undefined || !isStorableInstant(at)) return undefined;
  return DATE_ONLY.test(v) ? v : at.toISOString();
}

/**
 * Whether publication `a` is older than `b`. Date-times compare as instants; a date alone says
 * nothing of the hour, so against it only the (UTC) day counts: the same day is no older. False
 * when either is unreadable (a list held before dates were checked): nothing to compare.
 */
export function publishedBefore(a: string, b: string): boolean {
  const x = parseIsoInstant(a.trim());
  const y = parseIsoInstant(b.trim());
  if (x === undefined || y === undefined) return false;
  if (DATE_ONLY.test(a.trim()) || DATE_ONLY.test(b.trim()))
    return x.toISOString().slice(0, 10) < y.toISOString().slice(0, 10);
  return x.getTime() < y.getTime();
}
