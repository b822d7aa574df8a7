import { resolveRuleSettings } from '../domain/rules/settings.ts';
import { DEFAULT_API_LIMITS, type Limits } from './rate-limit.service.ts';

/**
 * A client's stored settings: the rule settings (thresholds, high-risk list, disabled rules,
 * calendar) plus the service limits arranged with the operator.
 */
export interface ClientSettingsParts {
  ruleOverrides: Record<string, unknown>;
  rateLimits: Required<Limits>;
  /** How long audit rows are kept (years); the spec's 5 unless arranged otherwise. */
  retentionYears: number;
}

export const DEFAULT_RETENTION_YEARS = 5;
/** The legal minimum (spec, "Retention": audit trail 5 years); the store's maintenance functions refuse less. */
export const MIN_RETENTION_YEARS = 5;

const LIMIT_KEYS = ['per_minute', 'burst_per_minute', 'per_day'] as const;

/** Splits stored settings into their parts, checking the limits; throws with a message on a bad value. */
export function splitClientSettings(
  settings: Record<string, unknown>,
  defaults: Required<Limits> = DEFAULT_API_LIMITS,
): ClientSettingsParts {
  const { rate_limits, retention_years, ...ruleOverrides } = settings;
  if (
    retention_years !== undefined &&
    (typeof retention_years !== 'number' ||
      !Number.isInteger(retention_years) ||
      retention_years < MIN_RETENTION_YEARS ||
      retention_years > 100)
  )
    throw new Error(
      `retention_years: must be an integer from ${MIN_RETENTION_YEARS} to 100 (the audit trail is kept 5 years)`,
    );
  const retentionYears = (retention_years as number | undefined) ?? DEFAULT_RETENTION_YEARS;
  const rateLimits: Required<Limits> = { ...defaults };
  if (rate_limits !== undefined) {
    if (!rate_limits || typeof rate_limits !== 'object' || Array.isArray(rate_limits))
      throw new Error('rate_limits must be an object');
    for (const [k, v] of Object.entries(rate_limits)) {
      if (!(LIMIT_KEYS as readonly string[]).includes(k))
        throw new Error(`rate_limits.${k}: unknown (allowed: ${LIMIT_KEYS.join(', ')})`);
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
        throw new Error(`rate_limits.${k}: must be a positive integer`);
      rateLimits[k as (typeof LIMIT_KEYS)[number]] = v;
    }
    // A client given only a minute limit keeps the default proportion of burst to minute limit.
    if (!('burst_per_minute' in rate_limits))
      rateLimits.burst_per_minute = Math.round(
        (rateLimits.per_minute * defaults.burst_per_minute) / defaults.per_minute,
      );
    if (rateLimits.burst_per_minute < rateLimits.per_minute)
      rateLimits.burst_per_minute = rateLimits.per_minute;
  }
  return { ruleOverrides, rateLimits, retentionYears };
}

/** Checks a whole settings object as it would be stored. */
export function validateClientSettings(settings: Record<string, unknown>): void {
  resolveRuleSettings(splitClientSettings(settings).ruleOverrides);
}
