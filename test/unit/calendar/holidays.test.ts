import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addBusinessDays } from '../../../src/domain/calendar/business-days.ts';
import {
  createHolidayChecker,
  isSupportedHolidayCountry,
  UnknownHolidayCountryError,
} from '../../../src/domain/calendar/holidays.ts';

describe('createHolidayChecker', () => {
  it('has no holidays without a country', () => {
    const none = createHolidayChecker(null);
    assert.equal(none('2026-12-25'), false);
    assert.equal(none('2026-01-01'), false);
  });

  it("knows a country's national public holidays, case-insensitively", () => {
    const de = createHolidayChecker('de');
    assert.equal(de('2026-10-03'), true); // Tag der Deutschen Einheit
    assert.equal(de('2026-04-03'), true); // Good Friday
    assert.equal(de('2026-10-02'), false);
    assert.equal(createHolidayChecker('DE'), de);
  });

  it('includes substitute days', () => {
    const gb = createHolidayChecker('GB');
    assert.equal(gb('2027-12-28'), true); // Boxing Day (substitute day)
  });

  it('marks every day of a holiday that lasts several days, also into the next year', () => {
    // Romania: Anul nou is one entry of 1–2 January, Boboteaza and Sfântul Ion 6 and 7 January.
    const ro = createHolidayChecker('RO');
    assert.deepEqual(
      ['2026-01-01', '2026-01-02', '2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08'].map(ro),
      [true, true, false, true, true, false],
    );
    // Russia: the New Year holidays run 1–8 January.
    const ru = createHolidayChecker('RU');
    assert.equal(ru('2026-01-05'), true);
    assert.equal(ru('2026-01-09'), false);
    // Turkey: Ramazan Bayramı 2026 runs from sunset on 19 March to noon on 23 March: 20–22 March are
    // holidays, the evening before and the morning after are working days.
    const tr = createHolidayChecker('TR');
    assert.deepEqual(
      ['2026-03-19', '2026-03-20', '2026-03-22', '2026-03-23', '2025-06-09', '2025-06-10'].map(tr),
      [false, true, true, false, true, false],
    );
    // Eid in Bosnia and Herzegovina (Ramazanski bajram 2026, three days from sunset on 19 March to
    // sunset on 22 March) and Nigeria (Id el Kabir 2026, two days): ending at sunset, the last day
    // is off too.
    const ba = createHolidayChecker('BA');
    assert.deepEqual(['2026-03-19', '2026-03-20', '2026-03-21', '2026-03-22', '2026-03-23'].map(ba), [
      false,
      true,
      true,
      true,
      false,
    ]);
    assert.deepEqual(['2026-05-27', '2026-05-28'].map(createHolidayChecker('NG')), [true, true]);
    // Eswatini: Incwala, listed under 2025 (28 December, six days), runs into 2026.
    const sz = createHolidayChecker('SZ');
    assert.deepEqual(['2026-01-02', '2026-01-03'].map(sz), [true, false]);
    // A case opened in Bucharest on Wednesday 31 December 2025 is due five business days later:
    // 5, 8, 9, 12, 13 January (1, 2, 6, 7 January are holidays).
    const due = addBusinessDays(new Date('2025-12-31T08:00:00Z'), 5, {
      timeZone: 'Europe/Bucharest',
      isHoliday: ro,
    });
    assert.equal(due.toISOString(), '2026-01-13T08:00:00.000Z');
  });

  it('rejects an unknown country', () => {
    assert.throws(() => createHolidayChecker('XX'), UnknownHolidayCountryError);
    assert.equal(isSupportedHolidayCountry('XX'), false);
    assert.equal(isSupportedHolidayCountry('fr'), true);
  });

  it('plugs into business days (Easter in Berlin)', () => {
    const opts = { timeZone: 'Europe/Berlin', isHoliday: createHolidayChecker('DE') };
    // Thursday 2 April 2026 10:00 CEST; Good Friday and Easter Monday are skipped.
    const due = addBusinessDays(new Date('2026-04-02T08:00:00Z'), 1, opts);
    assert.equal(due.toISOString(), '2026-04-07T08:00:00.000Z');
  });
});
