/** One `Digital Currency Address - <TICKER> <address>` item found in free-text remarks. */
export interface RemarkAddress {
  ticker: string;
  address: string;
}

// Items are `; `-separated; the first has no prefix, later ones are `alt. Digital Currency …`.
const ITEM = /(?:^|;)\s*(?:alt\.\s*)?Digital Currency Address\s*-\s*([A-Za-z0-9]+)\s+([^\s;]+)/g;

/** Extracts the digital-currency addresses of an OFAC Remarks field (already re-joined). */
export function extractRemarkAddresses(remarks: string): RemarkAddress[] {
  const out: RemarkAddress[] = [];
  for (const m of remarks.matchAll(ITEM)) {
    // The last item of a field ends the sentence: `… XBT 1abc.`; addresses never contain dots.
    const address = m[2]!.replace(/[.,]+$/, '');
    if (address !== '') out.push({ ticker: m[1]!.toUpperCase(), address });
  }
  return out;
}
