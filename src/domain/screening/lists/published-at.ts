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

/** How far from UTC a calendar day may lie: it begins at UTC+14 and ends at UTC−12. */
const DAY_STARTS_BEFORE_UTC_MS = 14 * 3_600_000;
const DAY_ENDS_AFTER_UTC_MS = (24 + 12) * 3_600_000;

/**
 * Whether publication `a` is older than `b`. Date-times compare as instants, dates as days. A date
 * alone says nothing of the hour nor of the time zone it was written in: against a date-time it is
 * older only when its day had ended everywhere (UTC−12) by that instant, and the date-time is older
 * only when it came before the day began anywhere (UTC+14). So an EU 2025-10-02T01:30+02:00 (a
 * Brussels 2 October, 1 October in UTC) is no older than a held 2025-10-02. False when either is
 * unreadable (a list held before dates were checked): nothing to compare.
 */
export function publishedBefore(a: string, b: string): boolean {
  const x = parseIsoInstant(a.trim());
  const y = parseIsoInstant(b.trim());
  if (x === undefined || y === undefined) return false;
  const aDay = DATE_ONLY.test(a.trim());
  const bDay = DATE_ONLY.test(b.trim());
  if (aDay && bDay) return x.getTime() < y.getTime();
  if (aDay) return x.getTime() + DAY_ENDS_AFTER_UTC_MS <= y.getTime();
  if (bDay) return x.getTime() < y.getTime() - DAY_STARTS_BEFORE_UTC_MS;
  return x.getTime() < y.getTime();
}

/**
 * How far ahead of the importing host's clock a publication date may lie: clocks set apart (the
 * publisher's, ours) and a date alone read in the wrong zone, not a list from the future.
 */
export const FUTURE_TOLERANCE_MS = 24 * 3_600_000;

/**
 * Whether a publication date lies after `now` by more than the tolerance: a date-time by its
 * instant, a date alone by when its day began first (UTC+14). No list is published later than it
 * is imported, and one held with a date to come would refuse every genuine later import as a
 * roll-back. False when the date cannot be read (the caller refuses that on its own).
 */
export function publishedAfter(value: string, now: number, toleranceMs = FUTURE_TOLERANCE_MS): boolean {
  const at = parseIsoInstant(value.trim());
  if (at === undefined) return false;
  const earliest = DATE_ONLY.test(value.trim()) ? at.getTime() - DAY_STARTS_BEFORE_UTC_MS : at.getTime();
  return earliest > now + toleranceMs;
}
