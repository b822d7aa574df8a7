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

/** One open case of an officer being removed, and where it goes. */
export interface Reassignment<C> {
  case: C;
  /** The officer it goes to; null when no officer is left (the case is unassigned). */
  to: string | null;
  note: string;
}

/**
 * Where the open cases of a removed officer go: each, in the order given (due first), to the
 * officer with the fewest open cases then, counting the cases handed out before it, as new cases are
 * assigned; unassigned when no officer is left. `loads`: the remaining officers.
 */
export function reassignmentPlan<C>(
  removed: string,
  cases: readonly C[],
  loads: readonly OfficerLoad[],
): Reassignment<C>[] {
  const left = loads.map((o) => ({ ...o }));
  return cases.map((c) => {
    const to = pickOfficer(left);
    if (to) to.openCases++;
    return {
      case: c,
      to: to?.name ?? null,
      note: to
        ? `assigned to ${to.name} (was ${removed}): officer ${removed} removed`
        : `unassigned (was ${removed}): officer ${removed} removed, none left`,
    };
  });
}
