import { jaroWinkler } from '../jaro-winkler.ts';
import { oneSlipApart } from '../word-neighbours.ts';
import { DROPPABLE } from './particles.ts';

/** Shortest word read as a misspelling when two neighbouring letters are swapped (SIIMC / SIMIC). */
const TRANSPOSED_MIN = 4;

/** Whether two words of one length differ only by two neighbouring letters swapped. */
function transposed(q: string, f: string): boolean {
  if (q.length !== f.length) return false;
  let i = 0;
  while (i < q.length && q[i] === f[i]) i++;
  return i + 1 < q.length && q[i] === f[i + 1] && q[i + 1] === f[i] && q.slice(i + 2) === f.slice(i + 2);
}

/**
 * How alike two words are: 1 when equal; else their Jaro-Winkler score when both have at least
 * `min` letters and the score reaches `floor` or they are one slip apart (Jaro's greedy pairing of
 * repeated letters scores DALXPI / DALIPI 0.875), or when they are TRANSPOSED_MIN letters or more
 * and differ by two neighbouring letters swapped (the commonest slip of typing, seldom another
 * name: SAMIU / SAIMU, GASMI / GAMSI; Omar / Omari, Patel / Patek are not swaps); 0 otherwise.
 */
function wordScore(q: string, f: string, floor: number, min: number): number {
  if (q === f) return 1;
  if (q.length >= TRANSPOSED_MIN && q.length < min && transposed(q, f))
    return Math.max(floor, jaroWinkler(q, f));
  if (q.length < min || f.length < min) return 0;
  const s = jaroWinkler(q, f);
  if (s < floor && oneSlipApart(q, f)) return floor;
  return s >= floor ? s : 0;
}

/**
 * Whether two short words (TRANSPOSED_MIN letters or more, under `min`) are one slip apart:
 * Hasan / HASSAN, Omer / OMAR. They pair, so that a name is matched with the rest of its words,
 * but never count as evidence: Omar / Omari, Patel / Patek are also other names.
 */
function shortSlip(q: string, f: string, min: number): boolean {
  if (q.length < TRANSPOSED_MIN || f.length < TRANSPOSED_MIN) return false;
  if (q.length >= min && f.length >= min) return false;
  return oneSlipApart(q, f);
}

/** What align needs to know of the words. */
export interface Words {
  /** 2: distinctive on its own; 1: rare enough to count together with another such word; 0: neither. */
  rarity: (word: string) => number;
  common: (word: string) => boolean;
  /** Whether any held party carries the word. */
  listed: (word: string) => boolean;
}

/** How align paired the words of a query with those of a listed form. */
export interface Alignment {
  pairs: number;
  leftQuery: number;
  leftForm: number;
  /** A pair on a distinctive listed word (rarity 2), not reached by a common query word's spelling. */
  evidence: boolean;
  /** Distinct listed words of rarity 1 or 2 paired, not reached by a common query word's spelling. */
  supporting: number;
  /** Of those, the ones paired as written (the rare word beside a misspelt one must be itself). */
  supportingExact: number;
  /** Pairs of different spellings (not equal words, not one word written as two). */
  fuzzy: number;
  /** Of those, pairs whose query word some listed party carries (MUSHTAHA / MUSTAFA): a name, no slip. */
  fuzzyListed: number;
  /** Of those, pairs more than one slip apart (MUSHTAHA / MUSTAFA; not HUSEIN / HUSSEIN). */
  fuzzyListedFar: number;
  /** Pairs of short words one slip apart (Hasan / HASSAN; but Juan / JIAN, Patel / PATEK too). */
  short: number;
  /**
   * The words' similarity: each pair's word score weighted by the letters of its words, over the
   * letters of all words (particles left unpaired not counted). 1 for the same words.
   */
  score: number;
}

/**
 * Pairs the words of a query with the words of a listed form: equal words first, then the closest
 * spellings (wordScore), then one word written as two ("Abdulaziz" / "Abdul Aziz", exactly).
 * Reports the words left unpaired on each side and what the pairs say of identity: the rarity of
 * the listed words paired, equal to the query's or spelled close to them by a query word that is
 * not itself a common name (a query "Rahman" is that name, not a misspelling of "RAHMUN").
 */
