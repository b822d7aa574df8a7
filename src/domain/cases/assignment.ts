// Case assignment of CONTRACT §5: the client's officer with the fewest open cases. Ties go to the
// name that sorts first by code units (locale-independent, so every instance picks the same one).

export interface OfficerLoad {
  name: string;
  openCases: number;
}

function before(a: OfficerLoad, b: OfficerLoad): boolean {
  if (a.openCases !== b.openCases) return a.openCases < b.openCases;
  return a.name < b.name;
}

/** The officer to assign next: fewest open cases, then name; the first listed wins exact ties; null when none. */
export function pickOfficer<T extends OfficerLoad>(officers: readonly T[]): T | null {
  let best: T | null = null;
  for (const officer of officers) {
    if (best === null || before(officer, best)) best = officer;
  }
  return best;
}
