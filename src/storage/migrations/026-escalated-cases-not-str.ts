import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Cases opened by escalating an STR alert were marked as STR cases (is_str) and the STR sweep
 * recorded a missed filing deadline for them, which the STR case the MICA-RPT-001 evaluation
 * opened may well have met. New ones are not STR cases (alerts-cases.service.ts); this clears the
 * mark on those stored and not yet swept (a swept one keeps what was recorded about it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `UPDATE cases SET is_str = false
      WHERE is_str AND NOT str_sweep_done AND reason LIKE 'Escalated from alert %';`,
  );
}
