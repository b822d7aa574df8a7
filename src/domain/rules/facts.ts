// Typed, never-throwing reads of an event's `data`. The HTTP layer validates types; here a value
// of the wrong JS type is simply absent, so odd data can neither crash nor mis-trigger a rule.

/** Read access to an event's data object by field name. */
export interface Facts {
  /** A finite number, else undefined. */
  num(key: string): number | undefined;
  /** A boolean, else undefined. */
  bool(key: string): boolean | undefined;
  /** A string, else undefined. */
  str(key: string): string | undefined;
  /** The raw value (own property only), for fields with a structured type. */
  raw(key: string): unknown;
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

/** Wraps arbitrary `data` (anything that is not a plain object reads as empty). */
export function readFacts(data: unknown): Facts {
  const obj: Readonly<Record<string, unknown>> =
    data !== null && typeof data === 'object' && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : EMPTY;
  // Own properties only: a prototype must not be able to supply evidence or facts.
  const raw = (key: string): unknown => (Object.hasOwn(obj, key) ? obj[key] : undefined);
  return {
    raw,
    num(key) {
      const v = raw(key);
      return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
    },
    bool(key) {
      const v = raw(key);
      return typeof v === 'boolean' ? v : undefined;
    },
    str(key) {
      const v = raw(key);
      return typeof v === 'string' ? v : undefined;
    },
  };
}

/**
 * Whether an instant can be stored and compared in the database: years 0001–9999 in UTC. PostgreSQL
 * refuses year 0000 written in ISO 8601 ("date/time field value out of range") and Date writes years
 * past 9999 with six digits; an offset can move an instant written in range out of it.
 */
export function isStorableInstant(d: Date): boolean {
  const year = d.getUTCFullYear();
  return year >= 1 && year <= 9999;
}

/** A date alone (YYYY-MM-DD), its parts captured: a day of the client's calendar, not an instant. */
export const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The request schema's format of the rules' date fields (registered with Ajv in http/validation.ts). */
export const DATE_OR_TIME_FORMAT = 'iso-date-or-zoned-date-time';
export const DATE_OR_TIME_REASON =
  'Must be an ISO 8601 date (YYYY-MM-DD) or date-time with a zone (Z or ±hh:mm)';

/**
 * What the API accepts in a rule's date field: exactly what parseIsoInstant reads, as a date alone
 * or a date-time with its zone (a time without one is ambiguous, so it is refused at the door).
 */
export function isDateOrZonedDateTime(s: string): boolean {
  const t = s.trim();
  return parseIsoInstant(t) !== undefined && (DATE_ONLY.test(t) || /(?:z|[+-]\d{2}(?::?\d{2})?)$/i.test(t));
}

/** What a refused out-of-range instant is told. */
export const STORABLE_INSTANT_RANGE = 'Must lie between 0001-01-01 and 9999-12-31 (UTC)';

// Every form the request schema's date-time format lets through must be read here: an hour-only
// offset (+01) and any number of fraction digits included. A value the API accepted but the rules
// could not read would count as absent, and MICA-RPT-002 would not flag a late STR.
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * Parses an ISO 8601 date or date-time; undefined when malformed or not a real calendar time.
 * A value without an offset is read as UTC (the service's timestamps are UTC), never as the
 * process's local time, which would make the engine depend on where it runs.
 */
export function parseIsoInstant(s: string): Date | undefined {
  const m = ISO_8601.exec(s.trim());
  if (m === null) return undefined;
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(sec);
  // A leap second (:60, as RFC 3339 allows at the end of a minute) is read as that minute's last
  // millisecond: Date has no leap seconds, and the value must not be ignored as unreadable.
  const leap = second === 60 && minute === 59;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || (second > 59 && !leap))
    return undefined;
  const ms = leap ? 999 : Number(frac.padEnd(3, '0').slice(0, 3));
  // setUTCFullYear, not Date.UTC, which maps years 0–99 to 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  // A rolled-over date (31 April → 1 May) is not the date written.
  if (date.getUTCDate() !== day) return undefined;
  date.setUTCHours(hour, minute, leap ? 59 : second, ms);
  const wall = date.getTime();
  let offsetMin = 0;
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    const oh = Number(digits.slice(1, 3));
    const om = Number(digits.slice(3, 5));
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (digits[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const t = wall - offsetMin * 60_000;
  return Number.isFinite(t) && Math.abs(t) <= 8.64e15 ? new Date(t) : undefined;
}

/**
 * Rounds a sum of amounts to a nano-euro, so that sums like 999.99 + 0.01 (1000.0000000000001 or
 * 999.9999999999999 in binary floating point, depending on the pair) compare as the 1000 they are.
 * The binary error of such sums is some 1e-13 near the thresholds; a nano-euro is far above it,
 * and far below any amount written in cents or even micro-euros (a micro-euro rounding made
 * 0.0000001 + 999.9999994 reach 1000). Only sums are rounded: a single amount is compared as given.
 */
export function roundMoney(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}
