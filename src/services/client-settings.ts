import { RuleSettingsError, resolveRuleSettings } from '../domain/rules/settings.ts';
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
/** The highest limit a client can be given (per minute or per day): effectively none. */
const MAX_LIMIT = 1_000_000_000;

/** Settings refused, with every problem found (rule settings, limits and retention together). */
export class ClientSettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'ClientSettingsError';
  }
}

/** The parts of stored settings, and every problem of the limits and the retention period. */
function readClientSettings(
  settings: Record<string, unknown>,
  defaults: Required<Limits>,
): { parts: ClientSettingsParts; problems: string[] } {
  const problems: string[] = [];
  const { rate_limits, retention_years, ...ruleOverrides } = settings;
  if (
    retention_years !== undefined &&
    (typeof retention_years !== 'number' ||
      !Number.isInteger(retention_years) ||
      retention_years < MIN_RETENTION_YEARS ||
      retention_years > 100)
  )
    problems.push(
      `retention_years: must be an integer from ${MIN_RETENTION_YEARS} to 100 (the audit trail is kept 5 years)`,
    );
  const retentionYears =
    typeof retention_years === 'number' && problems.length === 0 ? retention_years : DEFAULT_RETENTION_YEARS;
  const rateLimits: Required<Limits> = { ...defaults };
  if (rate_limits !== undefined) {
    if (!rate_limits || typeof rate_limits !== 'object' || Array.isArray(rate_limits))
      problems.push('rate_limits: must be an object');
    else {
      for (const [k, v] of Object.entries(rate_limits)) {
        if (!(LIMIT_KEYS as readonly string[]).includes(k))
          problems.push(`rate_limits.${k}: unknown (allowed: ${LIMIT_KEYS.join(', ')})`);
        else if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
          problems.push(`rate_limits.${k}: must be a positive integer`);
        else rateLimits[k as (typeof LIMIT_KEYS)[number]] = v;
      }
      // A client given only a minute limit keeps the default proportion of burst to minute limit.
      if (!('burst_per_minute' in rate_limits))
        rateLimits.burst_per_minute = Math.round(
          (rateLimits.per_minute * defaults.burst_per_minute) / defaults.per_minute,
        );
      if (rateLimits.burst_per_minute < rateLimits.per_minute)
        rateLimits.burst_per_minute = rateLimits.per_minute;
    }
  }
  return { parts: { ruleOverrides, rateLimits, retentionYears }, problems };
}

/** Splits stored settings into their parts, checking the limits; throws ClientSettingsError on a bad value. */
export function splitClientSettings(
  settings: Record<string, unknown>,
  defaults: Required<Limits> = DEFAULT_API_LIMITS,
): ClientSettingsParts {
  const { parts, problems } = readClientSettings(settings, defaults);
  if (problems.length > 0) throw new ClientSettingsError(problems);
  return parts;
}

/** Checks a whole settings object as it would be stored; throws ClientSettingsError listing every problem. */
export function validateClientSettings(settings: Record<string, unknown>): void {
  const { parts, problems } = readClientSettings(settings, DEFAULT_API_LIMITS);
  // A burst limit below the minute limit would be raised to it in silence (settings stored before
  // this check still are, on load): a new one is refused, so what is written is what applies.
  const given = settings.rate_limits as Record<string, unknown> | undefined;
  const burst = given?.burst_per_minute;
  const minute = typeof given?.per_minute === 'number' ? given.per_minute : DEFAULT_API_LIMITS.per_minute;
  if (typeof burst === 'number' && Number.isInteger(burst) && burst >= 1 && burst < minute)
    problems.push(`rate_limits.burst_per_minute: must be at least per_minute (${minute})`);
  // A limit past a billion is effectively none, and from 1e21 it is written 1e+21 in the
  // X-RateLimit headers, no longer an integer. (A day below the minute limit is a trial client's.)
  for (const k of LIMIT_KEYS) {
    const v = given?.[k];
    if (typeof v === 'number' && Number.isInteger(v) && v > MAX_LIMIT)
      problems.push(`rate_limits.${k}: must be at most ${MAX_LIMIT.toLocaleString('en')}`);
  }
  try {
    resolveRuleSettings(parts.ruleOverrides);
  } catch (e) {
    if (!(e instanceof RuleSettingsError)) throw e;
    problems.unshift(...e.errors);
  }
  if (problems.length > 0) throw new ClientSettingsError(problems);
}
