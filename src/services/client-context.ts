import Holidays from 'date-holidays';
import { resolveRuleSettings } from '../domain/rules/settings.ts';
import type { ClientRow } from '../storage/clients.repo.ts';
import type { ClientContext } from './evaluation.service.ts';

/**
 * Resolves a client's rule settings and holiday calendar once per stored settings object, so the
 * hot path does not merge defaults or build calendars on every request.
 */
export function createClientContextResolver(deps: { getClient: (id: string) => Promise<ClientRow | undefined> }) {
  const resolved = new WeakMap<object, ClientContext>();
  const calendars = new Map<string, (isoDate: string) => boolean>();

  function holidayPredicate(country: string | null): ((isoDate: string) => boolean) | undefined {
    if (!country) return undefined;
    let fn = calendars.get(country);
    if (!fn) {
      const hd = new Holidays(country);
      const memo = new Map<string, boolean>();
      fn = (isoDate: string) => {
        let v = memo.get(isoDate);
        if (v === undefined) {
          const found = hd.isHoliday(new Date(`${isoDate}T12:00:00Z`));
          v = Array.isArray(found) ? found.some((h) => h.type === 'public') : false;
          memo.set(isoDate, v);
        }
        return v;
      };
      calendars.set(country, fn);
    }
    return fn;
  }

  return async (clientId: string): Promise<ClientContext | undefined> => {
    const row = await deps.getClient(clientId);
    if (!row) return undefined;
    let ctx = resolved.get(row.settings);
    if (!ctx) {
      const settings = resolveRuleSettings(row.settings);
      ctx = { settings, isHoliday: holidayPredicate(settings.holiday_country) };
      resolved.set(row.settings, ctx);
    }
    return ctx;
  };
}
