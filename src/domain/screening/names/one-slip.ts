import { jaroWinkler } from '../jaro-winkler.ts';
import { oneSlipApart, wordNeighbours } from '../word-neighbours.ts';
import type { Form } from './forms.ts';
import { withoutLegalForm } from './legal-forms.ts';

/**
 * The least score of a listed name written out with one slip: a potential match at the default
 * threshold (0.92) whatever Jaro-Winkler makes of it (CIVEX / CIMEX 0.89, "Sadam Hussein" /
 * "HUSSEIN, Saddam" 0.91: the sorted words put the slip first). A client with a stricter threshold
 * keeps the slips Jaro-Winkler scores over it (most, in names of several long words).
 */
export const SLIP_SCORE = 0.92;
/** Shortest listed word read with one slip: one letter replaced, added or dropped, or two swapped. */
export const SLIP_WORD_MIN = 4;
/**
 * A person's listed word shorter than this, one slip off, is often another name (PATEK / Patel,
 * JIAN / Juan, OMARI / Omar): it counts as a slip beside a word of the name, as written, that
 * few parties carry, or when the word written is nobody's name (see buildSlipIndex).
 */
const PERSON_SLIP_ALONE = 6;
/**
 * Frequent surnames and given names of 4–5 letters across the world that few listed parties carry:
 * written in a person's name, such a word is that name, not a slip of a listed one ("Omar Patel"
 * is not "PATEK, Omar"). The lists' own counts cannot tell: PATEL is carried by none.
 */
const SHORT_WORLD_NAMES = new Set([
  'anna',
  'brown',
  'chen',
  'cohen',
  'costa',
  'davis',
  'devi',
  'garza',
  'gupta',
  'jones',
  'kumar',
  'lewis',
  'meyer',
  'moore',
  'patel',
  'perez',
  'reyes',
  'rossi',
  'sahin',
  'sato',
  'silva',
  'singh',
  'smith',
  'tran',
  'weber',
  'white',
  'young',
  'zhang',
  'zhao',
  'zhou',
  'yang',
  'wang',
  'huang',
]);
/** Shortest word of an organisation's two-word name matched alone (see `contained`). */
const CONTAINED_MIN = 6;
/**
 * Shortest listed one-word name read with one slip (the query may have a letter less: "Yakza" for
 * YAKUZA). Shorter single words are
 * mostly given names one slip from some organisation's short name ("Ana" / SANA, "Sara" / SARAK,
 * "Nadia" / NADA, "Alex" / ACEX OY, "Zara" / MARA), and a query alone cannot tell a person from a
 * company; the lists cannot either (most such given names are nobody's name in them). So "Hamus"
 * does not find HAMAS: a single word that short matches exactly only.
 */
const SINGLE_SLIP_MIN = 6;

/** What the index knows of a word (see name-match.ts). */
export interface SlipWords {
  common: (word: string) => boolean;
  rarity: (word: string) => number;
  distinctive: (word: string) => boolean;
  listed: (word: string) => boolean;
}

interface Core {
  form: Form;
  /** The form's words, sorted; an organisation's without its legal form (form.tokens: with it). */
  words: string[];
}

/** Finds listed names written out with at most one slip (see buildSlipIndex). */
export interface SlipIndex {
  find(query: string[], threshold: number, keep: (form: Form, score: number) => void): void;
}

/** The one word of `q` not in `f` and the one of `f` not in `q` (both sorted); null if more differ. */
function oneWordApart(q: string[], f: string[]): [string, string] | 'same' | null {
  if (Math.abs(q.length - f.length) > 0) return null;
  let i = 0;
  let j = 0;
  let onlyQ: string | undefined;
  let onlyF: string | undefined;
  while (i < q.length || j < f.length) {
    const a = q[i];
    const b = f[j];
    if (a !== undefined && a === b) {
      i++;
      j++;
    } else if (b === undefined || (a !== undefined && a < b)) {
      if (onlyQ !== undefined) return null;
      onlyQ = a;
      i++;
    } else {
      if (onlyF !== undefined) return null;
      onlyF = b;
      j++;
    }
  }
  if (onlyQ === undefined && onlyF === undefined) return 'same';
  return onlyQ !== undefined && onlyF !== undefined ? [onlyQ, onlyF] : null;
}

/**
 * Listed names and aliases written out with one slip in one word of SLIP_WORD_MIN letters or more
 * (one letter replaced, added or dropped, or two neighbouring letters swapped), every other word as
 * listed, in any order; an organisation's legal form optional (LEGAL_FORMS). The rarity rules of
 * the rest of the matcher do not apply: "Islamik Revolutionary Guard Corps" is that name, though
 * ISLAMIC, GUARD, CORPS are common words of the lists. Guards against another name taken for a
 * slip: the word written is no common word of the lists (Juan is not a slip of JIAN, nor Mohamed
 * of MOHAMAD); a person's name is matched as listed only (not shortened), and a person's word under
 * PERSON_SLIP_ALONE letters only beside a rare word written as listed, or when the word written is
 * carried by no listed party and is no frequent name (SHORT_WORLD_NAMES: "Omar Patel" is not
 * "PATEK, Omar"); a person's one-word name is left to the exact match.
 *
 * Also: a one-word query equal to a word of an organisation's two-word name or alias, when that
 * word is distinctive, of CONTAINED_MIN letters or more and found in two of the entry's names or
 * more ("Hezbollah": HIZBALLAH's aliases LEBANESE HEZBOLLAH and EXTERNAL SECURITY ORGANIZATION OF
 * HEZBOLLAH). Scored SLIP_SCORE.
 */
