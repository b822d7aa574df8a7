import { type Kysely, sql } from 'kysely';
import { COUNTRY_CODES } from '../../domain/country-codes.ts';

/**
 * Country codes in client settings are now two ASCII letters: a look-alike that upper-cases to a
 * code (`ſe`, long s, is "SE"; `ır`, dotless i, is "IR") is refused. Settings are checked on every
 * load, so a stored one would now fail to load and fail the client's every request. Each is
 * rewritten to the code it has been read as (what the client's evaluations applied).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const rows = (
    await sql<{ client_id: string; settings: Record<string, unknown> | string }>`
      SELECT client_id, settings FROM clients`.execute(db)
  ).rows;
  for (const { client_id, settings: stored } of rows) {
    // PGlite may hand jsonb over as its text.
    const settings = typeof stored === 'string' ? (JSON.parse(stored) as Record<string, unknown>) : stored;
    const fixed = withAsciiCodes(settings);
    if (fixed !== settings)
      await sql`UPDATE clients SET settings = ${JSON.stringify(fixed)}::jsonb WHERE client_id = ${client_id}`.execute(
        db,
      );
  }
}

/** The code a non-ASCII look-alike was read as, else the value unchanged. */
function ascii(v: unknown): unknown {
  if (typeof v !== 'string' || /^[\x20-\x7e]*$/.test(v)) return v;
  const code = v.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(code) && COUNTRY_CODES.has(code) ? code : v;
}

/** The settings with their country codes in ASCII; the same object when none needed it. */
export function withAsciiCodes(settings: Record<string, unknown>): Record<string, unknown> {
  if (settings === null || typeof settings !== 'object') return settings;
  let out = settings;
  const holiday = ascii(settings.holiday_country);
  if (holiday !== settings.holiday_country) out = { ...out, holiday_country: holiday };
  const list = settings.high_risk_countries as { codes?: unknown } | null | undefined;
  if (list && typeof list === 'object' && Array.isArray(list.codes)) {
    const codes = list.codes.map(ascii);
    if (codes.some((c, i) => c !== (list.codes as unknown[])[i]))
      out = { ...out, high_risk_countries: { ...list, codes } };
  }
  return out;
}
