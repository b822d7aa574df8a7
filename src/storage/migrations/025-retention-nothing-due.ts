import type { Kysely } from 'kysely';
import { retentionFunctions } from './retention-functions.ts';
import { runStatements } from './run-statements.ts';

/**
 * Retention of a client with nothing due after an earlier retention failed: the cut before the
 * first row kept fell on the earlier mark, whose row is gone, and the new mark had no hash to
 * record ("null value in column hash"), so every daily run recorded a failure for that client.
 * Now nothing due removes nothing, and a mark always names a stored row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, retentionFunctions('CREATE OR REPLACE', '5 years'));
}
