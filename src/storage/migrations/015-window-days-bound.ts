import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * MICA-CDD-002's rolling window is now at most 365 days (MAX_CUMULATIVE_WINDOW_DAYS): the embedded
 * store keeps a year of transactions in memory for the sums, so a longer window undercounted there.
 * A client whose settings asked for more gets the longest window there is, rather than settings
 * that no longer load.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `UPDATE clients
        SET settings = jsonb_set(settings, '{thresholds,cumulative_window_days}', '365'::jsonb)
      WHERE jsonb_typeof(settings #> '{thresholds,cumulative_window_days}') = 'number'
        AND (settings #>> '{thresholds,cumulative_window_days}')::numeric > 365;`,
  );
}
