// Public holidays of a client's holiday country (CONTRACT §5), as the `isHoliday` predicate the
// business-day calendar takes. date-holidays ships its data in the package: no I/O at call time.
import Holidays from 'date-holidays';

export type HolidayPredicate = (isoDate: string) => boolean;

/** No holiday calendar exists for the country asked for. */
export class UnknownHolidayCountryError extends Error {
  constructor(readonly country: string) {
    super(`no public-holiday calendar for country ${JSON.stringify(country)}`);
    this.name = 'UnknownHolidayCountryError';
  }
}

const NO_HOLIDAYS: HolidayPredicate = () => false;
const checkers = new Map<string, HolidayPredicate>();
let supported: Set<string> | undefined;

/** Whether date-holidays knows the ISO 3166-1 alpha-2 country (case-insensitive). */
export function isSupportedHolidayCountry(country: string): boolean {
  supported ??= new Set(Object.keys(new Holidays().getCountries()));
  return supported.has(country.toUpperCase());
}

/**
 * The holiday predicate of a country's national public holidays (type `public`, substitute days
 * included); null means no holidays. Throws UnknownHolidayCountryError for an unknown country.
 */
export function createHolidayChecker(country: string | null): HolidayPredicate {
  if (country === null) return NO_HOLIDAYS;
  const code = country.toUpperCase();
  const cached = checkers.get(code);
  if (cached !== undefined) return cached;
  if (!isSupportedHolidayCountry(code)) throw new UnknownHolidayCountryError(country);
  const hd = new Holidays(code);
  // Years are computed on first use and kept: a year's holidays never change.
  const byYear = new Map<number, Set<string>>();
  const check: HolidayPredicate = (isoDate) => {
    const year = Number(isoDate.slice(0, 4));
    if (!Number.isInteger(year)) return false;
    let dates = byYear.get(year);
    if (dates === undefined) {
      // The year before too: a holiday of several days may run into this one.
      const days = [...hd.getHolidays(year - 1), ...hd.getHolidays(year)]
        .filter((h) => h.type === 'public')
        .flatMap(holidayDays);
      dates = new Set(days.filter((d) => d.startsWith(`${String(year).padStart(4, '0')}-`)));
      byYear.set(year, dates);
    }
    return dates.has(isoDate.slice(0, 10));
  };
  checkers.set(code, check);
  return check;
}

/**
 * Every local date a holiday covers: date-holidays lists some as one entry of several days (the
 * Romanian New Year, 1–2 January; Eid, Tết, Seollal), from `start` to `end` in the country's time.
 * Shorter than a day (an afternoon off) still marks its date, as before.
 */
function holidayDays(h: { date: string; start: Date; end: Date }): string[] {
  const first = h.date.slice(0, 10);
  // Whole days between start and end; rounding absorbs a daylight-saving hour inside the span.
  const count = Math.max(1, Math.round((h.end.getTime() - h.start.getTime()) / 86_400_000));
  const [y, m, d] = first.split('-').map(Number) as [number, number, number];
  const days: string[] = [];
  for (let i = 0; i < count; i++) days.push(new Date(Date.UTC(y, m - 1, d + i)).toISOString().slice(0, 10));
  return days;
}
