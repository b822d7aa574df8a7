import { sql } from 'kysely';
import type { Logger } from 'pino';
import { type DatabaseHandle, openDatabase } from './db.ts';
import { migrateToLatest } from './migrations/index.ts';

/**
 * Applies the migrations as the schema owner: through `ownerUrl` (DATABASE_MIGRATION_URL) when the
 * service itself connects as the restricted role, else on the service's own connection. On
 * PostgreSQL it then warns when the service's role could still change audit rows, since only the
 * triggers would then stand between it and an UPDATE (migration 006 explains the roles).
 */
export async function migrateSchema(
  database: DatabaseHandle,
  ownerUrl: string | undefined,
  logger?: Pick<Logger, 'warn'>,
): Promise<string[]> {
  let applied: string[];
  if (ownerUrl && database.kind === 'postgres') {
    const owner = await openDatabase({ databaseUrl: ownerUrl, poolSize: 1 });
    try {
      applied = await migrateToLatest(owner.db);
    } finally {
      await owner.close();
    }
  } else applied = await migrateToLatest(database.db);
  if (database.kind === 'postgres' && logger) {
    // Every audit table (README "A role that cannot change them"), not only the evaluations.
    const r = await sql<{ role: string; writable: boolean }>`
      SELECT current_user AS role, bool_or(
               has_table_privilege(t, 'UPDATE') OR has_table_privilege(t, 'DELETE')
               OR has_table_privilege(t, 'TRUNCATE')) AS writable
        FROM unnest(ARRAY['evaluations', 'audit_checkpoints', 'audit_retention_marks', 'operator_audit']) AS t`.execute(
      database.db,
    );
    const row = r.rows[0];
    if (row?.writable)
      logger.warn(
        { role: row.role },
        'the database role may UPDATE, DELETE or TRUNCATE audit rows; run the server as a member of mica_app (see README)',
      );
  }
  return applied;
}
