import { createHolidayChecker } from '../domain/calendar/holidays.ts';
import { resolveRuleSettings } from '../domain/rules/settings.ts';
import type { ClientRow } from '../storage/clients.repo.ts';
import { splitClientSettings } from './client-settings.ts';
import type { ClientContext } from './evaluation.service.ts';
import type { Limits } from './rate-limit.service.ts';

/**
 * Resolves a client's rule settings and holiday calendar once per stored settings object, so the
 * hot path does not merge defaults or build calendars on every request.
 */
export function createClientContextResolver(deps: {
  getClient: (id: string) => Promise<ClientRow | undefined>;
  /** Limits of a client whose settings set none. */
  defaultLimits: Required<Limits>;
}) {
  const resolved = new WeakMap<object, ClientContext>();
  const calendars = new Map<string, (isoDate: string) => boolean>();

  function calendarOf(country: string | null): ((isoDate: string) => boolean) | undefined {
    if (!country) return undefined;
    let fn = calendars.get(country);
    if (!fn) {
      fn = createHolidayChecker(country);
      calendars.set(country, fn);
    }
    return fn;
  }

  return async (clientId: string): Promise<ClientContext | undefined> => {
    const row = await deps.getClient(clientId);
    if (!row) return undefined;
    let ctx = resolved.get(row.settings);
    if (!ctx) {
      const parts = splitClientSettings(row.settings, deps.defaultLimits);
      const settings = resolveRuleSettings(parts.ruleOverrides);
      ctx = { settings, rateLimits: parts.rateLimits, isHoliday: calendarOf(settings.holiday_country) };
      resolved.set(row.settings, ctx);
    }
    return ctx;
  };
}
