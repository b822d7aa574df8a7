import type { ListSource, SanctionsEntry } from '../lists/model.ts';
import { normalizeName } from './normalise.ts';
import { shortForms } from './shortened.ts';

// Character buckets for a cheap upper bound on Jaro matches: a-z, 0-9, space, everything else.
const BUCKETS = 38;

function bucket(code: number): number {
  if (code >= 97 && code <= 122) return code - 97;
  if (code >= 48 && code <= 57) return code - 22;
  return code === 32 ? 36 : 37;
}

/**
 * The buckets in which a histogram counts at least `atLeast`, one bit each (the last bit stands for
 * buckets 31–37 together). Summed over atLeast = 1, 2, 3, `popcount(query & ~form)` is a lower
 * bound on the query's characters a form lacks, got without reading the form's counts.
 */
export function bucketMask(hist: Uint16Array, atLeast = 1): number {
  let mask = 0;
  for (let b = 0; b < BUCKETS; b++) if (hist[b]! >= atLeast) mask |= 1 << Math.min(b, 31);
  return mask;
}

/** Counts per bucket; undefined for text too long to count exactly (such forms are never pruned). */
export function histogram(text: string): Uint16Array | undefined {
  if (text.length > 0xffff) return undefined;
  const h = new Uint16Array(BUCKETS);
  for (let i = 0; i < text.length; i++) h[bucket(text.charCodeAt(i))]!++;
  return h;
}

/** One normalised name of a listed entry: its name, an alias, or a person's shortened name. */
export interface Form {
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

/** Raw forms of the held lists, with how many entries carry each word (in a name or alias). */
export interface Collected {
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
export function addForms(into: Collected, list: ListSource, entry: SanctionsEntry): void {
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

/** The forms ordered by length, keeping their order within a length (a counting sort). */
export function byLength(unsorted: Form[]): Form[] {
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
