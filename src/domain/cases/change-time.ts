/**
 * The time of a change to an alert or case, read once its row is locked, and no earlier than the
 * row's last change. Read before the lock, a change that waited for another was stamped before it
 * though applied after it, and the history (and the transitions export, sorted by time) showed a
 * closed case reopened, or the assignee before last as the current one. The floor keeps that order
 * when two instances' clocks differ a little (equal times are ordered by their place in the history).
 */
export function changeTime(now: Date, lastChange: Date | string | null | undefined): Date {
  if (lastChange === null || lastChange === undefined) return now;
  const last = lastChange instanceof Date ? lastChange : new Date(lastChange);
  return Number.isNaN(last.getTime()) || now >= last ? now : last;
}
