import { randomUUID } from 'node:crypto';
import type { EvaluationRecord } from '../../src/storage/evaluations.repo.ts';

/**
 * A minimal governance evaluation of `clientId` at a chosen time, for tests that need audit rows
 * in given months (retention, partitions, privileges) without running the rule engine.
 */
export function governanceRecord(clientId: string, at: Date): EvaluationRecord {
  const id = randomUUID();
  return {
    evaluation_id: id,
    client_id: clientId,
    trigger_type: 'periodic',
    trigger_entity_type: 'governance',
    trigger_entity_id: null,
    customer_id: null,
    evaluated_at: at.toISOString(),
    rule_set_version: 'test',
    high_risk_list_date: null,
    evaluator_id: 'test',
    rules_evaluated: 0,
    rules_triggered: 0,
    transaction_blocked: false,
    alert_generated: false,
    case_created: false,
    highest_severity: null,
    rule_ids: [],
    requestJson: '{}',
    responseJson: JSON.stringify({ evaluation_id: id, timestamp: at.toISOString(), results: [] }),
  };
}
