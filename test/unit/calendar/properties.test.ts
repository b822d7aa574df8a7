import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  addBusinessDays,
  addBusinessDaysUncached,
  isBusinessDay,
  localIsoDate,
} from '../../../src/domain/calendar/business-days.ts';

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

  it('gives what a fresh computation gives, for any millisecond of a second asked before (DST changes included)', () => {
    // Starts near the zones' offset changes, where a remembered second must not leak into the next.
    const nearChange = fc
      .record({
        base: fc.constantFrom(
          Date.parse('2026-03-29T00:59:59Z'),
          Date.parse('2026-10-25T00:59:59Z'),
          Date.parse('2026-03-08T06:59:59Z'),
          Date.parse('2026-11-01T05:59:59Z'),
          Date.parse('2026-04-05T13:59:59Z'),
        ),
        offset: fc.integer({ min: -3000, max: 3000 }),
      })
      .map(({ base, offset }) => new Date(base + offset));
    fc.assert(
      fc.property(
        fc.oneof(start, nearChange),
        fc.integer({ min: 0, max: 999 }),
        fc.integer({ min: 1, max: 10 }),
        fc.constantFrom(...ZONES),
        (s, ms, n, timeZone) => {
          const opts = { timeZone, isHoliday: (d: string) => d.endsWith('-12-25') };
          const second = Math.floor(s.getTime() / 1000) * 1000;
          addBusinessDays(new Date(second + ms), n, opts); // remembered for this second
          for (const t of [s, new Date(second), new Date(second + 999)])
            assert.equal(
              addBusinessDays(t, n, opts).getTime(),
              addBusinessDaysUncached(t, n, opts).getTime(),
              `${t.toISOString()} + ${n} in ${timeZone}`,
            );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('does not reuse an answer across holiday calendars', () => {
    const at = new Date('2026-12-21T10:00:00Z');
    const plain = addBusinessDays(at, 5, { timeZone: 'UTC', isHoliday: () => false });
    const christmas = addBusinessDays(at, 5, { timeZone: 'UTC', isHoliday: (d) => d.endsWith('-12-25') });
    assert.equal(plain.toISOString(), '2026-12-28T10:00:00.000Z');
    assert.equal(christmas.toISOString(), '2026-12-29T10:00:00.000Z');
  });
});
