import { jaroFloor, jaroWinkler, minLengthRatio } from './jaro-winkler.ts';
import type { ListSource, SanctionsEntry, SanctionsList } from './lists/model.ts';

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
  published: string;
  list: ListSource;
  entry_id: string;
  name: string;
  programs: string[];
  hist: Uint16Array | undefined;
}

/**
 * A person's name as it is usually written in a payment, without the middle names: "LIFSHITS,
 * Artem Mikhaylovich" (OFAC: surname, then given names) → "Artem LIFSHITS"; "ABDUL RAHMAN YASIN
 * AL-HAYALI" (UN: the parts in order) → "ABDUL AL-HAYALI". Undefined when there is no middle name.
 */
export function withoutMiddleNames(published: string): string | undefined {
  const comma = published.split(',');
  if (comma.length === 2) {
    const surname = comma[0]!.trim();
    const given = comma[1]!.trim().split(/\s+/);
    return surname !== '' && given.length >= 2 ? `${given[0]} ${surname}` : undefined;
  }
  if (comma.length > 2) return undefined;
  const parts = published.trim().split(/\s+/);
  return parts.length >= 3 ? `${parts[0]} ${parts.at(-1)}` : undefined;
}

/**
 * Adds the distinct normalised forms of an entry's name and aliases; for a person also each name
 * without its middle names, so that "Artem Lifshits" finds "LIFSHITS, Artem Mikhaylovich" (the full
 * forms score ~0.90 against it, under the threshold).
 */
function addForms(forms: Form[], list: ListSource, entry: SanctionsEntry): void {
  const seen = new Set<string>();
  const add = (published: string, text: string) => {
    const norm = normalizeName(text);
    if (norm === '' || seen.has(norm)) return;
    seen.add(norm);
    const { entry_id, name, programs } = entry;
    forms.push({ norm, published, list, entry_id, name, programs, hist: histogram(norm) });
  };
  for (const published of [entry.name, ...entry.aliases]) add(published, published);
  if (entry.type !== 'individual') return;
  for (const published of [entry.name, ...entry.aliases]) {
    const short = withoutMiddleNames(published);
    if (short !== undefined) add(published, short);
  }
}

/** Builds the name index of the given lists: every entry's name and aliases, normalised once. */
export function buildNameIndex(lists: SanctionsList[]): NameIndex {
  const forms: Form[] = [];
  for (const list of lists) for (const entry of list.entries) addForms(forms, list.source, entry);
  return indexOf(forms);
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
  const forms: Form[] = [];
  let done = 0;
  for (const list of lists)
    for (const entry of list.entries) {
      addForms(forms, list.source, entry);
      if (++done % slice === 0) await pause();
    }
  return indexOf(forms);
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

function indexOf(unsorted: Form[]): NameIndex {
  // Sorted by length, so a search scores only the slice whose length can still reach the threshold.
  const forms = byLength(unsorted);
  const lengths = forms.map((f) => f.norm.length);

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

  return {
    size: forms.length,
    search(name, threshold = DEFAULT_NAME_THRESHOLD) {
      const query = normalizeName(name);
      if (query === '' || !(threshold >= 0)) return [];
      const ratio = minLengthRatio(threshold);
      const lo = ratio > 0 ? firstAtLeast(Math.ceil(query.length * ratio - 1e-9)) : 0;
      const hi = ratio > 0 ? firstAtLeast(Math.floor(query.length / ratio + 1e-9) + 1) : forms.length;
      const jMin = jaroFloor(threshold);
      const qHist = histogram(query);
      const qBuckets = qHist ? [...qHist.keys()].filter((b) => qHist[b]! > 0) : [];
      const best = new Map<string, NameMatch>();
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
        if (score < threshold) continue;
        const key = `${form.list}\u0000${form.entry_id}`;
        const prev = best.get(key);
        if (prev && prev.score >= score) continue;
        best.set(key, {
          list: form.list,
          entry_id: form.entry_id,
          name: form.name,
          programs: [...form.programs],
          score,
          matched_name: form.published,
        });
      }
      return [...best.values()].sort(
        (x, y) => y.score - x.score || x.list.localeCompare(y.list) || x.entry_id.localeCompare(y.entry_id),
      );
    },
  };
}
