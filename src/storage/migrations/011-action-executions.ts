import type { Kysely } from 'kysely';
import { actionExecutionsView } from './audit-views.ts';
import { runStatements } from './run-statements.ts';

/**
 * The executed actions of the audit trail (spec, "Audit record": each executed action records its
 * type, success or failure, UTC time, executor and supporting evidence), as a view over what the
 * evaluation committed in one transaction: one row per action of every triggered rule.
 *
 * The service carries out two kinds of action itself, in the evaluation's transaction: opening a
 * case (`create_case`) and raising an alert (`generate_alert`, `alert_*`). Their evidence is the
 * case or alert the evaluation opened, found by its evaluation id; without one, the action reads
 * `failure`. The others (`block_transaction`, `request_*`, `generate_str`) are the caller's to
 * carry out: the service's part is returning them in the answer, which the stored response
 * evidences (`returned_in`), and for a block the transaction it refused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE INDEX cases_evaluation_idx ON cases (client_id, evaluation_id) WHERE evaluation_id IS NOT NULL;
    CREATE INDEX alerts_evaluation_idx ON alerts (client_id, evaluation_id) WHERE evaluation_id IS NOT NULL;

    ${actionExecutionsView('CREATE')}

    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mica_app') THEN
        REVOKE ALL ON mica_action_executions FROM mica_app;
        GRANT SELECT ON mica_action_executions TO mica_app;
      END IF;
    END $$;
  `,
  );
}
