import {
  clamp,
  emptyRisk,
  type RiskCategory,
  type RiskPart,
  type ScreeningAction,
  toIsoUtc,
} from './risk-model.ts';

export {
  clamp,
  type ExposureCategory,
  emptyRisk,
  exposureCategory,
  type RiskCategory,
  type RiskPart,
  type ScreeningAction,
  toIsoUtc,
} from './risk-model.ts';
export {
  mapVendorA,
  mapVendorB,
  mapVendorC,
  VENDOR_MAPPERS,
  type VendorName,
  type VendorReading,
} from './risk-vendors.ts';

function laterOf(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/** Combines the sources' views: the worst of each (highest score and exposures, latest activity). */
export function combineRisk(parts: ReadonlyArray<RiskPart | null | undefined>): RiskPart {
  const out = emptyRisk();
  for (const p of parts) {
    if (!p) continue;
    out.score = Math.max(out.score, clamp(p.score, 0, 100));
    out.sanctioned = Math.max(out.sanctioned, clamp(p.sanctioned, 0, 1));
    out.darknet = Math.max(out.darknet, clamp(p.darknet, 0, 1));
    out.mixer = Math.max(out.mixer, clamp(p.mixer, 0, 1));
    out.last_activity_at = laterOf(out.last_activity_at, toIsoUtc(p.last_activity_at));
    out.sanctions_hit = out.sanctions_hit || p.sanctions_hit === true;
  }
  // A sanctions hit is full sanctions exposure, whichever source reported it.
  if (out.sanctions_hit) out.sanctioned = 1;
  return out;
}

/** Category of a score: low < 25, medium 25–49, high 50–74, critical ≥ 75, and critical on any sanctions hit. */
export function riskCategory(score: number, sanctioned: boolean): RiskCategory {
  if (sanctioned) return 'critical';
  const s = clamp(score, 0, 100);
  if (s >= 75) return 'critical';
  if (s >= 50) return 'high';
  if (s >= 25) return 'medium';
  return 'low';
}

/** Response actions, in contract order: BLOCK (block rule), REVIEW (alert rule), REQUEST_INFO (fail rule); else ALLOW. */
export function screeningActions(
  results: ReadonlyArray<{ triggered: boolean; result: string } | null | undefined>,
): ScreeningAction[] {
  const fired = new Set<string>();
  for (const r of results) {
    if (r && r.triggered === true) fired.add(r.result);
  }
  const actions: ScreeningAction[] = [];
  if (fired.has('block')) actions.push('BLOCK');
  if (fired.has('alert')) actions.push('REVIEW');
  if (fired.has('fail')) actions.push('REQUEST_INFO');
  return actions.length > 0 ? actions : ['ALLOW'];
}
