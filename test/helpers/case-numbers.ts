import assert from 'node:assert/strict';

/**
 * Case numbers run from 1 without gaps within each year (CASE-<year>-<seq>). Grouped by year, so
 * that a run crossing midnight of 31 December still holds the numbers to it.
 */
export function assertGapFreePerYear(caseNumbers: string[]): void {
  const byYear = new Map<string, number[]>();
  for (const n of caseNumbers) {
    const m = /^CASE-(\d{4,})-(\d{6,})$/.exec(n);
    assert.ok(m, `a case number: ${n}`);
    byYear.set(m[1]!, [...(byYear.get(m[1]!) ?? []), Number(m[2])]);
  }
  for (const seqs of byYear.values())
    assert.deepEqual(
      seqs.sort((a, b) => a - b),
      seqs.map((_, i) => i + 1),
    );
}

/** The number the first case of a client gets in the year of its creation. */
export function firstCaseNumber(createdAt: Date | string): string {
  return `CASE-${new Date(createdAt).getUTCFullYear()}-000001`;
}
