import { clamp, emptyRisk, exposureCategory, type RiskPart, toIsoUtc } from './risk-model.ts';

// Vendor response shapes accepted (CONTRACT §7 names the key fields; the rest follows each
// vendor family's published API). Every mapper takes the parsed JSON as `unknown`, tolerates
// missing or mistyped fields, and never throws. All accept an activity time at the top level as
// `last_activity_at`, `lastActivityAt`, `last_activity` or `lastActivity` (ISO text or Unix time).
//
// vendor_a (address identifications, sanctions-screening style); HTTP 404 = no data → null:
//   { "identifications": [ { "category": "sanctions", "name": "…", "description": "…", "url": "…" } ] }
//
// vendor_b (risk indicators); the body may be that object or a one-element array of it:
//   { "addressRiskIndicators": [ { "category": "Sanctions", "categoryRiskScoreLevel": 15,
//       "riskType": "OWNERSHIP" | "COUNTERPARTY", "totalVolumeUsd": "1234.5" } ] }
//   (volumes may be numbers or numeric strings)
//
// vendor_c (wallet risk with contributions):
//   { "risk_score": 0–10 | null,
//     "evaluation_detail": { "source": [ { "matched_elements": [ { "category": "Sanctions",
//         "contribution_percentage": 12.5 } ] } ], "destination": [ … same … ] },
//     "cluster_entities": [ { "name": "…", "category": "…", "is_primary_entity": true } ] }

export type VendorName = 'vendor_a' | 'vendor_b' | 'vendor_c';

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function activity(body: Json): string | null {
  for (const key of ['last_activity_at', 'lastActivityAt', 'last_activity', 'lastActivity']) {
    const iso = toIsoUtc(body[key]);
    if (iso) return iso;
  }
  return null;
}

/** Runs a mapper on untrusted input; malformed input counts as "no data", never an exception. */
function safely(map: (body: unknown) => RiskPart): (body: unknown) => RiskPart {
  return (body) => {
    try {
      return map(body);
    } catch {
      return emptyRisk();
    }
  };
}

/**
 * A direct identification of a darknet market or mixer is high risk although the contract only
 * scores sanctions: without a score such an address would come out "low".
 */
const IDENTIFIED_HIGH_RISK_SCORE = 75;

/** vendor_a: a sanctions identification → score 100 and sanctioned 1; darknet/mixer → exposure 1. */
export const mapVendorA = safely((input) => {
  const body = obj(input);
  const out = emptyRisk();
  out.last_activity_at = activity(body);
  for (const item of arr(body.identifications)) {
    const kind = exposureCategory(obj(item).category);
    if (kind === 'sanctions') {
      out.score = 100;
      out.sanctioned = 1;
      out.sanctions_hit = true;
    } else if (kind === 'darknet' || kind === 'mixer') {
      out[kind] = 1;
      out.score = Math.max(out.score, IDENTIFIED_HIGH_RISK_SCORE);
    }
  }
  return out;
});

/** categoryRiskScoreLevel → score; a level between the published ones takes the one below it. */
const LEVEL_SCORES: ReadonlyArray<[number, number]> = [
  [15, 100],
  [10, 75],
  [5, 50],
  [1, 10],
  [0, 0],
];

function levelScore(level: unknown): number {
  const l = clamp(level, 0, Number.MAX_SAFE_INTEGER);
  for (const [min, score] of LEVEL_SCORES) {
    if (l >= min) return score;
  }
  return 0;
}

/** vendor_b: score = highest level; exposure = category volume / all volume; OWNERSHIP → exposure 1. */
export const mapVendorB = safely((input) => {
  // Screening APIs of this family answer with an array, one element per address submitted.
  const body = obj(Array.isArray(input) ? input[0] : input);
  const out = emptyRisk();
  out.last_activity_at = activity(body);
  const indicators = arr(body.addressRiskIndicators).map(obj);
  const total = indicators.reduce((sum, i) => sum + clamp(i.totalVolumeUsd, 0, Number.MAX_VALUE), 0);
  const volume = { sanctions: 0, darknet: 0, mixer: 0 };
  for (const ind of indicators) {
    out.score = Math.max(out.score, levelScore(ind.categoryRiskScoreLevel));
    const kind = exposureCategory(ind.category);
    if (kind === null) continue;
    volume[kind] += clamp(ind.totalVolumeUsd, 0, Number.MAX_VALUE);
    // OWNERSHIP: the address belongs to such an entity, which is full exposure whatever the volume.
    if (String(ind.riskType ?? '').toUpperCase() === 'OWNERSHIP') {
      if (kind === 'sanctions') {
        out.sanctioned = 1;
        out.sanctions_hit = true;
      } else {
        out[kind] = 1;
      }
    }
  }
  if (total > 0) {
    out.sanctioned = Math.max(out.sanctioned, clamp(volume.sanctions / total, 0, 1));
    out.darknet = Math.max(out.darknet, clamp(volume.darknet / total, 0, 1));
    out.mixer = Math.max(out.mixer, clamp(volume.mixer / total, 0, 1));
  }
  return out;
});

/** vendor_c: score = risk_score × 10 (null → 0); exposure = contribution_percentage / 100. */
export const mapVendorC = safely((input) => {
  const body = obj(input);
  const out = emptyRisk();
  out.last_activity_at = activity(body);
  out.score = body.risk_score === null ? 0 : clamp(clamp(body.risk_score, 0, 10) * 10, 0, 100);
  const detail = obj(body.evaluation_detail);
  for (const direction of [detail.source, detail.destination]) {
    for (const rule of arr(direction)) {
      for (const element of arr(obj(rule).matched_elements).map(obj)) {
        const kind = exposureCategory(element.category);
        if (kind === null) continue;
        // Several rules can cite the same category: take the largest share, never a sum of repeats.
        const share = clamp(clamp(element.contribution_percentage, 0, 100) / 100, 0, 1);
        const key = kind === 'sanctions' ? 'sanctioned' : kind;
        out[key] = Math.max(out[key], share);
      }
    }
  }
  for (const entity of arr(body.cluster_entities).map(obj)) {
    // The address's own cluster being a sanctioned entity is a hit, not just exposure.
    if (entity.is_primary_entity === true && exposureCategory(entity.category) === 'sanctions') {
      out.sanctioned = 1;
      out.sanctions_hit = true;
    }
  }
  return out;
});

/** The mapper for each configured vendor key. */
export const VENDOR_MAPPERS: Readonly<Record<VendorName, (body: unknown) => RiskPart>> = Object.freeze({
  vendor_a: mapVendorA,
  vendor_b: mapVendorB,
  vendor_c: mapVendorC,
});
