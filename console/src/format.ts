// How times and deadlines read to an officer: absolute in their local time, plus what is left.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function span(ms: number): string {
  const d = Math.floor(ms / DAY);
  const h = Math.floor((ms % DAY) / HOUR);
  const m = Math.floor((ms % HOUR) / MINUTE);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  return `${Math.max(m, 0)}m`;
}

/** "3d 4h left", "overdue by 2h 5m", or "closed" when no deadline runs any more. */
export function timeLeft(dueAt: string, now: number, final: boolean): { text: string; tone: string } {
  if (final) return { text: 'no deadline (final)', tone: 'done' };
  const diff = new Date(dueAt).getTime() - now;
  if (diff < 0) return { text: `overdue by ${span(-diff)}`, tone: 'overdue' };
  if (diff < 4 * HOUR) return { text: `${span(diff)} left`, tone: 'soon' };
  return { text: `${span(diff)} left`, tone: 'ok' };
}

// The zone is written with every time: an officer in Berlin reading a deadline set for a client in
// UTC must not have to guess which clock it is on.
const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});

/** A timestamp in the reader's local time, with its zone ("Dec 03, 2026, 06:50 PM GMT+1"). */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

export function shortId(id: string): string {
  return id.slice(0, 8);
}

export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;

/** Status words as people say them. */
export function label(status: string): string {
  return status.replaceAll('_', ' ');
}

/** A status with its resolution, if any: "closed (false positive)". */
export function stateText(status: string, resolution: string | null | undefined): string {
  return `${label(status)}${resolution ? ` (${label(resolution)})` : ''}`;
}

/** Where an alert came from: the source, and the vendor's event when there is one. */
export function sourceText(a: { source: string; event: string | null }): string {
  return `${a.source}${a.event ? ` · ${a.event}` : ''}`;
}

// Audit searches take days in the officer's own time zone, the one every row is shown in; the
// service reads a date alone as its UTC midnight, so each day is sent as the exact instant it starts.

/** The reader's IANA time zone ("Europe/Berlin"), as the browser reports it. */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'the browser’s time zone';
}

const two = (n: number) => String(n).padStart(2, '0');

/** A Date's offset from UTC in the reader's zone at that instant: "+01:00", "-08:00". */
export function localOffset(d: Date): string {
  const minutes = -Math.round(d.getTimezoneOffset());
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${two(Math.floor(a / 60))}:${two(a % 60)}`;
}

/** The local calendar day of a Date: "2026-11-26". */
export function localDay(d: Date): string {
  return `${String(d.getFullYear()).padStart(4, '0')}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

const DAY_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The instant a day starts in the reader's time zone, with its offset: "2026-11-26" in Los Angeles is
 * "2026-11-26T00:00:00-08:00". Where a clock change skips midnight, the day starts at the first local
 * time that exists. Undefined for what is not an existing day.
 */
export function localDayStart(day: string): string | undefined {
  const m = DAY_ONLY.exec(day);
  if (!m) return undefined;
  const [y, mo, da] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const d = new Date(2000, 0, 1);
  d.setFullYear(y, mo, da);
  d.setHours(0, 0, 0, 0);
  if (d.getFullYear() !== y || d.getMonth() !== mo || d.getDate() !== da) return undefined;
  return `${localDay(d)}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}${localOffset(d)}`;
}

const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A `from` / `to` of the console's address read: a day alone is a day in the reader's time zone
 * (what the form offers), an instant with its zone is that instant. `instant` is what the service is
 * sent (anything else is sent as written, for the service to say what is wrong with it); `day` is the
 * local day to show in the form.
 */
export function readBound(written: string): { instant: string; day: string; date?: Date } {
  // A "+01:00" typed into the address unencoded reads as " 01:00".
  const v = written.replace(/ (?=\d{2}:?\d{2}$)/, '+');
  if (DAY_ONLY.test(v)) {
    const instant = localDayStart(v);
    return instant ? { instant, day: v, date: new Date(instant) } : { instant: v, day: '' };
  }
  if (ZONED.test(v)) {
    const date = new Date(v);
    if (!Number.isNaN(date.getTime())) return { instant: v, day: localDay(date), date };
  }
  return { instant: v, day: '' };
}
