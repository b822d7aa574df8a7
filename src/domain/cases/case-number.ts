// Case numbers of CONTRACT §5: `CASE-<year>-<sequence>`, the sequence zero-padded to 6 digits and
// simply growing longer past 999999 so numbers never wrap or collide. The sequence itself is
// allocated by storage (per client and UTC year, gap-free); this module only formats and parses.

const SEQ_DIGITS = 6;
const CASE_NUMBER = /^CASE-(\d{4})-(\d{6,15})$/;

export interface CaseNumberParts {
  year: number;
  seq: number;
}

/** Formats `CASE-2026-000001`; the year must have 4 digits and the sequence be a positive integer. */
export function formatCaseNumber(year: number, seq: number): string {
  if (!Number.isInteger(year) || year < 1000 || year > 9999) {
    throw new RangeError(`case number year must be a 4-digit integer, got ${year}`);
  }
  if (!Number.isSafeInteger(seq) || seq < 1) {
    throw new RangeError(`case number sequence must be a positive integer, got ${seq}`);
  }
  return `CASE-${year}-${String(seq).padStart(SEQ_DIGITS, '0')}`;
}

/** Parses a case number in its canonical form (as formatCaseNumber writes it); null otherwise. */
export function parseCaseNumber(s: string): CaseNumberParts | null {
  if (typeof s !== 'string') return null;
  const m = CASE_NUMBER.exec(s);
  if (m === null) return null;
  const year = Number(m[1]);
  const seq = Number(m[2]);
  // Only the canonical spelling parses: no CASE-2026-0000001 beside CASE-2026-000001.
  if (year < 1000 || !Number.isSafeInteger(seq) || seq < 1) return null;
  return formatCaseNumber(year, seq) === s ? { year, seq } : null;
}
