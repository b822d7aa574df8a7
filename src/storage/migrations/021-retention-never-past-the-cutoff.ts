import type { Kysely } from 'kysely';
import { retentionFunctions } from './retention-functions.ts';
import { runStatements } from './run-statements.ts';

/**
 * Retention by chain position (017) stops before the first row at or after the cutoff: a row with
 * an old time at the head of a chain (a wrong clock, or the application role writing one) made it
 * delete every row of the client, the recent ones included.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, retentionFunctions('CREATE OR REPLACE', '5 years'));
}
