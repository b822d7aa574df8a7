import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Gives back to the STR sweep the cases an earlier sweep marked done without ever storing their
 * MICA-RPT-002 evaluation (it marked a page before evaluating it, and a failure mid-page left the
 * rest marked: see 018). The sweep's evaluations are found by case number and evaluator; cases
 * older than the shortest retention are left as they are.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    UPDATE cases c SET str_sweep_done = false, str_sweep_claimed_at = NULL
     WHERE c.is_str AND c.str_sweep_done
       -- Within the shortest retention: an older case's evaluation may have been removed by it.
       AND c.created_at > now() - interval '5 years'
       AND NOT EXISTS (
         SELECT 1 FROM evaluations e
          WHERE e.client_id = c.client_id AND e.trigger_entity_id = c.case_number
            AND e.evaluator_id = 'system:str-sweep');
  `,
  );
}
