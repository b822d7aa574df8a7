import { emptyRisk, exposureCategory, type RiskPart, toIsoUtc } from './risk-model.ts';

// Vendor response shapes (CONTRACT §7 and the protocols of issue 3; the rest follows each vendor
// family's published API). Every mapper takes the parsed JSON as `unknown` and never throws: it
// either reads the answer or names the first field it cannot read. A field the mapping needs that
// is missing, of the wrong type or out of range makes the answer unreadable — the caller counts the
// call as failed — because reading it as 0 or "no category" would pass a wallet as clean on an
// answer nobody understood. Fields the mapping does not need (names, descriptions, URLs, labels)
// are not checked. An optional list or object sent as null is read as absent (vendors write
// either). A refusal names the field and what was expected, never the value received: that is the
// vendor's data (licensed, and its internals), so it goes only to the server log (`received`).
// All accept an optional activity time at the top level as `last_activity_at`, `lastActivityAt`,
// `last_activity` or `lastActivity` (ISO text or Unix time; unreadable = none).
//
// vendor_a (address identifications, sanctions-screening style); HTTP 404 = no data (the client):
//   { "identifications": [ { "category": "sanctions", "name": "…", "description": "…", "url": "…" } ] }
//   needs: identifications an array; each an object with a non-empty string category.
//
// vendor_b (risk indicators and controlling entities); the client picks the address's element:
//   { "addressRiskIndicators": [ { "category": "Sanctions", "categoryRiskScoreLevel": 15,
//       "categoryRiskScoreLevelLabel": "Severe", "riskType": "OWNERSHIP" | "COUNTERPARTY",
//       "totalVolumeUsd": "1234.5" } ],
//     "entities": [ { "entity": "Garantex", "category": "sanctions", "riskScoreLevel": 15,
//       "riskScoreLevelLabel": "Severe" } ] }
//   needs: addressRiskIndicators (an array; entities optional, missing or null = none); an
//   indicator's category (non-empty string), categoryRiskScoreLevel (a number among 0, 1, 5, 10,
//   15), totalVolumeUsd (a finite number ≥ 0, or text that reads as one, as this vendor family
//   sends volumes: "1234.5", "1e-7") and riskType (OWNERSHIP or COUNTERPARTY, in any case; any
//   other value is refused: an unknown kind of risk is not guessed); an entity's category and
//   riskScoreLevel likewise.
//
// vendor_c (wallet risk with contributions):
//   { "risk_score": 0–10 | null,
//     "evaluation_detail": { "source": [ { "rule_name": "…", "risk_score": 6.2, "matched_elements":
//         [ { "category": "Sanctions", "contribution_percentage": 12.5 } ] } ], "destination": [ … ] },
//     "cluster_entities": [ { "name": "…", "category": "…", "is_primary_entity": true } ] }
//   needs: risk_score present (null or a number 0–10); evaluation_detail optional (missing or
//   null = nothing itemised, see mapVendorC), and when sent a source array (destination optional,
//   null = absent); each rule's matched_elements array, each element's category (non-empty
//   string) and contribution_percentage (a number 0–100). Both ranges allow a float's rounding
//   past a bound (VENDOR_FLOAT_TOLERANCE) and are clamped to it. The rules' own risk_score is not
//   used, so not checked. cluster_entities is optional (null = absent); when sent, each entity's
//   is_primary_entity (boolean) is needed, and the primary one's category.

export type VendorName = 'vendor_a' | 'vendor_b' | 'vendor_c';

/**
 * A vendor answer read: its risk, or the first field that could not be read. `problem` is safe to
 * show (the field, what was expected, the kind of value received); `received` is the value itself,
 * cut short, for the server log only (see the top of this file).
 */
export type VendorReading = { ok: true; risk: RiskPart } | { ok: false; problem: string; received?: string };

type Json = Record<string, unknown>;

/** An unreadable field; `message` is `<path>: expected <what>, <kind received>`. Caught by `reading`. */
class Unreadable extends Error {
  constructor(
    message: string,
    readonly received: string | undefined,
  ) {
    super(message);
  }
}

/** Most characters of a received value kept for the log. */
const RECEIVED_LOGGED = 200;

/** The kind of a JSON value, without the value. */
function kindOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'got null';
  if (Array.isArray(value)) return 'got an array';
  if (typeof value === 'object') return 'got an object';
  return `got a ${typeof value}`;
}

function unreadable(path: string, expected: string, value: unknown, got = kindOf(value)): never {
  const received = value === undefined ? undefined : JSON.stringify(value)?.slice(0, RECEIVED_LOGGED);
  throw new Unreadable(`${path}: expected ${expected}, ${got}`, received);
}

function object(value: unknown, path: string): Json {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Json;
  return unreadable(path, 'an object', value);
}

function array(value: unknown, path: string): unknown[] {
  return Array.isArray(value) ? value : unreadable(path, 'an array', value);
}

/** An optional list: missing or null is none (vendors write either for "nothing to list"). */
function optionalArray(value: unknown, path: string): unknown[] {
  return value === undefined || value === null ? [] : array(value, path);
}

