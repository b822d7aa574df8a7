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
export const DROPPABLE = new Set(
  [...PARTICLES].filter((p) => !['abu', 'ben', 'bin', 'bint', 'ibn', 'ould'].includes(p)),
);

/** The words of a name part, a particle joined to the word after it ("DE LA CRUZ" is one). */
export function nameWords(part: string): string[] {
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
