import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Chain positions start at 1. The application role may insert audit rows, and a row it inserted at
 * position 0 or below lay under the genesis, where `audit verify` never walked: a fabricated
 * evaluation was exported and certified. The constraint refuses such a row; verify also reports
 * any found below the start of its walk (`outside_chain`), should the constraint be dropped.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE evaluations DROP CONSTRAINT IF EXISTS evaluations_chain_seq_positive;
     ALTER TABLE evaluations ADD CONSTRAINT evaluations_chain_seq_positive CHECK (chain_seq > 0);`,
  );
}
