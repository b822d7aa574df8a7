import { jaroFloor, jaroWinkler, minLengthRatio } from './jaro-winkler.ts';
import type { ListSource, SanctionsEntry, SanctionsList } from './lists/model.ts';
import { oneSlipApart, wordNeighbours } from './word-neighbours.ts';

/** A listed party whose name or alias resembles the name searched. */
export interface NameMatch {
  list: ListSource;
  entry_id: string;
  /** The entry's primary name. */
  name: string;
  programs: string[];
  /** Jaro-Winkler score 0–1 of the best of the entry's name and aliases. */
  score: number;
  /** The name or alias (as published) that scored best. */
  matched_name: string;
}

/** Name search across every held list. */
export interface NameIndex {
  /** Entries scoring at least `threshold`, best first; [] for an empty or unusable name. */
  search(name: string, threshold?: number): NameMatch[];
  /** Number of indexed name forms (names and aliases). */
  readonly size: number;
}

export const DEFAULT_NAME_THRESHOLD = 0.92;

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

// Character buckets for a cheap upper bound on Jaro matches: a-z, 0-9, space, everything else.
const BUCKETS = 38;

function bucket(code: number): number {
  if (code >= 97 && code <= 122) return code - 97;
  if (code >= 48 && code <= 57) return code - 22;
  return code === 32 ? 36 : 37;
}

/** Counts per bucket; undefined for text too long to count exactly (such forms are never pruned). */
function histogram(text: string): Uint16Array | undefined {
  if (text.length > 0xffff) return undefined;
  const h = new Uint16Array(BUCKETS);
  for (let i = 0; i < text.length; i++) h[bucket(text.charCodeAt(i))]!++;
  return h;
}

interface Form {
  norm: string;
  /** The words of `norm`, sorted. */
  tokens: string[];
  published: string;
  list: ListSource;
  entry_id: string;
  name: string;
  programs: string[];
  individual: boolean;
  /**
   * For a person's name with middle names or a second surname left out (not a name as listed):
   * the words of the surname it keeps. Undefined for a name as listed.
   */
  surname: string[] | undefined;
  hist: Uint16Array | undefined;
  /** Whether the form can be matched at all (set when the index is built: see `usable`). */
  usable: boolean;
  /** A shortened name kept for its distinctive given name alone: matched with no word spelt otherwise. */
  givenOnly?: boolean;
}

// Words that belong to the word after them: "DE LA CRUZ", "AL HAYALI", "BIN LADEN", "VAN DIJK".
const PARTICLES = new Set([
  'abu',
  'al',
  'ben',
  'bin',
  'bint',
  'da',
  'das',
  'de',
  'del',
  'della',
  'der',
  'di',
  'do',
  'dos',
  'du',
  'el',
  'ibn',
  'la',
  'las',
  'le',
  'los',
  'ould',
  'van',
  'von',
]);

/**
 * Particles a name is often written without ("Ayman Zawahiri" for "AL-ZAWAHIRI, Ayman", "Olmes
 * Jesus" for "Olmes de Jesus"): left unpaired on either side, they do not count against a match.
 * ABU, BIN, IBN, BEN, BINT, OULD say whose son or father: those are part of the name.
 */
const DROPPABLE = new Set(
  [...PARTICLES].filter((p) => !['abu', 'ben', 'bin', 'bint', 'ibn', 'ould'].includes(p)),
);

/** The words of a name part, a particle joined to the word after it ("DE LA CRUZ" is one). */
function nameWords(part: string): string[] {
  const words: string[] = [];
  let pending = '';
  for (const w of part.trim().split(/\s+/)) {
    if (w === '') continue;
    if (PARTICLES.has(w.toLowerCase())) pending = pending === '' ? w : `${pending} ${w}`;
    else {
      words.push(pending === '' ? w : `${pending} ${w}`);
      pending = '';
    }
  }
  if (pending !== '') words.push(pending);
  return words;
}

/** A shortened name and the surname it keeps. */
interface Shortened {
  text: string;
  surname: string;
}

