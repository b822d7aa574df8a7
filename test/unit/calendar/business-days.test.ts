import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addBusinessDays,
  isBusinessDate,
  isBusinessDay,
  localIsoDate,
} from '../../../src/domain/calendar/business-days.ts';

const UTC = { timeZone: 'UTC' };
const at = (iso: string) => new Date(iso);
const holidays =
  (...dates: string[]) =>
  (d: string) =>
    dates.includes(d);

describe('localIsoDate', () => {
  it('gives the calendar date of the zone, not of UTC', () => {
    assert.equal(localIsoDate(at('2026-07-01T23:30:00Z'), 'UTC'), '2026-07-01');
    assert.equal(localIsoDate(at('2026-07-01T23:30:00Z'), 'Asia/Tokyo'), '2026-07-02');
    assert.equal(localIsoDate(at('2026-07-01T03:00:00Z'), 'America/Los_Angeles'), '2026-06-30');
  });

  it('rejects an invalid date and an unknown zone', () => {
    assert.throws(() => localIsoDate(new Date(Number.NaN), 'UTC'), RangeError);
    assert.throws(() => localIsoDate(at('2026-07-01T00:00:00Z'), 'Mars/Olympus'), RangeError);
  });
});

describe('isBusinessDate / isBusinessDay', () => {
  it('skips Saturdays, Sundays and holidays', () => {
    assert.equal(isBusinessDate('2026-07-01'), true); // Wednesday
    assert.equal(isBusinessDate('2026-06-27'), false); // Saturday
    assert.equal(isBusinessDate('2026-06-28'), false); // Sunday
    assert.equal(isBusinessDate('2026-12-25', holidays('2026-12-25')), false);
    assert.equal(isBusinessDate('2026-12-24', holidays('2026-12-25')), true);
  });

  it('rejects a malformed date', () => {
    assert.throws(() => isBusinessDate('2026-7-1'), RangeError);
  });

  it('judges the local date where the UTC date differs', () => {
    // Friday 20:00 UTC is Saturday 09:00 in Auckland (NZDT, UTC+13).
    const fridayUtc = at('2024-03-01T20:00:00Z');
    assert.equal(isBusinessDay(fridayUtc, UTC), true);
    assert.equal(isBusinessDay(fridayUtc, { timeZone: 'Pacific/Auckland' }), false);
    // Monday 03:00 UTC is Sunday 22:00 in New York.
    const mondayUtc = at('2024-03-04T03:00:00Z');
    assert.equal(isBusinessDay(mondayUtc, UTC), true);
    assert.equal(isBusinessDay(mondayUtc, { timeZone: 'America/New_York' }), false);
  });

  it('asks the holiday source about the local date', () => {
    const seen: string[] = [];
    isBusinessDay(at('2024-03-04T20:00:00Z'), {
      timeZone: 'Pacific/Auckland',
      isHoliday: (d) => {
        seen.push(d);
        return false;
      },
    });
    assert.deepEqual(seen, ['2024-03-05']);
  });
});

