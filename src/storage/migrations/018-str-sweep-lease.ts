import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * The STR sweep claims a case for a while (a lease) instead of marking it done before evaluating
 * it: a sweep that died between the two (an outage, a crash) left claimed cases marked done that
 * MICA-RPT-002 was never evaluated for, and no later sweep took them up. `str_sweep_done` is now set
 * only once the evaluation is committed; an expired claim is taken up again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `ALTER TABLE cases ADD COLUMN IF NOT EXISTS str_sweep_claimed_at timestamptz;`);
}
