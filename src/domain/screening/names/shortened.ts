import { nameWords } from './particles.ts';

/** A shortened name and the surname it keeps. */
interface Shortened {
  text: string;
  surname: string;
}

export function shortForms(published: string): Shortened[] {
  const comma = published.split(',');
  if (comma.length > 2) return [];
  if (comma.length === 1) {
    const parts = nameWords(published);
    return parts.length >= 3 ? [{ text: `${parts[0]} ${parts.at(-1)}`, surname: parts.at(-1)! }] : [];
  }
  const surname = comma[0]!.trim();
  const surnames = nameWords(surname);
  const given = nameWords(comma[1]!);
  if (surnames.length === 0 || given.length === 0) return [];
  const out: Shortened[] = [];
  if (given.length >= 2) out.push({ text: `${given[0]} ${surname}`, surname });
  if (surnames.length >= 2) {
    out.push({ text: `${given.join(' ')} ${surnames[0]}`, surname: surnames[0]! });
    if (given.length >= 2) out.push({ text: `${given[0]} ${surnames[0]}`, surname: surnames[0]! });
  }
  return out;
}

/**
 * A person's name as it is usually written in a payment, without the middle names: "LIFSHITS,
 * Artem Mikhaylovich" (OFAC: surname, then given names) → "Artem LIFSHITS"; "ABDUL RAHMAN YASIN
 * AL-HAYALI" (UN: the parts in order) → "ABDUL AL-HAYALI". Undefined when there is no middle name.
 */
export function withoutMiddleNames(published: string): string | undefined {
  const comma = published.split(',');
  if (comma.length === 2 && nameWords(comma[1]!).length < 2) return undefined;
  return shortForms(published)[0]?.text;
}

/**
 * The ways a person's listed name is commonly shortened, each keeping the first given name or all
 * of them, and a surname: without the middle names (withoutMiddleNames); for "SURNAME1 SURNAME2,
 * Given" also without the second surname ("MADURO MOROS, Nicolas" → "Nicolas MADURO"), and
 * without both. A particle stays with its word ("DE LA CRUZ", "AL-HAYALI", "BIN LADEN").
 */
export function shortenedNames(published: string): string[] {
  return shortForms(published).map((s) => s.text);
}
