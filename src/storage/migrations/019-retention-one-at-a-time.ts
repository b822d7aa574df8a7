import type { Kysely } from 'kysely';
import { retentionFunctions } from './retention-functions.ts';
import { runStatements } from './run-statements.ts';

/**
 * Retention of one client runs one at a time (an advisory lock): two instances' daily jobs at the
 * same hour both read the same last row and the second failed on the mark's key, aborting its run.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, retentionFunctions('CREATE OR REPLACE', '5 years'));
}
