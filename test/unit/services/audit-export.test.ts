import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvLine, csvLinesOf, rowsOf } from '../../../src/services/audit.service.ts';
import type { ExportEvaluation } from '../../../src/storage/audit-query.repo.ts';

// The export builds CSV lines straight from a stored evaluation; they must be exactly the lines of
// the audit rows (rowsOf, the view's derivation) written cell by cell.

function evaluation(overrides: Partial<ExportEvaluation>, results: unknown[]): ExportEvaluation {
  return {
    client_id: 'acme',
    evaluation_id: '6b0c7d2e-1f3a-4b5c-8d9e-0a1b2c3d4e5f',
    trigger_type: 'transaction',
    trigger_entity_type: 'transaction',
    trigger_entity_id: 'tx-1',
    evaluated_at: '2026-11-22T05:19:41.692Z',
    cursor_at: '2026-11-22 05:19:41.692+00',
    transaction_blocked: false,
    alert_generated: true,
    evaluator_id: 'key:1',
    customer_id: 'cust-1',
    rule_set_version: '2026.1',
    response: JSON.stringify({ evaluation_id: 'x', results }),
    ...overrides,
  };
}

const RESULTS = [
  {
    rule_id: 'MICA-CDD-001',
    result: 'pass',
    conditions_met: { customer_verified: true, amount_eur_gte_1000: false },
    actions_to_execute: [],
    severity: 'critical',
  },
  {
    rule_id: 'MICA-RPT-004',
    result: 'alert',
    conditions_met: { 'amount, "eur"': true },
    actions_to_execute: ['create_case', 'notify'],
    severity: 'medium',
  },
  { rule_id: 'MICA-X', result: 'fail', conditions_met: null, severity: 5 },
  {
    rule_id: 'MICA-CDD-001',
    result: 'pass',
    conditions_met: { customer_verified: true, amount_eur_gte_1000: false },
    actions_to_execute: [],
    severity: 'critical',
  },
];

const cases: ExportEvaluation[] = [
  evaluation({}, RESULTS),
  evaluation({ customer_id: null, trigger_entity_type: null, trigger_entity_id: '=HYPERLINK("x")' }, RESULTS),
  evaluation(
    { client_id: 'a,b', evaluator_id: '-1', transaction_blocked: true, alert_generated: false },
    RESULTS,
  ),
  evaluation({ trigger_entity_id: 'line\r\nbreak "quoted"' }, []),
  evaluation({ rule_set_version: '@v' }, [{}]),
];

test('csvLinesOf writes exactly the lines of rowsOf written by csvLine', () => {
  for (const e of cases)
    for (const rule of [undefined, 'MICA-CDD-001', 'MICA-NONE']) {
      const memo = new Map<string, string>();
      const expected = rowsOf(e, rule).map(csvLine).join('');
      // Twice with one memo: cached condition cells must give the same bytes.
      assert.equal(csvLinesOf(e, rule, memo), expected);
      assert.equal(csvLinesOf(e, rule, memo), expected);
    }
});

test('rowsOf numbers rule positions from 1 and keeps the condition names in stored order', () => {
  const rows = rowsOf(cases[0]!);
  assert.deepEqual(
    rows.map((r) => r.rule_position),
    [1, 2, 3, 4],
  );
  assert.deepEqual(rows[0]!.conditions_evaluated, ['customer_verified', 'amount_eur_gte_1000']);
  assert.deepEqual(rows[2]!.conditions_evaluated, []);
  assert.equal(rows[2]!.severity, '5');
  assert.equal(rows[2]!.actions_executed, null);
});
