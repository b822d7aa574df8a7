import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Chain positions start at 1. The application role may insert audit rows, and a row it inserted at
 * position 0 or below lay under the genesis, where `audit verify` never walked: a fabricated
 * evaluation was exported and certified. The constraint refuses such a row from now on; verify
 * reports any found below the start of its walk (`outside_chain`). NOT VALID: a store that already
 * holds such a row must still start (the row is evidence, and verify names it), and the existing
 * rows are not scanned under an exclusive lock while other instances write.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `ALTER TABLE evaluations DROP CONSTRAINT IF EXISTS evaluations_chain_seq_positive;
     ALTER TABLE evaluations ADD CONSTRAINT evaluations_chain_seq_positive CHECK (chain_seq > 0) NOT VALID;`,
  );
}
