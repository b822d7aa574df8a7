import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { addBusinessDays, isBusinessDay, localIsoDate } from '../../../src/domain/calendar/business-days.ts';

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Pacific/Auckland',
  'Asia/Kolkata',
  'Pacific/Chatham',
];
const start = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2090-01-01T00:00:00Z'),
  noInvalidDate: true,
});

describe('addBusinessDays properties', () => {
  it('lands on a later business day, strictly increasing in n', () => {
    fc.assert(
      fc.property(start, fc.integer({ min: 1, max: 30 }), fc.constantFrom(...ZONES), (s, n, timeZone) => {
        const opts = { timeZone, isHoliday: (d: string) => d.endsWith('-12-25') };
        const due = addBusinessDays(s, n, opts);
        assert.ok(isBusinessDay(due, opts));
        assert.ok(due.getTime() > s.getTime());
        assert.ok(addBusinessDays(s, n + 1, opts).getTime() > due.getTime());
        // n business days never take fewer than n calendar days nor more than ~1.5n + 4.
        const days =
          (Date.parse(localIsoDate(due, timeZone)) - Date.parse(localIsoDate(s, timeZone))) / 86_400_000;
        assert.ok(days >= n && days <= Math.ceil(n * 1.5) + 4, `${days} days for n=${n}`);
      }),
      { numRuns: 300 },
    );
  });
});
