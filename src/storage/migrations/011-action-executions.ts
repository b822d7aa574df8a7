import type { Kysely } from 'kysely';
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
export const ALERT_ACTIONS = [
  'generate_alert',
  'alert_compliance_officer',
  'alert_management',
  'alert_hr_compliance',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  const alertActions = ALERT_ACTIONS.map((a) => `'${a}'`).join(', ');
  await runStatements(
    db,
    `
    CREATE INDEX cases_evaluation_idx ON cases (client_id, evaluation_id) WHERE evaluation_id IS NOT NULL;
    CREATE INDEX alerts_evaluation_idx ON alerts (client_id, evaluation_id) WHERE evaluation_id IS NOT NULL;

    CREATE VIEW mica_action_executions AS
    SELECT e.client_id,
           e.evaluation_id,
           r.value->>'rule_id' AS rule_id,
           r.ordinality::integer AS rule_position,
           a.value AS action_type,
           a.ordinality::integer AS action_position,
           CASE
             WHEN a.value = 'create_case' AND c.id IS NULL THEN 'failure'
             WHEN a.value IN (${alertActions}) AND al.id IS NULL THEN 'failure'
             ELSE 'success'
           END AS outcome,
           e.evaluated_at AS executed_at,
           e.evaluator_id AS executor_id,
           CASE
             WHEN a.value = 'create_case' THEN
               jsonb_build_object('case_id', c.id, 'case_number', c.case_number)
             WHEN a.value IN (${alertActions}) THEN
               jsonb_build_object('alert_id', al.id, 'severity', al.severity)
             WHEN a.value = 'block_transaction' THEN
               jsonb_build_object('returned_in', 'should_block', 'transaction_blocked', e.transaction_blocked,
                                  'trigger_entity_id', e.trigger_entity_id)
             ELSE jsonb_build_object('returned_in', 'actions_required')
           END AS evidence,
           e.trigger_type,
           e.trigger_entity_id,
           e.customer_id
      FROM evaluations e
     CROSS JOIN LATERAL json_array_elements(e.response->'results') WITH ORDINALITY AS r(value, ordinality)
     CROSS JOIN LATERAL json_array_elements_text(r.value->'actions_to_execute') WITH ORDINALITY AS a(value, ordinality)
      LEFT JOIN LATERAL (SELECT x.id, x.case_number FROM cases x
                          WHERE x.client_id = e.client_id AND x.evaluation_id = e.evaluation_id
                          ORDER BY x.created_at, x.id LIMIT 1) c ON true
      LEFT JOIN LATERAL (SELECT x.id, x.severity FROM alerts x
                          WHERE x.client_id = e.client_id AND x.evaluation_id = e.evaluation_id
                            AND x.source = 'evaluation'
                          ORDER BY x.created_at, x.id LIMIT 1) al ON true
     WHERE (r.value->>'triggered')::boolean;

    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mica_app') THEN
        REVOKE ALL ON mica_action_executions FROM mica_app;
        GRANT SELECT ON mica_action_executions TO mica_app;
      END IF;
    END $$;
  `,
  );
}
