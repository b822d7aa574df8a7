// ISO 17442 Legal Entity Identifier: 18 upper-case alphanumerics followed by two numeric
// check digits (IVMS101 datatype "LEIText"), verified with ISO 7064 MOD 97-10.

/** The LEIText shape from IVMS101 / ISO 17442 (format only, no check-digit test). */
export const LEI_FORMAT = /^[0-9A-Z]{18}[0-9]{2}$/;

const BASE_FORMAT = /^[0-9A-Z]{18}$/;

// Letters expand to two digits (A=10 … Z=35), so the remainder is folded per character
// instead of building the 40-odd digit number: no BigInt, no precision loss.
function mod97(s: string): number {
  let rem = 0;
  for (const ch of s) {
    const v = Number.parseInt(ch, 36);
    rem = (rem * (v < 10 ? 10 : 100) + v) % 97;
  }
  return rem;
}

/** Why `s` is not a valid LEI, or undefined when it is one. */
export function leiProblem(s: string): string | undefined {
  if (s.length !== 20) return 'must be 20 characters';
  // Lower case is rejected rather than upper-cased: ISO 17442 LEIs are upper case, and a
  // silently rewritten identifier would no longer match the directory or the sender's record.
  if (!LEI_FORMAT.test(s)) return 'must be 18 upper-case letters or digits followed by 2 check digits';
  if (mod97(s) !== 1) return 'invalid LEI check digits';
  return undefined;
}

/** True when `s` is a well-formed LEI whose MOD 97-10 check digits are right. */
export function isValidLei(s: string): boolean {
  return typeof s === 'string' && leiProblem(s) === undefined;
}

/** The two MOD 97-10 check digits for an 18-character LEI base (ISO 7064: 98 − base·100 mod 97). */
export function leiCheckDigits(base: string): string {
  if (!BASE_FORMAT.test(base)) throw new RangeError('LEI base must be 18 upper-case letters or digits');
  return String(98 - mod97(`${base}00`)).padStart(2, '0');
}
