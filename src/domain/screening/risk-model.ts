/** One source's view of a wallet: the unit every vendor mapper and the lists produce. */
export interface RiskPart {
  /** 0–100. */
  score: number;
  /** Exposures, fractions 0–1. */
  sanctioned: number;
  darknet: number;
  mixer: number;
  /** ISO 8601 UTC, or null when the source reports no activity date. */
  last_activity_at: string | null;
  /** The source says the address itself is sanctioned (not merely exposed to one). */
  sanctions_hit: boolean;
}

export type RiskCategory = 'low' | 'medium' | 'high' | 'critical';
export type ExposureCategory = 'sanctions' | 'darknet' | 'mixer';
export type ScreeningAction = 'BLOCK' | 'REVIEW' | 'REQUEST_INFO' | 'ALLOW';

/** A source that reports nothing: score 0, no exposure (also vendor_a's 404). */
export function emptyRisk(): RiskPart {
  return { score: 0, sanctioned: 0, darknet: 0, mixer: 0, last_activity_at: null, sanctions_hit: false };
}

/** Maps a vendor category name to the exposure it feeds (case-insensitive substring), else null. */
export function exposureCategory(category: unknown): ExposureCategory | null {
  if (typeof category !== 'string') return null;
  const c = category.toLowerCase();
  if (c.includes('sanction')) return 'sanctions';
  if (c.includes('darknet')) return 'darknet';
  if (c.includes('mixer') || c.includes('mixing') || c.includes('tumbler')) return 'mixer';
  return null;
}

/** Clamps to [lo, hi], mapping NaN and non-numbers to lo. */
export function clamp(value: unknown, lo: number, hi: number): number {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : NaN;
  if (!Number.isFinite(n)) return Number.isNaN(n) ? lo : n > 0 ? hi : lo;
  return Math.min(hi, Math.max(lo, n));
}

/** Normalises a reported activity time (ISO text, or Unix seconds / milliseconds) to ISO 8601 UTC. */
export function toIsoUtc(value: unknown): string | null {
  let ms: number;
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Below 1e12 is seconds (that many milliseconds would be 1970).
    ms = value < 1e12 ? value * 1000 : value;
  } else if (typeof value === 'string' && value.trim() !== '') {
    ms = Date.parse(value);
  } else {
    return null;
  }
  if (!Number.isFinite(ms)) return null;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
