// Per-client rule settings (CONTRACT §2): thresholds, the high-risk country list, rules switched
// off, and the calendar used for business-day deadlines. Defaults are the contract's values.
import { isSupportedHolidayCountry } from '../calendar/holidays.ts';
import { countryCodeOf } from '../country-codes.ts';
import { RULE_IDS } from './catalogue.ts';
import fatf from './data/fatf-high-risk-countries.json' with { type: 'json' };

export interface RuleThresholds {
  readonly cdd_amount_eur: number;
  readonly self_hosted_amount_eur: number;
  readonly large_transaction_eur: number;
  readonly cumulative_window_days: number;
  readonly governance_review_days: number;
  readonly training_days: number;
  readonly cdd_review_days: number;
  readonly str_filing_business_days: number;
  readonly wallet_risk_score: number;
  readonly name_match_score: number;
}

export interface HighRiskCountries {
  readonly source: string;
  readonly date: string;
  /** ISO 3166-1 alpha-2, upper-case, sorted, unique. */
  readonly codes: readonly string[];
}

export interface ClientRuleSettings {
  readonly thresholds: RuleThresholds;
  readonly high_risk_countries: HighRiskCountries;
  /** Rule ids not evaluated for this client, in catalogue order. */
  readonly disabled_rules: readonly string[];
  /** IANA time zone for business days. */
  readonly time_zone: string;
  /** ISO 3166-1 alpha-2 country whose public holidays are skipped; null: none. */
  readonly holiday_country: string | null;
}

/** Client settings that cannot be used; `errors` lists every problem found. */
export class RuleSettingsError extends Error {
  constructor(readonly errors: string[]) {
    super(`invalid rule settings: ${errors.join('; ')}`);
    this.name = 'RuleSettingsError';
  }
}

interface Bound {
  min: number;
  max: number;
  integer: boolean;
}

/**
 * Longest rolling window for MICA-CDD-002, in days. The embedded store keeps a year of
 * transactions in memory for the window sums (services/window-store.ts), so a longer setting would
 * silently undercount there.
 */
export const MAX_CUMULATIVE_WINDOW_DAYS = 365;

// Day counts are whole days; scores have the ranges the data fields use (0–100, 0–1).
const THRESHOLD_BOUNDS: Readonly<Record<keyof RuleThresholds, Bound>> = {
  cdd_amount_eur: { min: 0, max: Number.MAX_SAFE_INTEGER, integer: false },
  self_hosted_amount_eur: { min: 0, max: Number.MAX_SAFE_INTEGER, integer: false },
  large_transaction_eur: { min: 0, max: Number.MAX_SAFE_INTEGER, integer: false },
  cumulative_window_days: { min: 1, max: MAX_CUMULATIVE_WINDOW_DAYS, integer: true },
  governance_review_days: { min: 1, max: 3660, integer: true },
  training_days: { min: 1, max: 3660, integer: true },
  cdd_review_days: { min: 1, max: 3660, integer: true },
  str_filing_business_days: { min: 0, max: 365, integer: true },
  wallet_risk_score: { min: 0, max: 100, integer: false },
  name_match_score: { min: 0, max: 1, integer: false },
};

const TOP_LEVEL_KEYS = [
  'thresholds',
  'high_risk_countries',
  'disabled_rules',
  'time_zone',
  'holiday_country',
];
const HIGH_RISK_KEYS = ['source', 'date', 'codes'];
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DEFAULT_CLIENT_LIST_SOURCE = 'client setting';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function normaliseCodes(codes: readonly string[]): string[] {
  return [...new Set(codes.map((c) => c.trim().toUpperCase()))].sort();
}

function isValidIsoDate(s: string): boolean {
  const m = ISO_DATE.exec(s);
  if (m === null) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

/** Default settings: the contract's thresholds and the latest FATF snapshot held in data/. */
export const DEFAULT_RULE_SETTINGS: ClientRuleSettings = deepFreeze({
  thresholds: {
    cdd_amount_eur: 1000,
    self_hosted_amount_eur: 1000,
    large_transaction_eur: 10000,
    cumulative_window_days: 30,
    governance_review_days: 365,
    training_days: 365,
    cdd_review_days: 365,
    str_filing_business_days: 2,
    wallet_risk_score: 75,
    name_match_score: 0.92,
  },
  high_risk_countries: {
    source: fatf.lists.join(' + '),
    date: fatf.date,
    codes: normaliseCodes([...fatf.call_for_action, ...fatf.increased_monitoring]),
  },
  disabled_rules: [],
  time_zone: 'UTC',
  holiday_country: null,
});

function unknownKeys(obj: Record<string, unknown>, allowed: string[], path: string, errors: string[]): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) errors.push(`${path}${k}: unknown setting`);
  }
}

