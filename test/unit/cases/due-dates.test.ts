import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { UnknownHolidayCountryError } from '../../../src/domain/calendar/holidays.ts';
import {
  ALERT_DEADLINES,
  alertDueAt,
  caseDueAt,
  clientCalendar,
  isOverdue,
  strFilingDeadline,
  strOverdue,
} from '../../../src/domain/cases/due-dates.ts';

const UTC = { timeZone: 'UTC' };
const BERLIN_DE = clientCalendar({ timeZone: 'Europe/Berlin', holidayCountry: 'DE' });
const at = (iso: string) => new Date(iso);
const iso = (d: Date) => d.toISOString();

describe('clientCalendar', () => {
  it('defaults to UTC without holidays', () => {
    const cal = clientCalendar({});
    assert.equal(cal.timeZone, 'UTC');
    assert.equal(cal.isHoliday?.('2026-12-25'), false);
  });

  it('uses the holiday country and refuses an unknown one', () => {
    assert.equal(BERLIN_DE.isHoliday?.('2026-12-25'), true);
    assert.throws(() => clientCalendar({ holidayCountry: 'XX' }), UnknownHolidayCountryError);
  });
});

describe('caseDueAt', () => {
  it('is 5 business days later, skipping the weekend', () => {
    // Wednesday → next Wednesday.
    assert.equal(iso(caseDueAt(at('2026-03-04T09:30:00Z'), UTC)), '2026-03-11T09:30:00.000Z');
  });

  it('crosses the year end and skips Christmas and New Year in the client zone', () => {
    // Thu 24 Dec 10:00 Berlin; 25, 26 Dec and 1 Jan are German public holidays.
    assert.equal(iso(caseDueAt(at('2026-12-24T09:00:00Z'), BERLIN_DE)), '2027-01-04T09:00:00.000Z');
    assert.equal(iso(caseDueAt(at('2026-12-24T09:00:00Z'), UTC)), '2026-12-31T09:00:00.000Z');
  });
});

describe('alertDueAt', () => {
  const friday22 = at('2026-03-06T22:00:00Z');

  it('critical, high and medium are wall-clock hours, weekends included', () => {
    assert.equal(iso(alertDueAt('critical', friday22, UTC)), '2026-03-07T02:00:00.000Z');
    assert.equal(iso(alertDueAt('high', friday22, UTC)), '2026-03-07T22:00:00.000Z');
    assert.equal(iso(alertDueAt('medium', friday22, UTC)), '2026-03-08T22:00:00.000Z');
  });

  it('hours are elapsed time across a DST change', () => {
    // Berlin springs forward at 01:00Z on 29 March 2026.
    assert.equal(
      iso(alertDueAt('critical', at('2026-03-29T00:30:00Z'), BERLIN_DE)),
      '2026-03-29T04:30:00.000Z',
    );
  });

  it('low is 5 business days, counted in the client zone', () => {
    assert.equal(iso(alertDueAt('low', friday22, UTC)), '2026-03-13T22:00:00.000Z');
    // Friday 22:00Z is already Saturday 07:00 in Tokyo: the count starts from Saturday.
    assert.equal(iso(alertDueAt('low', friday22, { timeZone: 'Asia/Tokyo' })), '2026-03-12T22:00:00.000Z');
  });

  it('the deadline table is the contract', () => {
    assert.deepEqual(ALERT_DEADLINES, {
      critical: { hours: 4 },
      high: { hours: 24 },
      medium: { hours: 48 },
      low: { businessDays: 5 },
    });
  });

  it('refuses an unknown severity and an invalid date', () => {
    assert.throws(() => alertDueAt('urgent' as never, friday22, UTC), RangeError);
    assert.throws(() => alertDueAt('high', new Date(Number.NaN), UTC), RangeError);
  });

  it('is never before creation and more severe is never later', () => {
    const order = ['critical', 'high', 'medium', 'low'] as const;
    fc.assert(
      fc.property(
        fc.date({ min: at('2000-01-01'), max: at('2100-01-01'), noInvalidDate: true }),
        (created) => {
          const due = order.map((s) => alertDueAt(s, created, UTC).getTime());
          return due[0]! > created.getTime() && due.every((t, i) => i === 0 || t >= due[i - 1]!);
        },
      ),
    );
  });
});

describe('isOverdue', () => {
  const due = at('2026-03-10T12:00:00Z');

  it('is strictly after the due date', () => {
    assert.equal(isOverdue(due, at('2026-03-10T12:00:00Z'), 'open'), false);
    assert.equal(isOverdue(due, at('2026-03-10T12:00:00.001Z'), 'open'), true);
    assert.equal(isOverdue(due, at('2026-03-10T11:59:59Z'), 'investigating'), false);
  });

  it('final statuses are never overdue; the others are', () => {
    const late = at('2027-01-01T00:00:00Z');
    for (const s of ['closed', 'escalated']) assert.equal(isOverdue(due, late, s), false, s);
    for (const s of ['open', 'acknowledged', 'investigating', 'pending_filing']) {
      assert.equal(isOverdue(due, late, s), true, s);
    }
  });

  it('no due date is never overdue', () => {
    assert.equal(isOverdue(null, at('2027-01-01T00:00:00Z'), 'open'), false);
  });
});

describe('strOverdue', () => {
  // Thu 2 April 2026 15:00 Berlin (CEST); Good Friday and Easter Monday are holidays.
  const created = at('2026-04-02T13:00:00Z');

  it('counts 2 business days over Easter in the client calendar', () => {
    assert.equal(iso(strFilingDeadline(created, BERLIN_DE)), '2026-04-08T13:00:00.000Z');
    assert.equal(strOverdue(created, at('2026-04-08T13:00:00Z'), BERLIN_DE), false);
    assert.equal(strOverdue(created, at('2026-04-08T13:00:00.001Z'), BERLIN_DE), true);
  });

  it('without holidays the same case is late two days earlier', () => {
    assert.equal(iso(strFilingDeadline(created, UTC)), '2026-04-06T13:00:00.000Z');
    assert.equal(strOverdue(created, at('2026-04-07T00:00:00Z'), UTC), true);
    assert.equal(strOverdue(created, at('2026-04-07T00:00:00Z'), BERLIN_DE), false);
  });

  it('takes the number of business days as a parameter', () => {
    assert.equal(strOverdue(created, at('2026-04-08T14:00:00Z'), BERLIN_DE, 3), false);
    assert.equal(strOverdue(created, at('2026-04-09T14:00:00Z'), BERLIN_DE, 3), true);
  });
});
