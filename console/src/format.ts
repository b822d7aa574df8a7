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
