import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAuditService, csvLine, csvLinesOf, rowsOf } from '../../../src/services/audit.service.ts';
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
    high_risk_list_date: '2025-10-24',
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
  evaluation({ rule_set_version: '@v', high_risk_list_date: null }, [{}]),
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

// The export streams keyset pages and reads the next page while rendering the current one: every
// stored evaluation must come out once, in order, with no more than one page read ahead, and a
// failed read must end the export with its error.
function pagedRepo(total: number, opts: { failAtPage?: number } = {}) {
  const stored = Array.from({ length: total }, (_, i) =>
    evaluation(
      {
        evaluation_id: `00000000-0000-4000-8000-${String(total - i).padStart(12, '0')}`,
        cursor_at: String(total - i).padStart(8, '0'),
      },
      RESULTS.slice(0, 1),
    ),
  );
  const state = { reads: 0, outstanding: 0, maxOutstanding: 0 };
  const repo = {
    async exportPage(_f: unknown, after: { at: string; id: string } | undefined, limit: number) {
      state.reads++;
      state.outstanding++;
      state.maxOutstanding = Math.max(state.maxOutstanding, state.outstanding);
      const page = state.reads;
      await new Promise((r) => setTimeout(r, 1));
      state.outstanding--;
      if (page === opts.failAtPage) throw new Error('database went away');
      const start = after ? stored.findIndex((e) => e.cursor_at < after.at) : 0;
      return start < 0 ? [] : stored.slice(start, start + limit);
    },
  };
  return { repo, state };
}

test('export pages through every evaluation once, in order, one page read ahead at most', async () => {
  for (const total of [0, 1, 499, 500, 501, 1000, 1234]) {
    const { repo, state } = pagedRepo(total);
    const service = createAuditService({ audit: repo as never });
    let csv = '';
    let index = 0;
    for await (const chunk of service.export({ client_id: 'acme' }, 'csv')) {
      // Chunk k (after the header) is page k: while it is consumed page k + 1 may be read, no further.
      assert.ok(state.reads <= index + 1, `total ${total}, chunk ${index}`);
      csv += chunk;
      index++;
    }
    const ids = csv
      .trim()
      .split('\r\n')
      .slice(1)
      .map((l) => l.split(',')[1]);
    assert.equal(ids.length, total, `total ${total}`);
    assert.equal(new Set(ids).size, total);
    assert.deepEqual(ids, [...ids].sort().reverse());
    assert.equal(state.maxOutstanding, 1);
    assert.equal(state.reads, Math.floor(total / 500) + 1);
  }
});

test('a page that cannot be read ends the export with its error', async () => {
  const { repo } = pagedRepo(1600, { failAtPage: 3 });
  const service = createAuditService({ audit: repo as never });
  const chunks: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const chunk of service.export({ client_id: 'acme' }, 'json')) chunks.push(chunk);
    })(),
    /database went away/,
  );
  // The opening bracket and the two pages read before the failure were sent.
  assert.equal(chunks.length, 3);
});

test('a cell a spreadsheet would run as a formula starts with an apostrophe; other text is unchanged', () => {
  const line = csvLinesOf(
    evaluation(
      {
        trigger_entity_id: '=HYPERLINK("https://evil.example","open")',
        customer_id: '@SUM(1+9)',
        evaluator_id: '-1',
        rule_set_version: '+2',
        high_risk_list_date: '\tx',
      },
      [RESULTS[0]],
    ),
    undefined,
    new Map(),
  );
  assert.ok(line.includes(`,"'=HYPERLINK(""https://evil.example"",""open"")",`), line);
  assert.ok(line.includes(",'-1,'@SUM(1+9),'+2,'\tx\r\n"), line);
  const plain = csvLinesOf(evaluation({}, [RESULTS[0]]), undefined, new Map());
  assert.ok(
    plain.startsWith(
      'acme,6b0c7d2e-1f3a-4b5c-8d9e-0a1b2c3d4e5f,MICA-CDD-001,pass,transaction,transaction,tx-1,',
    ),
  );
});

test('a cell holding a semicolon is quoted: a European-locale spreadsheet splits on it', () => {
  // Unquoted, German Excel would read `tx;=1+2` as the cells `tx` and `=1+2`, a formula.
  const line = csvLinesOf(evaluation({ trigger_entity_id: 'tx;=1+2' }, [RESULTS[0]]), undefined, new Map());
  assert.ok(line.includes(',"tx;=1+2",'), line);
});
