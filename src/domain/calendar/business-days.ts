// Business-day arithmetic in a client's IANA time zone (CONTRACT §5): Saturdays, Sundays and the
// holidays reported by `isHoliday` are skipped. Used for STR deadlines and case / alert due dates.

export interface BusinessDayOptions {
  timeZone: string;
  /** Holiday test on a local calendar date `YYYY-MM-DD`. */
  isHoliday?: (isoDate: string) => boolean;
}

interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

// A run of holidays longer than this is a broken holiday source, not a calendar.
const MAX_CONSECUTIVE_NON_BUSINESS_DAYS = 366;

// Intl.DateTimeFormat construction is expensive; one formatter per zone is enough.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let fmt = formatters.get(timeZone);
  if (fmt === undefined) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, fmt);
  }
  return fmt;
}

function assertValidDate(d: Date, what: string): void {
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) {
    throw new RangeError(`${what} must be a valid Date`);
  }
}

// formatToParts costs microseconds and every evaluation that opens a case or alert asks for "now"
// in the client's zone: the last second asked per zone is remembered. UTC offsets change only on
// whole seconds, so the wall time within one UTC second is the remembered one plus the milliseconds.
const lastSecond = new Map<string, { second: number; local: LocalDateTime }>();

function localDateTime(instant: Date, timeZone: string): LocalDateTime {
  const ms = instant.getTime();
  const second = Math.floor(ms / 1000);
  const millisecond = ms - second * 1000;
  const cached = lastSecond.get(timeZone);
  if (cached?.second === second) return { ...cached.local, millisecond };
  const parts: Record<string, number> = {};
  for (const p of formatterFor(timeZone).formatToParts(instant)) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const local = {
    year: parts.year ?? 0,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    // Some engines still print midnight as 24 despite h23.
    hour: (parts.hour ?? 0) % 24,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
    millisecond,
  };
  if (lastSecond.size > 64 && !lastSecond.has(timeZone)) lastSecond.clear();
  lastSecond.set(timeZone, { second, local });
  return { ...local };
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function isoDateOf(year: number, month: number, day: number): string {
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/** The calendar date `YYYY-MM-DD` of an instant in the given IANA time zone. */
export function localIsoDate(instant: Date, timeZone: string): string {
  assertValidDate(instant, 'instant');
  const l = localDateTime(instant, timeZone);
  return isoDateOf(l.year, l.month, l.day);
}

/** Whether a local calendar date `YYYY-MM-DD` is a business day (not a weekend, not a holiday). */
export function isBusinessDate(isoDate: string, isHoliday?: (isoDate: string) => boolean): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (m === null) throw new RangeError(`not a YYYY-MM-DD date: ${isoDate}`);
  const weekday = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return isHoliday === undefined || !isHoliday(isoDate);
}

/** Whether the instant falls on a business day of the time zone given. */
export function isBusinessDay(instant: Date, opts: BusinessDayOptions): boolean {
  return isBusinessDate(localIsoDate(instant, opts.timeZone), opts.isHoliday);
}

// The zone's offset (local minus UTC, in ms) at an instant.
function offsetAt(utcMs: number, timeZone: string): number {
  const l = localDateTime(new Date(utcMs), timeZone);
  const asUtc = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second, l.millisecond);
  return asUtc - utcMs;
}

// Local wall time → instant. Like Temporal's 'compatible' disambiguation: a wall time repeated by
// a fall-back change takes the earlier instant, one skipped by a spring-forward gap the later.
// The candidates are the wall time read with the offsets a day before and a day after it, so both
// sides of a change are tried (offsets read at the wall time itself both fell after a fall-back at
// midnight, and the earlier of the two passes was never found: Africa/Cairo, 2027-10-28 23:30).
function instantOfLocal(l: LocalDateTime, timeZone: string): Date {
  const wall = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second, l.millisecond);
  const candidates = [
    wall - offsetAt(wall - 86_400_000, timeZone),
    wall - offsetAt(wall + 86_400_000, timeZone),
  ];
  const exact = candidates.filter((c) => c + offsetAt(c, timeZone) === wall);
  return new Date(exact.length > 0 ? Math.min(...exact) : Math.max(...candidates));
}

/**
 * The first instant of a calendar date in a zone (its local midnight, or the first existing time
 * of that date where a clock change skips midnight). A date written without a time is a day of the
 * client's calendar, not of UTC's: for a client west of UTC, UTC midnight is the evening before.
 */
export function startOfLocalDate(year: number, month: number, day: number, timeZone: string): Date {
  return instantOfLocal({ year, month, day, hour: 0, minute: 0, second: 0, millisecond: 0 }, timeZone);
}

// Every evaluation that opens a case or a low alert asks for a due date from "now": ~16 µs of
// formatToParts each (micro-benchmark, 2-core machine), about half of an evaluation's own work.
// The answer for the last UTC second asked per zone, n and holiday test is remembered; within one
// second the result moves with the start millisecond for millisecond, since the local time of day
// is kept and UTC offsets change only on whole seconds.
const lastAnswer = new Map<
  string,
  { isHoliday: BusinessDayOptions['isHoliday']; second: number; dueAtSecondMs: number }
>();

/**
 * Adds n business days: steps calendar days in the zone until n business days have passed and
 * keeps the start's local time of day. n = 0 returns the start.
 */
export function addBusinessDays(start: Date, n: number, opts: BusinessDayOptions): Date {
  assertValidDate(start, 'start');
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
  if (n === 0) return new Date(start.getTime());
  const ms = start.getTime();
  const second = Math.floor(ms / 1000);
  const key = `${opts.timeZone}\u0000${n}`;
  const known = lastAnswer.get(key);
  if (known !== undefined && known.second === second && known.isHoliday === opts.isHoliday)
    return new Date(known.dueAtSecondMs + (ms - second * 1000));
  const due = addBusinessDaysUncached(new Date(second * 1000), n, opts);
  if (lastAnswer.size > 256 && known === undefined) lastAnswer.clear();
  lastAnswer.set(key, { isHoliday: opts.isHoliday, second, dueAtSecondMs: due.getTime() });
  return new Date(due.getTime() + (ms - second * 1000));
}

/** addBusinessDays without the memory of the last second (exported for its property test). */
export function addBusinessDaysUncached(start: Date, n: number, opts: BusinessDayOptions): Date {
  assertValidDate(start, 'start');
  if (n === 0) return new Date(start.getTime());
  const local = localDateTime(start, opts.timeZone);
  // Walk the local calendar with a UTC-noon cursor: calendar-day steps, free of DST effects.
  const cursor = new Date(Date.UTC(local.year, local.month - 1, local.day, 12));
  let counted = 0;
  let skippedInARow = 0;
  while (counted < n) {
    cursor.setUTCDate(cursor.getUTCDate() + 1);
    const iso = isoDateOf(cursor.getUTCFullYear(), cursor.getUTCMonth() + 1, cursor.getUTCDate());
    if (isBusinessDate(iso, opts.isHoliday)) {
      counted += 1;
      skippedInARow = 0;
    } else if (++skippedInARow > MAX_CONSECUTIVE_NON_BUSINESS_DAYS) {
      throw new RangeError('no business day within a year: check the holiday source');
    }
  }
  return instantOfLocal(
    {
      ...local,
      year: cursor.getUTCFullYear(),
      month: cursor.getUTCMonth() + 1,
      day: cursor.getUTCDate(),
    },
    opts.timeZone,
  );
}