/** A category: what the exposure mapping reads, so an empty one is as unreadable as none. */
function category(value: unknown, path: string): string {
  return typeof value === 'string' && value.trim() !== ''
    ? value
    : unreadable(path, 'a non-empty string', value);
}

/**
 * How far past a bound a vendor's figure may be and still read as the bound. Vendors compute
 * shares and scores in floating point: a share summed from parts comes out 100.00000000000001, a
 * score 10.000001 or -1e-9. Such a figure means the bound, not a broken answer; one clearly out of
 * range (-3, 12, 250) still is.
 */
const VENDOR_FLOAT_TOLERANCE = 1e-6;

/** A number from lo to hi (within the tolerance), clamped to the range. */
function numberIn(value: unknown, lo: number, hi: number, path: string): number {
  const expected = `a number from ${lo} to ${hi}`;
  if (typeof value !== 'number' || !Number.isFinite(value)) return unreadable(path, expected, value);
  if (value < lo - VENDOR_FLOAT_TOLERANCE || value > hi + VENDOR_FLOAT_TOLERANCE)
    return unreadable(path, expected, value, 'got a number out of range');
  return Math.min(hi, Math.max(lo, value));
}

/** A USD volume: a finite number ≥ 0, or text that Number() reads as one ("1234.5", "1e-7"). */
function volume(value: unknown, path: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  return unreadable(path, 'a finite number ≥ 0, or text reading as one', value);
}

const RISK_TYPES = ['OWNERSHIP', 'COUNTERPARTY'] as const;

/**
 * OWNERSHIP or COUNTERPARTY, in any case. Any other value is refused (fails the call): the two
 * are read differently (ownership is full exposure), and a kind nobody knows is not guessed as either.
 */
function riskType(value: unknown, path: string): (typeof RISK_TYPES)[number] {
  const upper = typeof value === 'string' ? value.trim().toUpperCase() : undefined;
  const known = RISK_TYPES.find((t) => t === upper);
  if (known) return known;
  return unreadable(
    path,
    'OWNERSHIP or COUNTERPARTY in any case (an unknown risk type is refused, not guessed)',
    value,
  );
}

function oneOf<T>(value: unknown, allowed: readonly T[], path: string): T {
  return allowed.includes(value as T)
    ? (value as T)
    : unreadable(path, `one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`, value);
}

function activity(body: Json): string | null {
  for (const key of ['last_activity_at', 'lastActivityAt', 'last_activity', 'lastActivity']) {
    const iso = toIsoUtc(body[key]);
    if (iso) return iso;
  }
  return null;
}

/** Runs a mapper on untrusted input: an unreadable field becomes a reading naming it, never a throw. */
function reading(map: (body: unknown) => RiskPart): (body: unknown) => VendorReading {
  return (body) => {
    try {
      return { ok: true, risk: map(body) };
    } catch (err) {
      if (err instanceof Unreadable) return { ok: false, problem: err.message, received: err.received };
      // Anything else is a bug in the mapper; still not a clean answer.
      return { ok: false, problem: `answer could not be read (${(err as Error).message})` };
    }
  };
}

/**
 * A direct identification of a darknet market or mixer is high risk although the contract only
 * scores sanctions: without a score such an address would come out "low".
 */
const IDENTIFIED_HIGH_RISK_SCORE = 75;

/** The address itself belongs to a party of this kind: full exposure (and a hit for sanctions). */
function owned(out: RiskPart, kind: ReturnType<typeof exposureCategory>): void {
  if (kind === 'sanctions') {
    out.sanctioned = 1;
    out.sanctions_hit = true;
  } else if (kind !== null) {
    out[kind] = 1;
  }
}

/** vendor_a: a sanctions identification → score 100 and sanctioned 1; darknet/mixer → exposure 1. */
export const mapVendorA = reading((input) => {
  const body = object(input, 'answer');
  const out = emptyRisk();
  out.last_activity_at = activity(body);
  array(body.identifications, 'identifications').forEach((item, i) => {
    const path = `identifications[${i}]`;
    const kind = exposureCategory(category(object(item, path).category, `${path}.category`));
    if (kind === 'sanctions') out.score = 100;
    else if (kind !== null) out.score = Math.max(out.score, IDENTIFIED_HIGH_RISK_SCORE);
    owned(out, kind);
  });
  return out;
});

/** The published risk levels and their scores (CONTRACT §7); any other value is unreadable. */
const LEVEL_SCORES: ReadonlyMap<number, number> = new Map([
  [15, 100],
  [10, 75],
  [5, 50],
  [1, 10],
  [0, 0],
]);
const LEVELS = [...LEVEL_SCORES.keys()];

function levelScore(value: unknown, path: string): number {
  return LEVEL_SCORES.get(oneOf(value, LEVELS, path))!;
}

/**
 * vendor_b (one address's element): score = highest level of indicators and entities; exposure =
 * category volume / all volume; an OWNERSHIP indicator, or an entity (who controls the address),
 * of a sanctions / darknet / mixer category → that exposure 1 (a sanctions hit for sanctions).
 */
