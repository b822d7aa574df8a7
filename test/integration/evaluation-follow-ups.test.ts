import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { assertGapFreePerYear, firstCaseNumber } from '../helpers/case-numbers.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

describe('alerts and cases opened by evaluations', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  before(async () => {
    t = await startTestApp();
    ({ auth } = await clientWithKey(t, 'acme'));
    await t.deps.clients.addOfficer('acme', 'olga', 'test');
    await t.deps.clients.addOfficer('acme', 'bruno', 'test');
  });
  after(() => t.close());

  const evaluate = (data: Record<string, unknown>, id?: string) =>
    t.app
      .inject({
        method: 'POST',
        url: '/api/mica/evaluate',
        headers: auth,
        payload: { client_id: 'acme', trigger_type: 'transaction', trigger_entity_id: id, data },
      })
      .then((r) => {
        assert.equal(r.statusCode, 200, r.body);
        return r.json();
      });

  it('a should_create_case evaluation opens a numbered, assigned case linked to its rules', async () => {
    const res = await evaluate({ customer_id: 'c1', customer_verified: true, amount_eur: 20000 }, 'tx-case');
    assert.equal(res.should_create_case, true);
    const cases = await t.deps.db
      .selectFrom('cases')
      .selectAll()
      .where('evaluation_id', '=', res.evaluation_id)
      .execute();
    assert.equal(cases.length, 1);
    const c = cases[0]!;
    assert.equal(c.case_number, firstCaseNumber(c.created_at));
    assert.equal(c.status, 'open');
    assert.equal(c.assignee, 'bruno', 'fewest open cases, ties by name');
    assert.deepEqual(c.rule_ids, ['MICA-CDD-002', 'MICA-RPT-004']);
    const dueDays = (new Date(c.due_at).getTime() - new Date(c.created_at).getTime()) / 86_400_000;
    assert.ok(dueDays >= 5 && dueDays <= 9, `5 business days: ${dueDays}`);
    assert.equal((c.history as unknown[]).length, 1);
  });

  it('a should_alert evaluation opens an alert with its severity deadline; no case when none is asked', async () => {
    const res = await evaluate(
      { customer_id: 'c2', customer_verified: true, multiple_identities_detected: true },
      'tx-alert',
    );
    assert.equal(res.should_alert, true);
    assert.equal(res.should_create_case, false);
    const alerts = await t.deps.db
      .selectFrom('alerts')
      .selectAll()
      .where('evaluation_id', '=', res.evaluation_id)
      .execute();
    assert.equal(alerts.length, 1);
    const a = alerts[0]!;
    assert.equal(a.severity, 'high');
    assert.equal(a.source, 'evaluation');
    assert.equal(a.case_id, null);
    assert.equal(a.transaction_id, 'tx-alert');
    assert.equal(new Date(a.due_at).getTime() - new Date(a.created_at).getTime(), 24 * 3600_000);
    const cases = await t.deps.db
      .selectFrom('cases')
      .selectAll()
      .where('evaluation_id', '=', res.evaluation_id)
      .execute();
    assert.equal(cases.length, 0);
  });

  it('an STR evaluation opens an STR case and an alert linked to it', async () => {
    const res = await evaluate({ customer_verified: true, suspicious_activity_detected: true });
    const c = await t.deps.db
      .selectFrom('cases')
      .selectAll()
      .where('evaluation_id', '=', res.evaluation_id)
      .executeTakeFirstOrThrow();
    assert.equal(c.is_str, true);
    assert.equal(c.assignee, 'olga');
    const a = await t.deps.db
      .selectFrom('alerts')
      .selectAll()
      .where('evaluation_id', '=', res.evaluation_id)
      .executeTakeFirstOrThrow();
    assert.equal(a.case_id, c.id);
    assert.equal(a.severity, 'critical');
  });

  it('case numbers stay unique and gap-free under concurrent evaluations', async () => {
    const n = 60;
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        evaluate({ customer_id: `k${i}`, customer_verified: true, amount_eur: 5000 }),
      ),
    );
    const rows = await sql<{ case_number: string }>`
      SELECT case_number FROM cases WHERE client_id = 'acme' ORDER BY case_number`.execute(t.deps.db);
    assertGapFreePerYear(rows.rows.map((r) => r.case_number));
    assert.equal(rows.rows.length, n + 2);
    const load = await sql<{ assignee: string; n: number }>`
      SELECT assignee, count(*)::int AS n FROM cases WHERE client_id = 'acme' GROUP BY assignee`.execute(
      t.deps.db,
    );
    const counts = load.rows.map((r) => Number(r.n)).sort();
    assert.ok(counts[1]! - counts[0]! <= 1, `balanced assignment: ${JSON.stringify(load.rows)}`);
  });

  it('without officers a case is unassigned', async () => {
    const other = await clientWithKey(t, 'solo');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: other.auth,
      payload: {
        client_id: 'solo',
        trigger_type: 'transaction',
        data: { customer_verified: true, amount_eur: 15000 },
      },
    });
    const id = res.json().evaluation_id;
    const c = await t.deps.db
      .selectFrom('cases')
      .selectAll()
      .where('evaluation_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(c.assignee, null);
    assert.equal(c.case_number, firstCaseNumber(c.created_at), 'numbers are per client');
  });

  it('an alert takes the severity and deadline of its alert rules, not of a block rule beside them', async () => {
    // MICA-CDD-001 (block, critical) and MICA-RPT-004 (alert, medium) both trigger.
    const res = await evaluate({ customer_verified: false, amount_eur: 10_000, full_cdd_complete: true });
    assert.equal(res.highest_severity, 'critical');
    const a = await t.deps.db
      .selectFrom('alerts')
      .selectAll()
      .where('evaluation_id', '=', res.evaluation_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(a.rule_ids, ['MICA-RPT-004']);
    assert.equal(a.severity, 'medium');
    assert.equal(new Date(a.due_at).getTime() - new Date(a.created_at).getTime(), 48 * 3600_000);
  });
});
