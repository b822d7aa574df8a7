import { jaroWinkler } from '../jaro-winkler.ts';

// Letters NFKD does not decompose into a base letter plus marks.
const FOLD: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  ı: 'i',
  þ: 'th',
  ħ: 'h',
};

/** Normalises a name for comparison: case, accents (NFKD), punctuation, and word order (sorted tokens). */
export function normalizeName(name: string): string {
  if (typeof name !== 'string') return '';
  const folded = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[ßæœøđðłıþħ]/g, (c) => FOLD[c] ?? c)
    // Apostrophes join (O'Brien = OBrien), and so do the dots of an initialism (S.R.O. = SRO,
    // U.S.A = USA); every other non-letter/digit separates words (J. Smith = J Smith).
    .replace(/['’‘`ʼ]/g, '')
    .replace(/(?<![\p{L}\p{N}])\p{L}(?:\.\p{L})+\.?(?![\p{L}\p{N}])/gu, (m) => m.replaceAll('.', ''));
  const tokens = folded.split(/[^\p{L}\p{N}]+/u).filter((t) => t !== '');
  return tokens.sort().join(' ');
}

/** Similarity 0–1 of two names after normalisation. */
export function nameScore(a: string, b: string): number {
  const na = normalizeName(a);
  const nb = normalizeName(b);
  if (na === '' || nb === '') return 0;
  return jaroWinkler(na, nb);
}
