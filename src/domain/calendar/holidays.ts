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
 * Romanian New Year, 1–2 January; Eid, Tết, Seollal), from `start` to `end`. Its `date` is the first
 * local day with the start's time of day, and an offset where the holiday begins before that day
 * (`"2026-03-20 00:00:00 -0600"`: Eid from sunset the evening before). From that day's midnight, a
 * day counts when the holiday runs past its noon: Eid ending at sunset of its third day takes that
 * day, the Turkish Bayram ending at noon of its fourth day does not (a working day again); a
 * daylight-saving hour inside the span changes nothing. A holiday shorter than a day (an afternoon
 * off) still marks its date.
 */
function holidayDays(h: { date: string; start: Date; end: Date }): string[] {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?: ([+-])(\d{2})(\d{2}))?/.exec(h.date);
  if (!m) return [h.date.slice(0, 10)];
  const [, y, mo, d, hh, mm, ss, sign, oh, om] = m;
  const sinceMidnight = (Number(hh) * 3600 + Number(mm) * 60 + Number(ss)) * 1000;
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0;
  const midnight = h.start.getTime() - sinceMidnight - offset;
  // A day is off when the holiday runs past its local noon (covers its working hours).
  const count = Math.max(1, Math.floor((h.end.getTime() - midnight - 43_200_001) / 86_400_000) + 1);
  const days: string[] = [];
  for (let i = 0; i < count; i++)
    days.push(new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d) + i)).toISOString().slice(0, 10));
  return days;
}