function shortForms(published: string): Shortened[] {
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

/** Raw forms of the held lists, with how many entries carry each word (in a name or alias). */
interface Collected {
  forms: Form[];
  df: Map<string, number>;
  entries: number;
  /**
   * A person's names of two words or more (as listed and shortened) by each of their words. Filled
   * as entries are added, so that building it falls in buildNameIndexInSlices' slices.
   */
  personsByWord: Map<string, Form[]>;
}

/**
 * Adds the distinct normalised forms of an entry's name and (strong) aliases; for a person also
 * the shortened forms (shortenedNames), so that "Artem Lifshits" finds "LIFSHITS, Artem
 * Mikhaylovich" (the full forms score ~0.90 against it, under the threshold). Weak aliases are
 * not screened.
 */
function addForms(into: Collected, list: ListSource, entry: SanctionsEntry): void {
  const seen = new Set<string>();
  const words = new Set<string>();
  const individual = entry.type === 'individual';
  const add = (published: string, text: string, surname: string[] | undefined) => {
    const norm = normalizeName(text);
    if (norm === '' || seen.has(norm)) return;
    seen.add(norm);
    const tokens = norm.split(' ');
    if (surname === undefined) for (const t of tokens) words.add(t);
    const { entry_id, name, programs } = entry;
    const form: Form = {
      norm,
      tokens,
      published,
      list,
      entry_id,
      name,
      programs,
      individual,
      surname,
      hist: histogram(norm),
      usable: false,
    };
    into.forms.push(form);
    if (individual && tokens.length > 1)
      for (const t of new Set(tokens)) {
        const forms = into.personsByWord.get(t);
        if (forms) forms.push(form);
        else into.personsByWord.set(t, [form]);
      }
  };
  for (const published of [entry.name, ...entry.aliases]) add(published, published, undefined);
  if (individual)
    for (const published of [entry.name, ...entry.aliases])
      for (const short of shortForms(published))
        add(published, short.text, normalizeName(short.surname).split(' '));
  into.entries++;
  for (const w of words) into.df.set(w, (into.df.get(w) ?? 0) + 1);
}

/**
 * A word is common when at least this share of the listed parties carry it (and at least
 * COMMON_MIN of them): in the 2021 OFAC and UN lists (9,979 parties) 10 or more, e.g. muhammad
 * 347, ali 296, jose 120, garcia 37, li 16, wei 12; lifshits 1, maduro 4, loera 3 are not.
 */
export const COMMON_SHARE = 0.001;
export const COMMON_MIN = 5;

/** Options of buildNameIndex; `prune: false` scores every form (for tests of the pruning). */
export interface NameIndexOptions {
  prune?: boolean;
}

/** Builds the name index of the given lists: every entry's name and aliases, normalised once. */
export function buildNameIndex(lists: SanctionsList[], options: NameIndexOptions = {}): NameIndex {
  const collected: Collected = { forms: [], df: new Map(), entries: 0, personsByWord: new Map() };
  for (const list of lists) for (const entry of list.entries) addForms(collected, list.source, entry);
  return indexOf(collected, options);
}

/** Entries normalised between two pauses of buildNameIndexInSlices: about a millisecond's work. */
export const NAME_INDEX_SLICE = 256;

/**
 * The same index as buildNameIndex, built in slices of `slice` entries with `pause()` awaited
 * between them. A server builds it in its event loop while requests wait; whole lists take tens
 * of milliseconds (the 2021 OFAC and UN lists: ~50 ms), which would all fall on those requests.
 */
export async function buildNameIndexInSlices(
  lists: SanctionsList[],
  pause: () => Promise<void>,
  slice = NAME_INDEX_SLICE,
): Promise<NameIndex> {
  const collected: Collected = { forms: [], df: new Map(), entries: 0, personsByWord: new Map() };
  let done = 0;
  for (const list of lists)
    for (const entry of list.entries) {
      addForms(collected, list.source, entry);
      if (++done % slice === 0) await pause();
    }
  return indexOf(collected, {});
}

/** The forms ordered by length, keeping their order within a length (a counting sort). */
function byLength(unsorted: Form[]): Form[] {
  // Linear: a comparison sort of ~25,000 forms held the thread for 6–8 ms in one piece.
  const starts: number[] = [];
  for (const f of unsorted) starts[f.norm.length] = (starts[f.norm.length] ?? 0) + 1;
  let at = 0;
  for (let len = 0; len < starts.length; len++) {
    const count = starts[len] ?? 0;
    starts[len] = at;
    at += count;
  }
  const sorted = new Array<Form>(unsorted.length);
  for (const f of unsorted) sorted[starts[f.norm.length]!++] = f;
  return sorted;
}

/**
 * Words of a person's name shorter than this match only exactly: Kim/Kimo, Omar/Omari, Li/Lin,
 * Jose/Josue, Patel/Patek are other names, one letter apart. Other parties' words are no names
 * (FORCE/FORCES): from FUZZY_WORD_MIN_OTHER letters.
 */
const FUZZY_WORD_MIN = 6;
const FUZZY_WORD_MIN_OTHER = 4;
/**
 * Words shorter than this are never distinctive, however few listed parties carry them: short
 * names are shared by many people (Kim, Lee, Park, Li, Wang, Ali, Khan, Ana, Olga).
 */
const DISTINCTIVE_MIN = 5;
/**
 * Rarity 1 (counts together with another rare word, not alone): a word of DISTINCTIVE_MIN letters
 * or more carried by fewer than MODERATE_FACTOR times the common bound (GUZMAN, 11 parties: the
 * relatives and associates of one cartel, not a common name; GARCIA 37, LOPEZ 50 are), or a
 * shorter word of SHORT_RARE_LENGTH letters carried by fewer than the bound / MODERATE_FACTOR
 * (BOUT 1, NAJI 3; not CHEN 9, PARK 7, OLGA 7).
 */
const MODERATE_FACTOR = 2;
const SHORT_RARE_LENGTH = 4;
/**
 * A word of SHORT_RARE_LENGTH letters carried by at most this many parties is distinctive: BOUT
 * (1 party) identifies; CHEN 9, PARK 7, OLGA 7, CRUZ 5 do not.
 */
const SHORT_DISTINCTIVE_MAX = 2;
/** The least Jaro-Winkler similarity of two longer words taken as spellings of one (Lifshits/Lifshitz 0.95). */
const WORD_FLOOR = 0.88;
/**
 * Longest query compared word by word from its rare words: persons' names in OFAC 2021 + UN have
 * 10 words or fewer but for 14 of 13,500 forms. A name field of 512 characters of listed names took
 * 124 ms this way (nothing by the whole-name scan, which no form is long enough to reach).
 */
const WORD_PATH_MAX = 10;
/** Longest query from which one word is left out in turn to find a listed name it contains. */
const EXTRA_WORD_MAX = 6;

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
interface Words {
  /** 2: distinctive on its own; 1: rare enough to count together with another such word; 0: neither. */
  rarity: (word: string) => number;
  common: (word: string) => boolean;
  /** Whether any held party carries the word. */
  listed: (word: string) => boolean;
}

/** How align paired the words of a query with those of a listed form. */
interface Alignment {
  pairs: number;
  leftQuery: number;
  leftForm: number;
  /** A pair on a distinctive listed word (rarity 2), not reached by a common query word's spelling. */
  evidence: boolean;
  /** Distinct listed words of rarity 1 or 2 paired, not reached by a common query word's spelling. */
  supporting: number;
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
function align(query: string[], form: string[], floor: number, min: number, words: Words): Alignment {
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
  // One word on one side written as two on the other.
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
  while (restQ.length > 0 && restF.length > 0 && (joined(restF, restQ, false) || joined(restQ, restF, true)));
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
    fuzzy,
    fuzzyListed,
    fuzzyListedFar,
    short,
    score: total > 0 ? weighted / total : 0,
  };
}

function indexOf(collected: Collected, options: NameIndexOptions): NameIndex {
  const { df, entries } = collected;
  const commonFrom = Math.max(COMMON_MIN, entries * COMMON_SHARE);
  const carriedBy = (word: string) => df.get(word) ?? 0;
  const common = (word: string) => carriedBy(word) >= commonFrom;
  const distinctive = (word: string) =>
    word.length >= DISTINCTIVE_MIN
      ? !common(word)
      : word.length >= SHORT_RARE_LENGTH && carriedBy(word) <= SHORT_DISTINCTIVE_MAX;
  const rarity = (word: string): number => {
    if (distinctive(word)) return 2;
    const n = carriedBy(word);
    if (word.length >= DISTINCTIVE_MIN) return n < commonFrom * MODERATE_FACTOR ? 1 : 0;
    return word.length >= SHORT_RARE_LENGTH && n < commonFrom / MODERATE_FACTOR ? 1 : 0;
  };
  // Which forms can be matched at all. A single word matches only exactly, and a person's single
  // word only when it is distinctive: a bare given name ("Ahmed") identifies nobody. A shortened
  // name needs a distinctive surname, or a surname of rarity 1 with another word of the name as
  // rare: "Ahmed Ali" from "ALI, Ahmed Khalfan", "Abdul Aziz" from "ABDUL HAMID ABDUL AZIZ", "Ana
  // Lopez" from "LOPEZ TORRES, Ana Lilia", "Jose Garcia" would match every customer of that name;
  // "Nicolas Maduro" from "MADURO MOROS, Nicolas", "Joaquin Guzman" from "GUZMAN, Joaquin Chapo"
  // (GUZMAN: 11 parties, the relatives of one cartel), "Viktor Bout" are kept. So is a shortened
  // name keeping a distinctive given name, whatever its surname: "Muzahim al-Tikriti" from
  // "MUZAHIM SA'B HASSAN AL-TIKRITI" (TIKRITI: 71 parties, MUZAHIM 2: OFAC and UN list the same man).
  // Such a name is matched with no word spelt otherwise: "Aisha Salem" is not "AISHA
  // MUHAMMED ABDUL SALAM" shortened (AISHA: rare in the lists, not in the world).
  const byGivenName = (f: Form) => f.tokens.some((w) => !f.surname!.includes(w) && distinctive(w));
  const usable = collected.forms.filter((f) => {
    if (f.tokens.length === 1) return !f.individual || distinctive(f.norm);
    if (f.surname === undefined || f.surname.some(distinctive) || twoRare(f.tokens, f.surname)) return true;
    f.givenOnly = byGivenName(f);
    return f.givenOnly;
  });
  function twoRare(tokens: string[], surname: string[]): boolean {
    return surname.some((w) => rarity(w) > 0) && new Set(tokens.filter((w) => rarity(w) > 0)).size >= 2;
  }
  const listed = (word: string) => carriedBy(word) > 0;
  const singles = new Map<string, Form[]>();
  // A person's names as listed, by their distinctive words (each carried by few parties).
  const byWord = new Map<string, Form[]>();
  for (const f of usable) {
    if (f.tokens.length === 1) singles.set(f.norm, [...(singles.get(f.norm) ?? []), f]);
    else if (f.individual && f.surname === undefined)
      for (const w of new Set(f.tokens)) if (distinctive(w)) byWord.set(w, [...(byWord.get(w) ?? []), f]);
  }
  for (const f of usable) f.usable = true;
  // A person's names, as listed and shortened, by their words of rarity 1 or 2: the candidates
  // compared word by word, whatever the Jaro-Winkler score of the whole (see search).
  const byRare = (word: string): Form[] =>
    rarity(word) > 0 ? (collected.personsByWord.get(word) ?? []) : [];
  const rareWords: string[] = [];
  for (const w of collected.personsByWord.keys())
    if (w.length >= DISTINCTIVE_MIN && rarity(w) > 0) rareWords.push(w);
  const rareNeighbours = wordNeighbours(rareWords);
  // The single-word names of parties other than persons, long enough to be matched one slip off.
  const singleNeighbours = wordNeighbours(
    [...singles.keys()].filter(
      (w) => w.length >= FUZZY_WORD_MIN && singles.get(w)!.some((f) => !f.individual),
    ),
  );
  // Sorted by length, so a search scores only the slice whose length can still reach the threshold.
  const forms = byLength(usable.filter((f) => f.tokens.length > 1));
  const lengths = forms.map((f) => f.norm.length);
  const prune = options.prune !== false;

  const firstAtLeast = (len: number): number => {
    let lo = 0;
    let hi = lengths.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (lengths[mid]! < len) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  /** Calls `visit` with every multi-word form whose Jaro-Winkler score reaches `threshold`. */
  const scan = (query: string, threshold: number, visit: (form: Form, score: number) => void) => {
    const ratio = prune ? minLengthRatio(threshold) : 0;
    const lo = ratio > 0 ? firstAtLeast(Math.ceil(query.length * ratio - 1e-9)) : 0;
    const hi = ratio > 0 ? firstAtLeast(Math.floor(query.length / ratio + 1e-9) + 1) : forms.length;
    const jMin = jaroFloor(threshold);
    const qHist = prune ? histogram(query) : undefined;
    const qBuckets = qHist ? [...qHist.keys()].filter((b) => qHist[b]! > 0) : [];
    for (let i = lo; i < hi; i++) {
      const form = forms[i]!;
      // Jaro matches pair equal characters, so the shared character multiset bounds them.
      const fHist = form.hist;
      if (qHist && fHist) {
        let shared = 0;
        for (const b of qBuckets) shared += Math.min(qHist[b]!, fHist[b]!);
        if ((shared / query.length + shared / form.norm.length + 1) / 3 < jMin - 1e-12) continue;
      }
      const score = jaroWinkler(query, form.norm);
      if (score >= threshold) visit(form, score);
    }
  };

  /**
   * Whether a form whose spelling is close enough is a potential match word for word: the name as
   * listed (or an admitted shortening) exactly; otherwise every word paired with a word of the
   * form — a party other than a person may leave one word out on either side ("GARANTEX EUROPE
   * OU") — and a paired listed word distinctive. For a person, two paired words of rarity 1 (a
   * moderately common surname and a rare given name: "Joaquin Guzman") do too, and so does a
   * listed name (not a shortening) written out with one misspelt word, the misspelling a word no
   * listed party carries ("Saddam Hussein al-Tkiriti"; "Muhammad Mushtaha" is not "MUHAMMAD,
   * Mustafa", Mushtaha is a name). Two common
   * words ("Jose", "Garcia") never make a match but as a listed name written out.
   */
  const accepts = (words: string[], form: Form, threshold: number, exact: boolean): boolean =>
    judge(words, form, threshold, exact) > 0;

  /** accepts, giving the words' similarity (Alignment.score) of an accepted form, else 0. */
  function judge(words: string[], form: Form, threshold: number, exact: boolean): number {
    if (exact && words.join(' ') === form.norm) return 1;
    const floor = Math.min(WORD_FLOOR, threshold);
    const a = form.individual
      ? align(words, form.tokens, floor, FUZZY_WORD_MIN, { rarity, common, listed })
      : align(words, form.tokens, floor, FUZZY_WORD_MIN_OTHER, { rarity, common, listed });
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
    const slip = a.fuzzyListed === 0 || (a.fuzzyListedFar === 0 && a.supporting > 0);
    return exact && form.surname === undefined && a.fuzzy === 1 && a.short === 0 && slip ? a.score : 0;
  }

  return {
    size: usable.length,
    search(name, threshold = DEFAULT_NAME_THRESHOLD) {
      const query = normalizeName(name);
      if (query === '' || !(threshold >= 0)) return [];
      const words = query.split(' ');
      const best = new Map<string, NameMatch>();
      const keep = (form: Form, score: number) => {
        const key = `${form.list}\u0000${form.entry_id}`;
        const prev = best.get(key);
        if (prev && prev.score >= score) return;
        best.set(key, {
          list: form.list,
          entry_id: form.entry_id,
          name: form.name,
          programs: [...form.programs],
          score,
          matched_name: form.published,
        });
      };
      if (words.length === 1) {
        for (const form of singles.get(query) ?? []) keep(form, 1);
        // An organisation's one-word name with one slip ("Hizbollah" for HIZBALLAH), when the word
        // written is no common name of the lists.
        if (query.length >= FUZZY_WORD_MIN && !common(query))
          for (const near of singleNeighbours.near(query)) {
            const score = jaroWinkler(query, near);
            if (near === query || score < threshold) continue;
            for (const form of singles.get(near)!) if (!form.individual) keep(form, score);
          }
      } else {
        scan(query, threshold, (form, score) => {
          if (accepts(words, form, threshold, true)) keep(form, score);
        });
        // Word by word: a person's name sharing with the query a rare word, or one a slip from it,
        // is judged as above and scored by its words. The Jaro-Winkler score of the whole, on
        // words in alphabetical order, falls under the threshold for a slip in a first word
        // ("Abdallh" for ABDALLAH: 0.911), a word written joined ("Sallyanne", "Altikriti") or an
        // article left out ("Ayman Zawahiri" for AL-ZAWAHIRI, Ayman).
        const candidates = new Set<Form>();
        if (words.length <= WORD_PATH_MAX)
          for (const w of words) {
            for (const f of byRare(w)) candidates.add(f);
            if (w.length >= DISTINCTIVE_MIN)
              for (const near of rareNeighbours.near(w)) for (const f of byRare(near)) candidates.add(f);
          }
        for (const form of candidates) {
          if (!form.usable) continue;
          if (best.get(`${form.list}\u0000${form.entry_id}`)?.score === 1) continue;
          const score = judge(words, form, threshold, true);
          if (score >= threshold) keep(form, score);
        }
        // One word more than a listed person's name: "Joaquin Archivaldo Guzman Loera" for
        // "GUZMAN LOERA, Joaquin" (0.89 as a whole). The candidates are the names sharing a
        // distinctive word with the query; each query word is left out in turn, and what is left
        // must match the listed name word for word.
        if (words.length >= 3 && words.length <= EXTRA_WORD_MAX) {
          const named = new Set<Form>();
          for (const w of words) for (const f of byWord.get(w) ?? []) named.add(f);
          for (const form of named) {
            if (form.tokens.length !== words.length - 1) continue;
            for (let k = 0; k < words.length; k++) {
              const fewer = words.filter((_, i) => i !== k);
              const score = jaroWinkler(fewer.join(' '), form.norm);
              if (score >= threshold && accepts(fewer, form, threshold, false)) keep(form, score);
            }
          }
        }
      }
      return [...best.values()].sort(
        (x, y) => y.score - x.score || x.list.localeCompare(y.list) || x.entry_id.localeCompare(y.entry_id),
      );
    },
  };
}