function resolveThresholds(v: unknown, errors: string[]): RuleThresholds {
  const out: Record<string, number> = { ...DEFAULT_RULE_SETTINGS.thresholds };
  if (v === undefined) return out as unknown as RuleThresholds;
  if (!isPlainObject(v)) {
    errors.push('thresholds: must be an object');
    return out as unknown as RuleThresholds;
  }
  unknownKeys(v, Object.keys(THRESHOLD_BOUNDS), 'thresholds.', errors);
  for (const [key, bound] of Object.entries(THRESHOLD_BOUNDS)) {
    const value = v[key];
    if (value === undefined) continue;
    const ok =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      value >= bound.min &&
      value <= bound.max &&
      (!bound.integer || Number.isInteger(value));
    if (ok) out[key] = value;
    else {
      const kind = bound.integer ? 'an integer' : 'a number';
      // The bound is stated whatever it is: "≥ 0" alone read as wrong for 1e16, which is refused
      // as being over 2^53 − 1 (amounts above it are not exact as numbers).
      const range = `between ${bound.min} and ${bound.max}`;
      errors.push(`thresholds.${key}: must be ${kind} ${range}`);
    }
  }
  return out as unknown as RuleThresholds;
}

// A client list replaces the default whole: merging codes into FATF's would misstate its source.
function resolveHighRisk(v: unknown, errors: string[]): HighRiskCountries {
  if (v === undefined) return DEFAULT_RULE_SETTINGS.high_risk_countries;
  if (!isPlainObject(v)) {
    errors.push('high_risk_countries: must be an object {source?, date, codes}');
    return DEFAULT_RULE_SETTINGS.high_risk_countries;
  }
  unknownKeys(v, HIGH_RISK_KEYS, 'high_risk_countries.', errors);
  const { source, date, codes } = v;
  let outSource = DEFAULT_CLIENT_LIST_SOURCE;
  if (source !== undefined) {
    if (typeof source === 'string' && source.trim() !== '') outSource = source.trim();
    else errors.push('high_risk_countries.source: must be a non-empty string');
  }
  if (typeof date !== 'string' || !isValidIsoDate(date)) {
    errors.push('high_risk_countries.date: required, a calendar date YYYY-MM-DD');
  }
  let outCodes: string[] = [];
  if (!Array.isArray(codes)) errors.push('high_risk_countries.codes: required, an array of alpha-2 codes');
  else {
    // Assigned codes only: a typo ("KR" is a code, "IRN" and "XX" are not) would list no one.
    const bad = codes.filter((c) => typeof c !== 'string' || countryCodeOf(c.trim()) === undefined);
    if (bad.length > 0)
      errors.push(`high_risk_countries.codes: not ISO 3166-1 alpha-2 codes: ${JSON.stringify(bad)}`);
    else outCodes = normaliseCodes(codes as string[]);
  }
  return { source: outSource, date: typeof date === 'string' ? date : '', codes: outCodes };
}

function resolveDisabled(v: unknown, errors: string[]): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((id) => typeof id !== 'string')) {
    errors.push('disabled_rules: must be an array of rule ids');
    return [];
  }
  const unknown = v.filter((id) => !RULE_IDS.includes(id));
  if (unknown.length > 0) errors.push(`disabled_rules: unknown rule ids ${JSON.stringify(unknown)}`);
  // Catalogue order, no duplicates: equal settings must hash to the same rule-set version.
  return RULE_IDS.filter((id) => v.includes(id));
}

function resolveTimeZone(v: unknown, errors: string[]): string {
  if (v === undefined) return DEFAULT_RULE_SETTINGS.time_zone;
  if (typeof v === 'string' && v.trim() !== '') {
    try {
      // The canonical spelling ('utc' → 'UTC') keeps the rule-set version stable.
      return new Intl.DateTimeFormat('en-US', { timeZone: v.trim() }).resolvedOptions().timeZone;
    } catch {
      // fall through to the error below
    }
  }
  errors.push(`time_zone: not an IANA time zone: ${JSON.stringify(v)}`);
  return DEFAULT_RULE_SETTINGS.time_zone;
}

function resolveHolidayCountry(v: unknown, errors: string[]): string | null {
  if (v === undefined || v === null) return null;
  // countryCodeOf: two ASCII letters (upper-casing alone would read `ſe`, long s, as SE).
  const code = typeof v === 'string' ? countryCodeOf(v.trim()) : undefined;
  if (code !== undefined && isSupportedHolidayCountry(code)) return code;
  errors.push(`holiday_country: not a supported alpha-2 country or null: ${JSON.stringify(v)}`);
  return null;
}

/** Deep-merges a client's overrides onto the defaults; throws RuleSettingsError listing every problem. */
export function resolveRuleSettings(overrides: unknown): ClientRuleSettings {
  if (overrides === undefined || overrides === null) return DEFAULT_RULE_SETTINGS;
  if (!isPlainObject(overrides)) throw new RuleSettingsError(['settings: must be an object']);
  const errors: string[] = [];
  unknownKeys(overrides, TOP_LEVEL_KEYS, '', errors);
  const settings: ClientRuleSettings = {
    thresholds: resolveThresholds(overrides.thresholds, errors),
    high_risk_countries: resolveHighRisk(overrides.high_risk_countries, errors),
    disabled_rules: resolveDisabled(overrides.disabled_rules, errors),
    time_zone: resolveTimeZone(overrides.time_zone, errors),
    holiday_country: resolveHolidayCountry(overrides.holiday_country, errors),
  };
  if (errors.length > 0) throw new RuleSettingsError(errors);
  return deepFreeze(settings);
}
