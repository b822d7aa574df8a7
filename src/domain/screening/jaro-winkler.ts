// Scratch buffers reused across calls: matching runs thousands of times per request.
let flagsA = new Uint8Array(64);
let flagsB = new Uint8Array(64);

function scratch(a: number, b: number): void {
  if (flagsA.length < a) flagsA = new Uint8Array(a * 2);
  if (flagsB.length < b) flagsB = new Uint8Array(b * 2);
  flagsA.fill(0, 0, a);
  flagsB.fill(0, 0, b);
}

/** Jaro similarity 0–1 of two strings (compared by UTF-16 code unit). */
export function jaro(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  const window = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  scratch(la, lb);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const from = Math.max(0, i - window);
    const to = Math.min(lb - 1, i + window);
    const ch = a.charCodeAt(i);
    for (let j = from; j <= to; j++) {
      if (flagsB[j] === 0 && b.charCodeAt(j) === ch) {
        flagsA[i] = 1;
        flagsB[j] = 1;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if (flagsA[i] === 0) continue;
    while (flagsB[k] === 0) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) transpositions++;
    k++;
  }
  const m = matches;
  return (m / la + m / lb + (m - transpositions / 2) / m) / 3;
}

/** Jaro-Winkler similarity 0–1: Jaro boosted by a common prefix of up to 4 characters (p = 0.1). */
export function jaroWinkler(a: string, b: string): number {
  const j = jaro(a, b);
  // Winkler's boost threshold: a shared prefix only lifts strings that are already similar.
  if (j <= 0.7) return j;
  let prefix = 0;
  const max = Math.min(4, a.length, b.length);
  while (prefix < max && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return j + prefix * 0.1 * (1 - j);
}

/** The lowest Jaro score from which Jaro-Winkler can still reach `threshold`. */
export function jaroFloor(threshold: number): number {
  // JW ≤ 0.4 + 0.6·J once boosted (prefix ≤ 4, p = 0.1), and no boost applies at J ≤ 0.7.
  return threshold <= 0.7 ? threshold : (threshold - 0.4) / 0.6;
}

/**
 * The smallest length ratio (shorter / longer) two strings can have and still reach a
 * Jaro-Winkler score of `threshold`; lets an index skip candidates without scoring them.
 */
export function minLengthRatio(threshold: number): number {
  // With m ≤ the shorter length, J ≤ (2 + shorter/longer) / 3.
  return Math.max(0, 3 * jaroFloor(threshold) - 2);
}
