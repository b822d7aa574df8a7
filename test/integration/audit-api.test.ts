import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

describe('GET /api/mica/audit/evaluations', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  const ids: string[] = [];
  before(async () => {
    t = await startTestApp();
    ({ auth } = await clientWithKey(t, 'acme'));
    for (let i = 0; i < 12; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/mica/evaluate',
        headers: auth,
        payload: {
          client_id: 'acme',
          trigger_type: 'transaction',
          trigger_entity_id: `tx-${i}`,
          data: { customer_id: i % 2 ? 'odd' : 'even', customer_verified: true, amount_eur: i * 1000 },
        },
      });
      ids.push(res.json().evaluation_id);
    }
    const other = await clientWithKey(t, 'globex');
    await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: other.auth,
      payload: {
        client_id: 'globex',
        trigger_type: 'transaction',
        trigger_entity_id: 'tx-0',
        data: { customer_id: 'even' },
      },
    });
  });
  after(() => t.close());

  const get = (qs: string) =>
    t.app.inject({ method: 'GET', url: `/api/mica/audit/evaluations${qs}`, headers: auth });

  it('pages every row, newest first, without gaps or repeats, only of the caller', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      for (const row of body.items) seen.push(`${row.evaluation_id}/${row.rule_id}`);
      assert.ok(body.items.every((r: { client_id: string }) => r.client_id === 'acme'));
      cursor = body.next_cursor;
      pages++;
    } while (cursor && pages < 50);
    assert.equal(seen.length, 12 * 8);
    assert.equal(new Set(seen).size, seen.length);
    const evalOrder = [...new Set(seen.map((s) => s.split('/')[0]))];
    assert.deepEqual(evalOrder, [...ids].reverse());
  });

  it('filters by rule, customer, transaction and date', async () => {
    const byRule = (await get('?rule_id=MICA-RPT-004&limit=1000')).json();
    assert.equal(byRule.items.length, 12);
    assert.equal(byRule.items.filter((r: { result: string }) => r.result === 'alert').length, 2);
    const byCustomer = (await get('?customer_id=odd&rule_id=MICA-CDD-001')).json();
    assert.equal(byCustomer.items.length, 6);
    const byTx = (await get('?transaction_id=tx-3')).json();
    assert.equal(byTx.items.length, 8);
    assert.ok(byTx.items.every((r: { trigger_entity_id: string }) => r.trigger_entity_id === 'tx-3'));
    const future = (await get('?from=2999-01-01')).json();
    assert.equal(future.items.length, 0);
    // The day of the oldest seeded row, not the clock's: the run may have crossed midnight UTC.
    const seededDay = (byRule.items.at(-1) as { evaluated_at: string }).evaluated_at.slice(0, 10);
    const day = (await get(`?from=${seededDay}&rule_id=MICA-CDD-002`)).json();
    assert.equal(day.items.length, 12);
  });

  it('exports CSV with the spec columns and every row, and JSON as an array', async () => {
    const csv = await get('?format=csv&customer_id=even');
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /text\/csv/);
    const lines = csv.body.trim().split('\r\n');
    assert.equal(
      lines[0],
      'client_id,evaluation_id,rule_id,result,trigger_type,trigger_entity_type,trigger_entity_id,evaluated_at,transaction_blocked,alert_generated,conditions_evaluated,conditions_met,actions_executed,severity,evaluator_id,customer_id,rule_set_version,high_risk_list_date',
    );
    assert.equal(lines.length, 1 + 6 * 8);
    const json = await get('?format=json&customer_id=even');
    const rows = json.json();
    assert.ok(Array.isArray(rows));
    assert.equal(rows.length, 48);
    assert.deepEqual(Object.keys(rows[0]).length, 18);
    // Which high-risk country list the evaluation applied (MICA-CDD-006), as stored with it.
    const stored = await t.deps.db
      .selectFrom('evaluations')
      .select(['evaluation_id', 'high_risk_list_date'])
      .where('evaluation_id', '=', rows[0].evaluation_id)
      .executeTakeFirstOrThrow();
    assert.match(String(stored.high_risk_list_date), /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(
      rows.every(
        (r: { evaluation_id: string; high_risk_list_date: string | null }) =>
          r.evaluation_id !== stored.evaluation_id || r.high_risk_list_date === stored.high_risk_list_date,
      ),
    );
    assert.ok(lines.slice(1).every((l) => l.endsWith(`,${stored.high_risk_list_date}`)));
  });

  it('bad filters are a nested 400', async () => {
    for (const qs of [
      '?from=yesterday',
      '?from=2026-02-01&to=2026-01-01',
      '?cursor=abc',
      '?format=csv&cursor=abc',
      '?format=json&cursor=abc',
      '?limit=0',
      '?format=xml',
    ]) {
      const res = await get(qs);
      assert.equal(res.statusCode, 400, qs);
      assert.equal(res.json().error.code, 'INVALID_REQUEST');
    }
  });

  it('refuses dates and times that do not exist instead of rolling them over, naming the field', async () => {
    for (const [qs, field] of [
      ['?from=2026-02-30', 'from'],
      ['?to=2026-11-31', 'to'],
      ['?from=2026-13-01', 'from'],
      ['?from=2026-00-10', 'from'],
      ['?to=2026-02-29', 'to'],
      ['?from=2026-02-29T12:00:00Z', 'from'],
      ['?from=2026-01-01T24:00:00Z', 'from'],
      ['?to=2026-01-01T23:60Z', 'to'],
      ['?from=2026-01-01T10:00%2B24:00', 'from'],
      ['?format=csv&from=2026-04-31', 'from'],
      ['?format=json&to=2100-02-29', 'to'],
    ]) {
      const res = await get(qs!);
      assert.equal(res.statusCode, 400, `${qs}: ${res.body}`);
      const { error } = res.json();
      assert.equal(error.code, 'INVALID_REQUEST', qs);
      assert.equal(error.details.field, field, qs);
      assert.match(error.message, new RegExp(`^Invalid request: ${field}: `), qs);
      assert.deepEqual(error.details.errors, [`${field}: ${error.details.reason}`], qs);
    }
    // The case and alert transitions share the parser.
    const transitions = await t.app.inject({
      method: 'GET',
      url: '/api/mica/audit/transitions?from=2026-02-30',
      headers: auth,
    });
    assert.equal(transitions.statusCode, 400, transitions.body);
    assert.equal(transitions.json().error.details.field, 'from');
  });

  it("lists every problem of a query at once: the schema's and the dates'", async () => {
    const cases: Array<[string, string[]]> = [
      ['?format=xml&from=bad', ['format: Must be one of: json, csv', 'from: ']],
      ['?from=bad&to=alsobad', ['from: ', 'to: ']],
      ['?limit=0&to=bad', ['limit: Must be >= 1', 'to: ']],
      ['?from=2026-02-01&to=2026-01-01&limit=0', ['limit: Must be >= 1', 'from: Must not be after to']],
    ];
    for (const [qs, expected] of cases)
      for (const path of ['evaluations', 'actions', 'transitions']) {
        const res = await t.app.inject({ method: 'GET', url: `/api/mica/audit/${path}${qs}`, headers: auth });
        assert.equal(res.statusCode, 400, `${path}${qs}: ${res.body}`);
        const errors: string[] = res.json().error.details.errors;
        assert.equal(errors.length, expected.length, `${path}${qs}: ${errors.join(' | ')}`);
        for (const [i, start] of expected.entries())
          assert.ok(errors[i]!.startsWith(start), `${path}${qs}: ${errors[i]}`);
      }
  });

  it('refuses instants the database cannot take (year 0000, past 9999 in UTC) with a 400 before any byte of an export', async () => {
    for (const path of ['evaluations', 'actions', 'transitions'])
      for (const [qs, field] of [
        ['from=0000-01-01', 'from'],
        ['to=0000-12-31T00:00Z', 'to'],
        ['format=json&to=0000-01-01', 'to'],
        ['format=csv&from=0001-01-01T00:00%2B01:00', 'from'],
        ['to=9999-12-31T23:00-02:00', 'to'],
      ]) {
        const res = await t.app.inject({
          method: 'GET',
          url: `/api/mica/audit/${path}?${qs}`,
          headers: auth,
        });
        assert.equal(res.statusCode, 400, `${path}?${qs}: ${res.body}`);
        assert.equal(res.json().error.details.field, field);
        assert.equal(res.json().error.details.reason, 'Must lie between 0001-01-01 and 9999-12-31 (UTC)');
      }
    const edge = await get('?from=0001-01-01&to=9999-12-31T23:59:59Z');
    assert.equal(edge.statusCode, 200, edge.body);
  });

  it('still takes a date (UTC midnight), a leap day, and date-times with Z or an offset', async () => {
    // (%2B is a +: a plain + in a query string is a space.)
    for (const qs of [
      '?from=2024-02-29',
      '?from=2000-02-29&to=2999-12-31',
      '?from=2026-01-31T23:59:59Z',
      '?from=2026-01-01T10:00%2B05:30',
      '?from=2026-01-01T10:00-0530',
      '?to=2999-12-31T23:59:59.123456%2B14:00',
    ]) {
      const res = await get(`${qs}&rule_id=MICA-CDD-002`);
      assert.equal(res.statusCode, 200, `${qs}: ${res.body}`);
      assert.equal(res.json().items.length, 12, qs);
    }
    // A date alone is its UTC midnight: rows of today are before tomorrow's midnight, not after.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    assert.equal((await get(`?to=${tomorrow}&rule_id=MICA-CDD-002`)).json().items.length, 12);
    assert.equal((await get(`?from=${tomorrow}&rule_id=MICA-CDD-002`)).json().items.length, 0);
  });

  // Last: it adds rows that the counts above do not expect.
  it("a transfer's rows are found by the client's own party: the originator out, the beneficiary in", async () => {
    const transfer = async (id: string, data: Record<string, unknown>) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/mica/evaluate',
        headers: auth,
        payload: { client_id: 'acme', trigger_type: 'travel_rule', trigger_entity_id: id, data },
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const base = {
      amount_eur: 500,
      amount_crypto: 0.01,
      transfer_type: 'external',
      data_completeness: 'complete',
      self_hosted_wallet: false,
    };
    await transfer('tr-out', {
      ...base,
      transfer_id: 'tr-out',
      direction: 'outbound',
      originator_customer_id: 'tr-cust',
    });
    await transfer('tr-in', {
      ...base,
      transfer_id: 'tr-in',
      direction: 'inbound',
      originator_customer_id: 'their-cust',
      beneficiary_customer_id: 'tr-cust',
    });
    const res = await get('?customer_id=tr-cust');
    assert.equal(res.statusCode, 200, res.body);
    const items = res.json().items as Array<{ trigger_entity_id: string; customer_id: string }>;
    assert.deepEqual([...new Set(items.map((r) => r.trigger_entity_id))], ['tr-in', 'tr-out']);
    assert.ok(items.every((r) => r.customer_id === 'tr-cust'));
  });
});
