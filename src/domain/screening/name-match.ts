import { jaroFloor, jaroWinkler, minLengthRatio } from './jaro-winkler.ts';
import type { ListSource, SanctionsList } from './lists/model.ts';
import { accepts, FUZZY_WORD_MIN, judge } from './names/acceptance.ts';
import { addForms, bucketMask, byLength, type Collected, type Form, histogram } from './names/forms.ts';
import { normalizeName } from './names/normalise.ts';
import { buildSlipIndex } from './names/one-slip.ts';
import type { Words } from './names/word-alignment.ts';
import { wordNeighbours } from './word-neighbours.ts';

export { nameScore, normalizeName } from './names/normalise.ts';
export { shortenedNames, withoutMiddleNames } from './names/shortened.ts';

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

/** Bits set in a 32-bit integer. */
function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
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
/**
 * Longest query compared word by word from its rare words: persons' names in OFAC 2021 + UN have
 * 10 words or fewer but for 14 of 13,500 forms. A name field of 512 characters of listed names took
 * 124 ms this way (nothing by the whole-name scan, which no form is long enough to reach).
 */
const WORD_PATH_MAX = 10;
/** Longest query from which one word is left out in turn to find a listed name it contains. */
const EXTRA_WORD_MAX = 6;

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
  const known: Words = { rarity, common, listed };
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
  // Listed names written out with one slip, or an organisation's without its legal form.
  const slips = buildSlipIndex(usable, { common, rarity, distinctive, listed: (w) => carriedBy(w) > 0 });

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

  // Each form's bucket masks (bucketMask), in the order of `forms`: buckets with at least one, two
  // and three characters; -1 for a form too long to count (never pruned).
  const masks = [1, 2, 3].map(() => new Int32Array(forms.length));
  for (let i = 0; i < forms.length; i++) {
    const hist = forms[i]!.hist;
    for (let k = 0; k < masks.length; k++) masks[k]![i] = hist ? bucketMask(hist, k + 1) : -1;
  }
  const [masks1, masks2, masks3] = masks as [Int32Array, Int32Array, Int32Array];

  /** Calls `visit` with every multi-word form whose Jaro-Winkler score reaches `threshold`. */
  const scan = (query: string, threshold: number, visit: (form: Form, score: number) => void) => {
    const ratio = prune ? minLengthRatio(threshold) : 0;
    const lo = ratio > 0 ? firstAtLeast(Math.ceil(query.length * ratio - 1e-9)) : 0;
    const hi = ratio > 0 ? firstAtLeast(Math.floor(query.length / ratio + 1e-9) + 1) : forms.length;
    const jMin = jaroFloor(threshold);
    const lq = query.length;
    const qHist = prune ? histogram(query) : undefined;
    const qBuckets = qHist ? [...qHist.keys()].filter((b) => qHist[b]! > 0) : [];
    const [q1, q2, q3] = qHist ? [1, 2, 3].map((k) => bucketMask(qHist, k)) : [0, 0, 0];
    // Jaro matches pair equal characters, so the characters the query and a form share bound them:
    // a form is skipped when even `shared` matches without transpositions stay under jMin, i.e.
    // when it lacks more of the query's characters than `allowed` (set per length: the forms are
    // sorted by it). The loop reads typed arrays only until a form passes the masks: most fail
    // there, on the buckets they lack altogether.
    let length = -1;
    let allowed = 0;
    for (let i = lo; i < hi; i++) {
      if (qHist && masks1[i] !== -1) {
        if (lengths[i] !== length) {
          length = lengths[i]!;
          let shared = 0;
          while (shared <= lq && (shared / lq + shared / length + 1) / 3 < jMin - 1e-12) shared++;
          allowed = lq - shared;
        }
        const lacking =
          popcount(q1! & ~masks1[i]!) + popcount(q2! & ~masks2[i]!) + popcount(q3! & ~masks3[i]!);
        if (lacking > allowed) continue;
        const fHist = forms[i]!.hist!;
        let missing = 0;
        for (const b of qBuckets) {
          const short = qHist[b]! - fHist[b]!;
          if (short <= 0) continue;
          missing += short;
          if (missing > allowed) break;
        }
        if (missing > allowed) continue;
      }
      const form = forms[i]!;
      const score = jaroWinkler(query, form.norm);
      if (score >= threshold) visit(form, score);
    }
  };

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
          if (accepts(words, form, threshold, true, known)) keep(form, score);
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
          const score = judge(words, form, threshold, true, known);
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
              if (score >= threshold && accepts(fewer, form, threshold, false, known)) keep(form, score);
            }
          }
        }
      }
      slips.find(words, threshold, keep);
      return [...best.values()].sort(
        (x, y) => y.score - x.score || x.list.localeCompare(y.list) || x.entry_id.localeCompare(y.entry_id),
      );
    },
  };
}