describe('addBusinessDays', () => {
  it('counts weekdays and keeps the time of day', () => {
    assert.equal(
      addBusinessDays(at('2026-07-01T10:00:00Z'), 2, UTC).toISOString(),
      '2026-07-03T10:00:00.000Z',
    );
    assert.equal(
      addBusinessDays(at('2026-07-01T10:00:00Z'), 5, UTC).toISOString(),
      '2026-07-08T10:00:00.000Z',
    );
  });

  it('steps over weekends', () => {
    assert.equal(
      addBusinessDays(at('2026-06-26T15:30:00Z'), 1, UTC).toISOString(),
      '2026-06-29T15:30:00.000Z',
    );
    assert.equal(
      addBusinessDays(at('2026-06-26T15:30:00Z'), 2, UTC).toISOString(),
      '2026-06-30T15:30:00.000Z',
    );
    // From a Saturday or a Sunday, Monday is the first business day.
    assert.equal(
      addBusinessDays(at('2026-06-27T10:00:00Z'), 1, UTC).toISOString(),
      '2026-06-29T10:00:00.000Z',
    );
    assert.equal(
      addBusinessDays(at('2026-06-28T10:00:00Z'), 2, UTC).toISOString(),
      '2026-06-30T10:00:00.000Z',
    );
  });

  it('steps over holidays', () => {
    const christmas = { timeZone: 'UTC', isHoliday: holidays('2026-12-25') };
    assert.equal(
      addBusinessDays(at('2026-12-24T09:00:00Z'), 1, christmas).toISOString(),
      '2026-12-28T09:00:00.000Z',
    );
    const more = { timeZone: 'UTC', isHoliday: holidays('2026-12-25', '2026-12-28') };
    assert.equal(
      addBusinessDays(at('2026-12-24T09:00:00Z'), 1, more).toISOString(),
      '2026-12-29T09:00:00.000Z',
    );
  });

  it('returns the start itself (a copy) for n = 0', () => {
    const start = at('2026-06-27T10:00:00Z');
    const out = addBusinessDays(start, 0, UTC);
    assert.equal(out.getTime(), start.getTime());
    assert.notEqual(out, start);
  });

  it('counts in the zone where the UTC date differs from the local date', () => {
    // Friday 20:00 UTC = Saturday 09:00 NZDT: in Auckland the next business day is Monday 09:00.
    const start = at('2024-03-01T20:00:00Z');
    assert.equal(addBusinessDays(start, 1, UTC).toISOString(), '2024-03-04T20:00:00.000Z');
    assert.equal(
      addBusinessDays(start, 1, { timeZone: 'Pacific/Auckland' }).toISOString(),
      '2024-03-03T20:00:00.000Z',
    );
  });

  it('keeps the local wall time across DST changes', () => {
    const ny = { timeZone: 'America/New_York' };
    // Friday 09:00 EST → Monday 09:00 EDT (spring forward on Sunday 10 March 2024).
    assert.equal(
      addBusinessDays(at('2024-03-08T14:00:00Z'), 1, ny).toISOString(),
      '2024-03-11T13:00:00.000Z',
    );
    // Friday 09:00 EDT → Monday 09:00 EST (fall back on Sunday 3 November 2024).
    assert.equal(
      addBusinessDays(at('2024-11-01T13:00:00Z'), 1, ny).toISOString(),
      '2024-11-04T14:00:00.000Z',
    );
  });

  it('a wall time repeated by a fall-back change on a business day takes its first pass', () => {
    const cairo = { timeZone: 'Africa/Cairo' };
    // Egypt's clocks go back at midnight ending Thursday 28 October 2027 (24:00 EEST → 23:00 EET),
    // so 23:30 that Thursday happens twice: 20:30Z (EEST) first, 21:30Z (EET) an hour later.
    assert.equal(
      addBusinessDays(at('2027-10-21T20:30:00Z'), 5, cairo).toISOString(),
      '2027-10-28T20:30:00.000Z',
    );
    // A wall time skipped by a spring-forward gap takes the later one: 00:30 on Friday 30 April
    // 2027 does not exist in Cairo (00:00 EET → 01:00 EEST); 01:30 EEST is 22:30Z the day before.
    assert.equal(
      addBusinessDays(at('2027-04-28T22:30:00Z'), 1, cairo).toISOString(),
      '2027-04-29T22:30:00.000Z',
    );
  });

  it('rejects bad arguments and a holiday source that never ends', () => {
    assert.throws(() => addBusinessDays(at('2026-07-01T00:00:00Z'), -1, UTC), RangeError);
    assert.throws(() => addBusinessDays(at('2026-07-01T00:00:00Z'), 1.5, UTC), RangeError);
    assert.throws(() => addBusinessDays(new Date(Number.NaN), 1, UTC), RangeError);
    assert.throws(
      () => addBusinessDays(at('2026-07-01T00:00:00Z'), 1, { timeZone: 'UTC', isHoliday: () => true }),
      {
        name: 'RangeError',
        message: /holiday source/,
      },
    );
  });
});