export const mapVendorB = reading((input) => {
  const body = object(input, 'answer');
  const out = emptyRisk();
  out.last_activity_at = activity(body);
  const indicators = array(body.addressRiskIndicators, 'addressRiskIndicators').map((item, i) => {
    const path = `addressRiskIndicators[${i}]`;
    const ind = object(item, path);
    return {
      score: levelScore(ind.categoryRiskScoreLevel, `${path}.categoryRiskScoreLevel`),
      kind: exposureCategory(category(ind.category, `${path}.category`)),
      volume: volume(ind.totalVolumeUsd, `${path}.totalVolumeUsd`),
      riskType: riskType(ind.riskType, `${path}.riskType`),
    };
  });
  // Missing or null: no entity controls the address that the vendor knows of.
  const entities = optionalArray(body.entities, 'entities').map((item, i) => {
    const path = `entities[${i}]`;
    const entity = object(item, path);
    return {
      score: levelScore(entity.riskScoreLevel, `${path}.riskScoreLevel`),
      kind: exposureCategory(category(entity.category, `${path}.category`)),
    };
  });

  const total = indicators.reduce((sum, ind) => sum + ind.volume, 0);
  const volumes = { sanctions: 0, darknet: 0, mixer: 0 };
  for (const ind of indicators) {
    out.score = Math.max(out.score, ind.score);
    if (ind.kind === null) continue;
    volumes[ind.kind] += ind.volume;
    // OWNERSHIP: the address belongs to such an entity, which is full exposure whatever the volume.
    if (ind.riskType === 'OWNERSHIP') owned(out, ind.kind);
  }
  // An entity is who controls the address: read as an OWNERSHIP indicator of its category.
  for (const entity of entities) {
    out.score = Math.max(out.score, entity.score);
    owned(out, entity.kind);
  }
  if (total > 0) {
    out.sanctioned = Math.max(out.sanctioned, Math.min(1, volumes.sanctions / total));
    out.darknet = Math.max(out.darknet, Math.min(1, volumes.darknet / total));
    out.mixer = Math.max(out.mixer, Math.min(1, volumes.mixer / total));
  }
  return out;
});

/**
 * vendor_c: score = risk_score × 10 (null → 0); exposure = contribution_percentage / 100 (the
 * largest per category); the primary cluster entity (the address's owner) of a sanctions /
 * darknet / mixer category → that exposure 1 (a sanctions hit for sanctions), as vendor_b's entities.
 */
export const mapVendorC = reading((input) => {
  const body = object(input, 'answer');
  const out = emptyRisk();
  out.last_activity_at = activity(body);
  // null is the vendor's "no score"; absent is not an answer.
  out.score = body.risk_score === null ? 0 : numberIn(body.risk_score, 0, 10, 'risk_score') * 10;
  // evaluation_detail itemises what the score is made of: the matched elements are the only source
  // of exposures. Missing or null means nothing itemised, so no exposure from this vendor, whatever
  // the score: with a null score that is the vendor's "no data" answer; with a number the score
  // still counts in full (8 → 80, critical), only no category is read. The same rule for both, as
  // for any optional part sent as null. A detail that is sent must have its source list: a detail
  // of another shape is not "nothing itemised" but an answer we cannot read.
  const detail =
    body.evaluation_detail === undefined || body.evaluation_detail === null
      ? undefined
      : object(body.evaluation_detail, 'evaluation_detail');
  const directions: Array<[string, unknown[]]> = detail
    ? [
        ['source', array(detail.source, 'evaluation_detail.source')],
        ['destination', optionalArray(detail.destination, 'evaluation_detail.destination')],
      ]
    : [];
  for (const [name, rules] of directions) {
    rules.forEach((rule, r) => {
      const rulePath = `evaluation_detail.${name}[${r}]`;
      const elements = array(object(rule, rulePath).matched_elements, `${rulePath}.matched_elements`);
      elements.forEach((item, e) => {
        const path = `${rulePath}.matched_elements[${e}]`;
        const element = object(item, path);
        const kind = exposureCategory(category(element.category, `${path}.category`));
        const share =
          numberIn(element.contribution_percentage, 0, 100, `${path}.contribution_percentage`) / 100;
        if (kind === null) return;
        // Several rules can cite the same category: take the largest share, never a sum of repeats.
        const key = kind === 'sanctions' ? 'sanctioned' : kind;
        out[key] = Math.max(out[key], share);
      });
    });
  }
  optionalArray(body.cluster_entities, 'cluster_entities').forEach((item, i) => {
    const path = `cluster_entities[${i}]`;
    const entity = object(item, path);
    const primary = entity.is_primary_entity;
    if (typeof primary !== 'boolean') unreadable(`${path}.is_primary_entity`, 'a boolean', primary);
    // Only the primary entity (the address's owner) is mapped, so only its category is needed.
    if (primary) owned(out, exposureCategory(category(entity.category, `${path}.category`)));
  });
  return out;
});

/** The mapper for each configured vendor key. */
export const VENDOR_MAPPERS: Readonly<Record<VendorName, (body: unknown) => VendorReading>> = Object.freeze({
  vendor_a: mapVendorA,
  vendor_b: mapVendorB,
  vendor_c: mapVendorC,
});
