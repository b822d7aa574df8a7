/**
 * The views of the audit trail over the compact store, as SQL texts shared by the migration that
 * created each view and the one that appended a column to it (CREATE OR REPLACE VIEW may only add
 * columns at the end, so the later definition must repeat the earlier one exactly).
 */

/** Actions the service carries out itself, by raising an alert in the evaluation's transaction. */
export const ALERT_ACTIONS = [
  'generate_alert',
  'alert_compliance_officer',
  'alert_management',
  'alert_hr_compliance',
];

/**
 * One row per evaluated rule, as the spec names the audit table. The rows are derived from the
 * response stored once per evaluation, so an evaluation costs one insert, not one per rule.
 * `extra`: columns appended after the original ones (", e.chain_seq").
 */
export const ruleEvaluationsView = (verb: 'CREATE' | 'CREATE OR REPLACE', extra = '') => `
    ${verb} VIEW mica_rule_evaluations AS
    SELECT e.client_id,
           e.evaluation_id,
           r.value->>'rule_id' AS rule_id,
           r.ordinality::integer AS rule_position,
           r.value->>'result' AS result,
           (r.value->>'triggered')::boolean AS triggered,
           e.trigger_type,
           e.trigger_entity_type,
           e.trigger_entity_id,
           e.evaluated_at,
           e.transaction_blocked,
           e.alert_generated,
           (SELECT coalesce(json_agg(k.key), '[]'::json)
              FROM json_each(r.value->'conditions_met') k) AS conditions_evaluated,
           r.value->'conditions_met' AS conditions_met,
           r.value->'actions_to_execute' AS actions_executed,
           r.value->>'severity' AS severity,
           e.evaluator_id,
           e.customer_id,
           e.rule_set_version,
           e.high_risk_list_date${extra}
      FROM evaluations e
     CROSS JOIN LATERAL json_array_elements(e.response->'results') WITH ORDINALITY AS r(value, ordinality);`;

/** The create_case evidence since migration 027: the case as it was opened (CONTRACT §5 / spec). */
export const OPENED_CASE_EVIDENCE = `jsonb_build_object('case_id', c.id, 'case_number', c.case_number,
                                  'reason', c.reason,
                                  'rule_ids', (SELECT coalesce(jsonb_agg(t.value->>'rule_id' ORDER BY t.i), '[]'::jsonb)
                                                 FROM json_array_elements(e.response->'results')
                                                      WITH ORDINALITY AS t(value, i)
                                                WHERE (t.value->>'triggered')::boolean),
                                  'created_at', to_char(c.created_at AT TIME ZONE 'UTC',
                                                        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                  'assigned_to', c.opened_assignee)`;
export const OPENED_CASE_COLUMNS =
  'x.id, x.case_number, x.reason, x.rule_ids, x.created_at, x.opened_assignee';

/**
 * The executed actions of the audit trail (see migration 011): one row per action of every
 * triggered rule. `extra`: columns appended after the original ones.
 */
export function actionExecutionsView(
  verb: 'CREATE' | 'CREATE OR REPLACE',
  extra = '',
  /** The evidence of a create_case action, over the case `c` (the columns of the LATERAL below). */
  caseEvidence = `jsonb_build_object('case_id', c.id, 'case_number', c.case_number)`,
  /** The columns of the case `c` that caseEvidence reads. */
  caseColumns = 'x.id, x.case_number',
): string {
  const alertActions = ALERT_ACTIONS.map((a) => `'${a}'`).join(', ');
  return `
    ${verb} VIEW mica_action_executions AS
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
               ${caseEvidence}
             WHEN a.value IN (${alertActions}) THEN
               jsonb_build_object('alert_id', al.id, 'severity', al.severity)
             WHEN a.value = 'block_transaction' THEN
               jsonb_build_object('returned_in', 'should_block', 'transaction_blocked', e.transaction_blocked,
                                  'trigger_entity_id', e.trigger_entity_id)
             ELSE jsonb_build_object('returned_in', 'actions_required')
           END AS evidence,
           e.trigger_type,
           e.trigger_entity_id,
           e.customer_id${extra}
      FROM evaluations e
     CROSS JOIN LATERAL json_array_elements(e.response->'results') WITH ORDINALITY AS r(value, ordinality)
     CROSS JOIN LATERAL json_array_elements_text(r.value->'actions_to_execute') WITH ORDINALITY AS a(value, ordinality)
      LEFT JOIN LATERAL (SELECT ${caseColumns} FROM cases x
                          WHERE x.client_id = e.client_id AND x.evaluation_id = e.evaluation_id
                          ORDER BY x.created_at, x.id LIMIT 1) c ON true
      LEFT JOIN LATERAL (SELECT x.id, x.severity FROM alerts x
                          WHERE x.client_id = e.client_id AND x.evaluation_id = e.evaluation_id
                            AND x.source = 'evaluation'
                          ORDER BY x.created_at, x.id LIMIT 1) al ON true
     WHERE (r.value->>'triggered')::boolean;`;
}