export function align(query: string[], form: string[], floor: number, min: number, words: Words): Alignment {
  const q = [...query];
  const f = [...form];
  let pairs = 0;
  let evidence = false;
  const supporting = new Set<string>();
  let fuzzy = 0;
  let fuzzyListed = 0;
  let fuzzyListedFar = 0;
  let short = 0;
  let weighted = 0;
  const supportingExact = new Set<string>();
  /** `score` 1 for equal words; `weak` for a short word's slip, which pairs but proves nothing. */
  const pair = (queryWord: string, formWords: string[], exact: boolean, score = 1, weak = false) => {
    pairs++;
    const letters = queryWord.length + formWords.reduce((n, w) => n + w.length, 0);
    weighted += score * letters;
    const otherName = !exact && words.common(queryWord);
    if (!exact) fuzzy++;
    if (weak) short++;
    if (!exact && words.listed(queryWord)) {
      fuzzyListed++;
      if (!oneSlipApart(queryWord, formWords[0]!)) fuzzyListedFar++;
    }
    const rarity = Math.max(...formWords.map(words.rarity));
    if (rarity > 0 && !otherName && !weak) {
      supporting.add(formWords.join(' '));
      if (exact) supportingExact.add(formWords.join(' '));
      if (rarity === 2) evidence = true;
    }
  };
  // Equal words.
  for (let i = 0; i < q.length; i++) {
    const j = f.indexOf(q[i]!);
    if (j < 0) continue;
    pair(q[i]!, [f[j]!], true);
    q.splice(i--, 1);
    f.splice(j, 1);
  }
  // One word on one side written as two on the other, before close spellings: ALTIKRITI is
  // AL + TIKRITI as written, not a misspelt TIKRITI beside a dropped particle.
  const joined = (one: string[], two: string[], twoOnForm: boolean) => {
    for (let k = 0; k < one.length; k++)
      for (let a = 0; a < two.length; a++)
        for (let b = 0; b < two.length; b++) {
          if (a === b) continue;
          const x = two[a]!;
          const y = two[b]!;
          if (x + y !== one[k]) continue;
          if (twoOnForm) pair(one[k]!, [x, y], true);
          else pair(x + y, [one[k]!], true);
          one.splice(k, 1);
          two.splice(two.indexOf(x), 1);
          two.splice(two.indexOf(y), 1);
          return true;
        }
    return false;
  };
  while (q.length > 0 && f.length > 0 && (joined(f, q, false) || joined(q, f, true)));
  // Close spellings, best first.
  const candidates: [number, number, number, boolean][] = [];
  for (let i = 0; i < q.length; i++)
    for (let j = 0; j < f.length; j++) {
      const s = wordScore(q[i]!, f[j]!, floor, min);
      if (s > 0) candidates.push([s, i, j, false]);
      else if (shortSlip(q[i]!, f[j]!, min)) candidates.push([jaroWinkler(q[i]!, f[j]!), i, j, true]);
    }
  candidates.sort((x, y) => y[0] - x[0]);
  const usedQ = new Set<number>();
  const usedF = new Set<number>();
  for (const [s, i, j, weak] of candidates) {
    if (usedQ.has(i) || usedF.has(j)) continue;
    usedQ.add(i);
    usedF.add(j);
    pair(q[i]!, [f[j]!], false, s, weak);
  }
  const restQ = q.filter((_, i) => !usedQ.has(i));
  const restF = f.filter((_, j) => !usedF.has(j));
  const kept = (w: string) => !DROPPABLE.has(w);
  const letters = (ws: string[]) => ws.reduce((n, w) => n + w.length, 0);
  const leftQuery = restQ.filter(kept);
  const leftForm = restF.filter(kept);
  const total =
    letters(query) + letters(form) - letters(restQ) - letters(restF) + letters(leftQuery) + letters(leftForm);
  return {
    pairs,
    leftQuery: leftQuery.length,
    leftForm: leftForm.length,
    evidence,
    supporting: supporting.size,
    supportingExact: supportingExact.size,
    fuzzy,
    fuzzyListed,
    fuzzyListedFar,
    short,
    score: total > 0 ? weighted / total : 0,
  };
}
