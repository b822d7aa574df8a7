import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * An alert's `payload` is the vendor's body (CONTRACT §5): `jsonb` re-ordered its keys (by length,
 * then bytes), so the body read back did not read as the vendor sent it. `json` keeps the text it
 * is given, in the delivery's own key order. (The exact bytes stay in `webhook_deliveries`.)
 * Alerts stored before keep the order jsonb gave them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `ALTER TABLE alerts ALTER COLUMN payload TYPE json USING payload::json;`);
}
