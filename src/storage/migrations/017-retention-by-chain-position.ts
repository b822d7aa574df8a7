import type { Kysely } from 'kysely';
import { retentionFunctions } from './retention-functions.ts';
import { runStatements } from './run-statements.ts';

/**
 * Retention removes a client's rows up to its mark by chain position rather than by time, so no
 * row at or below a mark is ever left behind: verification now ignores a mark that still has rows
 * under it (one the application role could insert to hide a broken link). Same floor as 012.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, retentionFunctions('CREATE OR REPLACE', '5 years'));
}
