import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * No planner statistics for the audit columns that no query filters or joins on: the stored request
 * and response, the chain hashes, the evaluation id (unique by its key, which the planner knows
 * from the index) and the rule ids (only ever matched against a parameter, whose selectivity a
 * generic plan cannot take from statistics). Analyzing them was most of an ANALYZE of an audit
 * partition. On the embedded store that analysis holds the one session while every request waits:
 * a partition of 8,000 evaluations took 15-28 ms with them, 8-12 ms without (5 rounds each).
 *
 * SET STATISTICS recurses to the partitions that exist; a partition created later does not take it
 * from its parent, so mica_create_audit_partition (migration 006) now sets it on each new one.
 */
const COLUMNS = ['request', 'response', 'prev_hash', 'row_hash', 'evaluation_id', 'rule_ids'];

export async function up(db: Kysely<unknown>): Promise<void> {
  const alter = COLUMNS.map((c) => `ALTER COLUMN ${c} SET STATISTICS 0`).join(', ');
  await runStatements(
    db,
    `
    ALTER TABLE evaluations ${alter};

    CREATE OR REPLACE FUNCTION mica_create_audit_partition(p_month date) RETURNS boolean
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $fn$
    DECLARE
      m date := date_trunc('month', p_month)::date;
      name text := format('evaluations_p%s', to_char(m, 'YYYY_MM'));
    BEGIN
      IF to_regclass(name) IS NOT NULL THEN RETURN false; END IF;
      BEGIN
        EXECUTE format('CREATE TABLE %I PARTITION OF evaluations FOR VALUES FROM (%L) TO (%L)',
                       name, (m::timestamp AT TIME ZONE 'UTC'),
                       ((m + interval '1 month')::timestamp AT TIME ZONE 'UTC'));
      EXCEPTION WHEN duplicate_table OR unique_violation THEN
        RETURN false; -- another instance created it at the same moment
      END;
      -- Row triggers are cloned from the parent; a TRUNCATE trigger has to be set per partition.
      EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION mica_refuse_audit_change()',
                     name || '_no_truncate', name);
      -- Column statistics targets are not inherited (migration 010).
      EXECUTE format('ALTER TABLE %I ${alter}', name);
      -- The owner's default privileges would give mica_app UPDATE and DELETE on the new table.
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mica_app') THEN
        EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I FROM mica_app', name);
      END IF;
      RETURN true;
    END
    $fn$;
    `,
  );
}
