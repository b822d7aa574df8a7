import type { Kysely } from 'kysely';
import { COUNTRY_CODES } from '../../domain/country-codes.ts';
import { runStatements } from './run-statements.ts';

/**
 * Country fields now take assigned codes only (ISO 3166-1 alpha-2, and XK), and so does a client's
 * high-risk list. A code in a stored list that is not one could match no customer any more; it is
 * dropped, so that the client's settings still load (they are checked on every load).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const list = [...COUNTRY_CODES].map((c) => `'${c}'`).join(',');
  await runStatements(
    db,
    `UPDATE clients
        SET settings = jsonb_set(
              settings,
              '{high_risk_countries,codes}',
              (SELECT coalesce(jsonb_agg(c), '[]'::jsonb)
                 FROM jsonb_array_elements(settings #> '{high_risk_countries,codes}') AS c
                WHERE jsonb_typeof(c) <> 'string' OR upper(btrim(c #>> '{}')) = ANY (ARRAY[${list}])))
      WHERE jsonb_typeof(settings #> '{high_risk_countries,codes}') = 'array'
        AND EXISTS (SELECT 1
                      FROM jsonb_array_elements(settings #> '{high_risk_countries,codes}') AS c
                     WHERE jsonb_typeof(c) = 'string' AND NOT upper(btrim(c #>> '{}')) = ANY (ARRAY[${list}]));`,
  );
}
