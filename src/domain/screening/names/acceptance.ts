import type { Form } from './forms.ts';
import { align, type Words } from './word-alignment.ts';

/**
 * Words of a person's name shorter than this match only exactly: Kim/Kimo, Omar/Omari, Li/Lin,
 * Jose/Josue, Patel/Patek are other names, one letter apart. Other parties' words are no names
 * (FORCE/FORCES): from FUZZY_WORD_MIN_OTHER letters.
 */
export const FUZZY_WORD_MIN = 6;
const FUZZY_WORD_MIN_OTHER = 4;
/** The least Jaro-Winkler similarity of two longer words taken as spellings of one (Lifshits/Lifshitz 0.95). */
const WORD_FLOOR = 0.88;

/**
 * Whether a form whose spelling is close enough is a potential match word for word: the name as
 * listed (or an admitted shortening) exactly; otherwise every word paired with a word of the
 * form — a party other than a person may leave one word out on either side ("GARANTEX EUROPE
 * OU") — and a paired listed word distinctive. For a person, two paired words of rarity 1 (a
 * moderately common surname and a rare given name: "Joaquin Guzman") do too, and so does a
 * listed name (not a shortening) written out with one misspelt word, the misspelling a word no
 * listed party carries ("Saddam Hussein al-Tkiriti"; "Muhammad Mushtaha" is not "MUHAMMAD,
 * Mustafa", Mushtaha is a name). Two common
 * words ("Jose", "Garcia") never make a match but as a listed name written out. `known`: what the
 * held lists say of each word (its rarity), from the index.
 */
export const accepts = (
  words: string[],
  form: Form,
  threshold: number,
  exact: boolean,
  known: Words,
): boolean => judge(words, form, threshold, exact, known) > 0;

/** accepts, giving the words' similarity (Alignment.score) of an accepted form, else 0. */
export function judge(words: string[], form: Form, threshold: number, exact: boolean, known: Words): number {
  if (exact && words.join(' ') === form.norm) return 1;
  const floor = Math.min(WORD_FLOOR, threshold);
  const a = form.individual
    ? align(words, form.tokens, floor, FUZZY_WORD_MIN, known)
    : align(words, form.tokens, floor, FUZZY_WORD_MIN_OTHER, known);
  const slack = form.individual ? 0 : 1;
  if (a.pairs < 2 || a.leftQuery + a.leftForm > slack) return 0;
  if (form.givenOnly && a.fuzzy > 0) return 0;
  if (a.evidence) return a.score;
  if (!form.individual) return 0;
  if (a.supporting >= 2) return a.score;
  // One word spelt otherwise: a word no party carries, or one slip from the listed word (Husein /
  // HUSSEIN) when another word paired is rare as written (SADDAM); of common words alone
  // ("Ahmed Ali" / "ALI, Hamed") many people are named. Short words one slip apart are often two
  // names (Juan / JIAN, Patel / PATEK): never the one misspelt word.
  const slip = a.fuzzyListed === 0 || (a.fuzzyListedFar === 0 && a.supportingExact > 0);
  return exact && form.surname === undefined && a.fuzzy === 1 && a.short === 0 && slip ? a.score : 0;
}
