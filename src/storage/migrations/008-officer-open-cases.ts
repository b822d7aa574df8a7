import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Each compliance officer's count of open (not closed) cases, kept by the database itself. Case
 * assignment picks the least-loaded officer for every batch of new cases; counting the open cases
 * for that grew with the case table (every batch scanned all open cases of the client). Statement
 * triggers with transition tables keep the count right whatever changes a case (new case, state
 * change, reassignment, deletion), one UPDATE per officer and statement, not per row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    ALTER TABLE compliance_officers ADD COLUMN open_cases integer NOT NULL DEFAULT 0;

    CREATE FUNCTION mica_officer_open_cases_now(p_client text, p_officer text) RETURNS integer
      LANGUAGE sql STABLE AS $$
        SELECT count(*)::integer FROM cases
         WHERE client_id = p_client AND assignee = p_officer AND status <> 'closed' $$;

    UPDATE compliance_officers SET open_cases = mica_officer_open_cases_now(client_id, officer);

    -- An officer added (again) starts from the open cases already assigned to that name.
    CREATE FUNCTION mica_officer_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.open_cases := mica_officer_open_cases_now(NEW.client_id, NEW.officer);
      RETURN NEW;
    END $$;
    CREATE TRIGGER compliance_officers_added BEFORE INSERT ON compliance_officers
      FOR EACH ROW EXECUTE FUNCTION mica_officer_added();

    CREATE FUNCTION mica_officer_load_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE compliance_officers o SET open_cases = o.open_cases - d.n
          FROM (SELECT client_id, assignee, count(*)::integer AS n FROM old_rows
                 WHERE assignee IS NOT NULL AND status <> 'closed' GROUP BY client_id, assignee) d
         WHERE o.client_id = d.client_id AND o.officer = d.assignee;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE compliance_officers o SET open_cases = o.open_cases + d.n
          FROM (SELECT client_id, assignee, count(*)::integer AS n FROM new_rows
                 WHERE assignee IS NOT NULL AND status <> 'closed' GROUP BY client_id, assignee) d
         WHERE o.client_id = d.client_id AND o.officer = d.assignee;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER cases_officer_load_insert AFTER INSERT ON cases
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mica_officer_load_changed();
    CREATE TRIGGER cases_officer_load_update AFTER UPDATE ON cases
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION mica_officer_load_changed();
    CREATE TRIGGER cases_officer_load_delete AFTER DELETE ON cases
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION mica_officer_load_changed();
    `,
  );
}
