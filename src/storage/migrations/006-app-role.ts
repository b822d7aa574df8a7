import type { Kysely } from 'kysely';
import { retentionFunctions } from './retention-functions.ts';
import { runStatements } from './run-statements.ts';

/**
 * The restricted role the server can run as on PostgreSQL, so that audit rows are append-only by
 * privilege and not only by trigger (a trigger can be disabled by the table owner; a privilege the
 * role never had cannot be taken back by that role).
 *
 * Design:
 * - Migrations run as the schema owner (DATABASE_URL, or DATABASE_MIGRATION_URL when the server
 *   connects as the restricted role; `mica migrate` uses the same). The owner owns every table
 *   and the three functions below.
 * - `mica_app` is a NOLOGIN group role: it gets SELECT, INSERT, UPDATE, DELETE on the ordinary
 *   tables (cases, alerts, keys… are updated legitimately), but only SELECT and INSERT on the audit
 *   tables (evaluations and every partition, audit_checkpoints, audit_retention_marks,
 *   operator_audit), no DELETE or TRUNCATE on audit_chain_heads (which it must UPDATE), and no DDL.
 *   A login role is made a member of it (`CREATE ROLE mica_svc LOGIN PASSWORD '…' IN ROLE mica_app`).
 * - The maintenance that needs more than that — creating next months' partitions, removing rows
 *   past retention, dropping old partitions — goes through SECURITY DEFINER functions owned by the
 *   owner and executable by mica_app only. They are narrow on purpose: they refuse to remove
 *   anything younger than the shortest retention a client can be given (1 year, less a day of slack
 *   for clock differences), always record where a chain resumes before removing its rows, and drop
 *   only partitions already emptied that way. So the worst a compromised application can do is apply
 *   retention early to rows over a year old, and that leaves retention marks and a log entry. This
 *   was chosen over a second, owner connection in the server: the daily job then runs unchanged on
 *   every instance and on both engines, and no owner credential has to live in the server.
 *
 * Roles are cluster-wide while grants are per database: creating the role tolerates a concurrent
 * creation by another database's migration, and a migrating user that may not create roles gets a
 * warning (create mica_app beforehand, then run `SELECT mica_grant_app_role()` as the owner).
 * Tables added by later migrations are covered by the owner's default privileges; a later
 * append-only table must be revoked in mica_grant_app_role() and that function called again.
 * On the embedded store the same statements run; there is one superuser session there, and the
 * append-only triggers are what refuses changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    DO $do$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mica_app') THEN
        BEGIN
          CREATE ROLE mica_app NOLOGIN;
        EXCEPTION
          WHEN duplicate_object OR unique_violation THEN NULL;
          WHEN insufficient_privilege THEN
            RAISE WARNING 'cannot create role mica_app: create it (NOLOGIN) and run SELECT mica_grant_app_role()';
        END;
      END IF;
    END
    $do$;

    -- Creates the monthly partition starting at p_month unless it exists; true when created.
    CREATE FUNCTION mica_create_audit_partition(p_month date) RETURNS boolean
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
      -- The owner's default privileges would give mica_app UPDATE and DELETE on the new table.
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mica_app') THEN
        EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I FROM mica_app', name);
      END IF;
      RETURN true;
    END
    $fn$;

    ${retentionFunctions('CREATE', '1 year')}
    REVOKE ALL ON FUNCTION mica_create_audit_partition(date) FROM PUBLIC;
    REVOKE ALL ON FUNCTION mica_retention_delete(text, timestamptz) FROM PUBLIC;
    REVOKE ALL ON FUNCTION mica_drop_audit_partition(text) FROM PUBLIC;

    -- (Re)applies the privileges of mica_app in this database; run by the owner. Idempotent.
    CREATE FUNCTION mica_grant_app_role() RETURNS boolean
      LANGUAGE plpgsql SET search_path = public, pg_temp AS $fn$
    DECLARE
      r record;
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mica_app') THEN
        RAISE WARNING 'role mica_app does not exist: privileges not granted';
        RETURN false;
      END IF;
      GRANT USAGE ON SCHEMA public TO mica_app;
      GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO mica_app;
      GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO mica_app;
      ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO mica_app;
      ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO mica_app;
      -- The audit store: read and append only.
      REVOKE UPDATE, DELETE, TRUNCATE ON evaluations, audit_checkpoints, audit_retention_marks, operator_audit
        FROM mica_app;
      FOR r IN SELECT inhrelid::regclass::text AS part FROM pg_inherits WHERE inhparent = 'evaluations'::regclass LOOP
        EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %s FROM mica_app', r.part);
      END LOOP;
      -- The chain heads move forward (UPDATE) but are never removed.
      REVOKE DELETE, TRUNCATE ON audit_chain_heads FROM mica_app;
      REVOKE ALL ON mica_rule_evaluations FROM mica_app;
      GRANT SELECT ON mica_rule_evaluations TO mica_app;
      -- The schema's version is read (to see that nothing is pending), never written.
      IF to_regclass('kysely_migration') IS NOT NULL THEN
        REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON kysely_migration, kysely_migration_lock FROM mica_app;
      END IF;
      GRANT EXECUTE ON FUNCTION mica_create_audit_partition(date) TO mica_app;
      GRANT EXECUTE ON FUNCTION mica_retention_delete(text, timestamptz) TO mica_app;
      GRANT EXECUTE ON FUNCTION mica_drop_audit_partition(text) TO mica_app;
      RETURN true;
    END
    $fn$;
    REVOKE ALL ON FUNCTION mica_grant_app_role() FROM PUBLIC;

    SELECT mica_grant_app_role();
  `,
  );
}
