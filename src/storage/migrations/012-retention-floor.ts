import type { Kysely } from 'kysely';
import { retentionFunctions } from './retention-functions.ts';
import { runStatements } from './run-statements.ts';

/**
 * The audit trail is kept 5 years (spec, "Retention"), so no client may be given a
 * shorter retention, and the functions the application role removes audit rows through refuse
 * anything younger than 5 years instead of 1. `CREATE OR REPLACE` keeps their owner and grants.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, retentionFunctions('CREATE OR REPLACE', '5 years'));
}