export function buildSlipIndex(forms: Form[], known: SlipWords): SlipIndex {
  const byWord = new Map<string, Core[]>();
  const singles = new Map<string, Core[]>();
  const contained = new Map<string, Form[]>();
  const entryWords = new Map<string, Map<string, number>>();
  const entryKey = (f: Form) => `${f.list}\u0000${f.entry_id}`;
  for (const form of forms) {
    if (!form.usable || form.surname !== undefined) continue;
    if (form.individual) {
      if (form.tokens.length < 2) continue;
    } else {
      const counts = entryWords.get(entryKey(form)) ?? new Map<string, number>();
      entryWords.set(entryKey(form), counts);
      for (const w of new Set(form.tokens)) counts.set(w, (counts.get(w) ?? 0) + 1);
    }
    const core: Core = { form, words: form.individual ? form.tokens : withoutLegalForm(form.tokens) };
    if (core.words.length === 1) {
      if (form.individual) continue;
      const w = core.words[0]!;
      singles.set(w, [...(singles.get(w) ?? []), core]);
      if (form.tokens.length === 1) continue;
    }
    // By every word as listed, the legal form's too: the slip may be in it ("SPRING SHIPPING
    // LIMETED", "KOREA HEUNGJIN TRADING COMEANY") or make a word look like one ("Corp" for CORPS).
    for (const w of new Set(form.tokens)) {
      const list = byWord.get(w);
      if (list) list.push(core);
      else byWord.set(w, [core]);
    }
  }
  for (const cores of byWord.values())
    for (const { form, words } of cores) {
      if (form.individual || words.length !== 2) continue;
      for (const w of words)
        if (
          w.length >= CONTAINED_MIN &&
          known.distinctive(w) &&
          (entryWords.get(entryKey(form))!.get(w) ?? 0) >= 2
        ) {
          const list = contained.get(w) ?? [];
          if (!list.includes(form)) contained.set(w, [...list, form]);
        }
    }
  const singleNeighbours = wordNeighbours([...singles.keys()].filter((w) => w.length >= SINGLE_SLIP_MIN));

  /** The score of `core` against the query words `q` (sorted), or 0. */
  const judge = (q: string[], listed: string[], core: Core): number => {
    const apart = oneWordApart(q, listed);
    if (apart === null) return 0;
    if (apart === 'same') return 1;
    const [qw, fw] = apart;
    if (fw.length < SLIP_WORD_MIN || !oneSlipApart(qw, fw)) return 0;
    // An organisation's name is spelt in words of the language (CORP for CORPS, ISLAMIK for ISLAMIC);
    // a person's common word is a name of its own.
    if (core.form.individual && known.common(qw)) return 0;
    if (core.form.individual && fw.length < PERSON_SLIP_ALONE) {
      const rareBeside = listed.some((w) => w !== fw && known.rarity(w) > 0);
      if (!rareBeside && (known.listed(qw) || SHORT_WORLD_NAMES.has(qw))) return 0;
    }
    return Math.max(SLIP_SCORE, jaroWinkler(q.join(' '), listed.join(' ')));
  };

  /** The cores that can be one word apart from `q`: those holding one of its two rarest words. */
  const candidates = (q: string[], into: Set<Core>) => {
    const distinct = [...new Set(q)].sort(
      (a, b) => (byWord.get(a)?.length ?? 0) - (byWord.get(b)?.length ?? 0),
    );
    for (const w of distinct.slice(0, 2)) for (const core of byWord.get(w) ?? []) into.add(core);
  };

  return {
    find(query, threshold, keep) {
      const org = withoutLegalForm(query);
      const report = (form: Form, score: number) => {
        if (score > 0 && score >= threshold) keep(form, score);
      };
      if (org.length === 1) {
        const word = org[0]!;
        for (const core of singles.get(word) ?? []) report(core.form, 1);
        if (word.length >= SINGLE_SLIP_MIN - 1 && !known.common(word))
          for (const near of singleNeighbours.near(word))
            if (near !== word && near.length >= SINGLE_SLIP_MIN)
              for (const core of singles.get(near)!)
                report(core.form, Math.max(SLIP_SCORE, jaroWinkler(word, near)));
        for (const form of contained.get(word) ?? []) report(form, SLIP_SCORE);
      }
      const found = new Set<Core>();
      if (org.length >= 2) candidates(org, found);
      if (query.length >= 2 && query.length !== org.length) candidates(query, found);
      for (const core of found) {
        if (core.form.individual) report(core.form, judge(query, core.words, core));
        // Legal forms left out on both sides, or the names compared as written.
        else report(core.form, Math.max(judge(org, core.words, core), judge(query, core.form.tokens, core)));
      }
    },
  };
}
