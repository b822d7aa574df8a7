// Review deadlines of CONTRACT §5. Hour-based alert deadlines are wall-clock hours (a critical
// alert at Friday 22:00 is due Saturday 02:00); business-day deadlines go through the shared
// calendar so weekends, the client's time zone and its holiday country are honoured.
import { addBusinessDays, type BusinessDayOptions } from '../calendar/business-days.ts';
import { createHolidayChecker } from '../calendar/holidays.ts';
import type { Severity } from '../rules/types.ts';
import { isFinalStatus } from './state-machines.ts';

export type CaseCalendar = BusinessDayOptions;

const HOUR_MS = 3_600_000;

export const CASE_DUE_BUSINESS_DAYS = 5;
export const STR_FILING_BUSINESS_DAYS = 2;

type Deadline = { hours: number } | { businessDays: number };

export const ALERT_DEADLINES: Readonly<Record<Severity, Deadline>> = Object.freeze({
  critical: { hours: 4 },
  high: { hours: 24 },
  medium: { hours: 48 },
  low: { businessDays: 5 },
});

function assertValidDate(d: Date, what: string): void {
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new RangeError(`${what} must be a valid Date`);
}

/** The business-day calendar of a client: its time zone (default UTC) and holiday country (default none). */
export function clientCalendar(opts: {
  timeZone?: string | null;
  holidayCountry?: string | null;
}): CaseCalendar {
  return {
    timeZone: opts.timeZone ?? 'UTC',
    isHoliday: createHolidayChecker(opts.holidayCountry ?? null),
  };
}

/** When a case falls due: 5 business days after its creation. */
export function caseDueAt(createdAt: Date, calendar: CaseCalendar): Date {
  return addBusinessDays(createdAt, CASE_DUE_BUSINESS_DAYS, calendar);
}

/** When an alert falls due: critical 4 h, high 24 h, medium 48 h, low 5 business days. */
export function alertDueAt(severity: Severity, createdAt: Date, calendar: CaseCalendar): Date {
  assertValidDate(createdAt, 'createdAt');
  const deadline = Object.hasOwn(ALERT_DEADLINES, severity) ? ALERT_DEADLINES[severity] : undefined;
  if (deadline === undefined) throw new RangeError(`unknown severity: ${String(severity)}`);
  if ('hours' in deadline) return new Date(createdAt.getTime() + deadline.hours * HOUR_MS);
  return addBusinessDays(createdAt, deadline.businessDays, calendar);
}

/**
 * Whether an item is past its due date at `now` (strictly after; due exactly now is not yet late).
 * Final statuses (closed, escalated) are never overdue, nor is an item without a due date.
 */
export function isOverdue(dueAt: Date | null, now: Date, status: string): boolean {
  if (dueAt === null) return false;
  assertValidDate(dueAt, 'dueAt');
  assertValidDate(now, 'now');
  // 'escalated' exists only for alerts and 'closed' is final for both, so the union is exact.
  if (isFinalStatus('alert', status) || isFinalStatus('case', status)) return false;
  return now.getTime() > dueAt.getTime();
}

/** When an STR case must have been filed: `businessDays` (default 2) business days after creation. */
export function strFilingDeadline(
  caseCreatedAt: Date,
  calendar: CaseCalendar,
  businessDays = STR_FILING_BUSINESS_DAYS,
): Date {
  return addBusinessDays(caseCreatedAt, businessDays, calendar);
}

/** Whether an STR case created at `caseCreatedAt` is past its filing deadline at `now` (the sweep's test). */
export function strOverdue(
  caseCreatedAt: Date,
  now: Date,
  calendar: CaseCalendar,
  businessDays = STR_FILING_BUSINESS_DAYS,
): boolean {
  assertValidDate(now, 'now');
  return now.getTime() > strFilingDeadline(caseCreatedAt, calendar, businessDays).getTime();
}
