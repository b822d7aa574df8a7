import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

interface ActionItem {
  client_id: string;
  evaluation_id: string;
  rule_id: string;
  action_type: string;
  outcome: string;
  executed_at: string;
  executor_id: string;
  evidence: Record<string, unknown>;
  trigger_type: string;
  trigger_entity_id: string | null;
  customer_id: string | null;
}

describe('executed actions of the audit trail (type, outcome, time, executor, evidence)', () => {
  let t: TestApp;
  let acme: Awaited<ReturnType<typeof clientWithKey>>;
  let globex: Awaited<ReturnType<typeof clientWithKey>>;
  before(async () => {
    t = await startTestApp();
    acme = await clientWithKey(t, 'acme');
    globex = await clientWithKey(t, 'globex');
  });
  after(() => t.close());

  const evaluate = async (who: typeof acme, id: string, data: Record<string, unknown>) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: who.auth,
      payload: { client_id: who.clientId, trigger_type: 'transaction', trigger_entity_id: id, data },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { evaluation_id: string; timestamp: string };
  };
  const actions = async (who: typeof acme, query: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/mica/audit/actions?${query}`,
      headers: who.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { items: ActionItem[]; next_cursor: string | null };
  };

  it('records every action of the triggered rules, with the case it opened as evidence', async () => {
    const ev = await evaluate(acme, 'tx-big', {
      customer_id: 'c-1',
      customer_verified: true,
      amount_eur: 20_000,
    });
    const { items, next_cursor } = await actions(acme, 'transaction_id=tx-big');
    assert.equal(next_cursor, null);
    assert.deepEqual(
      items.map((a) => [a.rule_id, a.action_type, a.outcome]),
      [
        ['MICA-CDD-002', 'block_transaction', 'success'],
        ['MICA-CDD-002', 'create_case', 'success'],
        ['MICA-RPT-004', 'create_case', 'success'],
      ],
    );
    const c = await t.deps.db
      .selectFrom('cases')
      .select(['id', 'case_number', 'reason', 'rule_ids', 'created_at'])
      .where('evaluation_id', '=', ev.evaluation_id)
      .executeTakeFirstOrThrow();
    // The case as it was opened: id, number, reason, rules, time, officer (none: acme has none).
    assert.deepEqual(items[1]!.evidence, {
      case_id: c.id,
      case_number: c.case_number,
      reason: c.reason,
      rule_ids: c.rule_ids,
      created_at: new Date(c.created_at).toISOString(),
      assigned_to: null,
    });
    assert.deepEqual(c.rule_ids, ['MICA-CDD-002', 'MICA-RPT-004']);
    assert.deepEqual(items[0]!.evidence, {
      returned_in: 'should_block',
      transaction_blocked: true,
      trigger_entity_id: 'tx-big',
    });
    for (const a of items) {
      assert.equal(a.evaluation_id, ev.evaluation_id);
      assert.equal(a.executed_at, ev.timestamp);
      assert.equal(a.executor_id, `key:${acme.keyId}`);
      assert.equal(a.customer_id, 'c-1');
    }
  });

  it('a created case names the officer it was opened for, whoever holds it later', async () => {
    const initech = await clientWithKey(t, 'initech');
    await t.deps.clients.addOfficer('initech', 'olga', 'test');
    await t.deps.clients.addOfficer('initech', 'piotr', 'test');
    await evaluate(initech, 'tx-officer', {
      customer_id: 'c-9',
      customer_verified: true,
      amount_eur: 20_000,
    });
    const opened = (await actions(initech, 'transaction_id=tx-officer&action_type=create_case')).items;
    assert.equal(opened.length, 2);
    const first = opened[0]!.evidence as { case_id: string; assigned_to: string };
    assert.ok(['olga', 'piotr'].includes(first.assigned_to), JSON.stringify(first));
    const other = first.assigned_to === 'olga' ? 'piotr' : 'olga';
    const moved = await t.app.inject({
      method: 'POST',
      url: `/api/cases/${first.case_id}/assign`,
      headers: initech.auth,
      payload: { officer: other },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    // An alert escalated into the case adds its rules to the case, not to the record of its opening.
    const ev = await evaluate(initech, 'tx-alert', {
      customer_verified: true,
      multiple_identities_detected: true,
    });
    const alert = await t.deps.db
      .selectFrom('alerts')
      .select('id')
      .where('evaluation_id', '=', ev.evaluation_id)
      .executeTakeFirstOrThrow();
    const joined = await t.app.inject({
      method: 'POST',
      url: `/api/alerts/${alert.id}/transition`,
      headers: initech.auth,
      payload: { to: 'escalated', case_id: first.case_id },
    });
    assert.equal(joined.statusCode, 200, joined.body);
    const after = (await actions(initech, 'transaction_id=tx-officer&action_type=create_case')).items;
    assert.equal((after[0]!.evidence as { assigned_to: string }).assigned_to, first.assigned_to);
    assert.deepEqual((after[0]!.evidence as { rule_ids: string[] }).rule_ids, [
      'MICA-CDD-002',
      'MICA-RPT-004',
    ]);
    // In the CSV export too.
    const csv = await t.app.inject({
      method: 'GET',
      url: '/api/mica/audit/actions?transaction_id=tx-officer&action_type=create_case&format=csv',
      headers: initech.auth,
    });
    assert.match(csv.body, new RegExp(`""assigned_to"":""${first.assigned_to}""`));
  });

  it('an alert action shows its alert; without it the action reads failure', async () => {
    const ev = await evaluate(acme, 'tx-ids', {
      customer_verified: true,
      multiple_identities_detected: true,
    });
    const [generate] = (await actions(acme, `evaluation_id=${ev.evaluation_id}`)).items;
    assert.equal(generate!.action_type, 'generate_alert');
    assert.equal(generate!.outcome, 'success');
    const alert = await t.deps.db
      .selectFrom('alerts')
      .select(['id'])
      .where('evaluation_id', '=', ev.evaluation_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(generate!.evidence, { alert_id: alert.id, severity: 'high' });
    // Alerts are worked, not append-only: had the alert gone missing, the record says so.
    await t.deps.db.deleteFrom('alerts').where('id', '=', alert.id).execute();
    const [missing] = (await actions(acme, `evaluation_id=${ev.evaluation_id}`)).items;
    assert.equal(missing!.outcome, 'failure');
    assert.deepEqual(missing!.evidence, { alert_id: null, severity: null });
  });

  it('filters, pages newest first, exports CSV and JSON, and shows a client only its own', async () => {
    for (let i = 0; i < 3; i++)
      await evaluate(acme, `tx-page-${i}`, { customer_id: 'c-page', customer_verified: false });
    await evaluate(globex, 'tx-globex', { customer_id: 'c-page', customer_verified: false });
    const all: ActionItem[] = [];
    let cursor: string | null = null;
    do {
      const page = await actions(acme, `customer_id=c-page&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      all.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    // CDD-001 blocks each: block_transaction and request_kyc, newest evaluation first.
    assert.deepEqual(
      all.map((a) => `${a.trigger_entity_id}:${a.action_type}`),
      ['tx-page-2', 'tx-page-1', 'tx-page-0'].flatMap((id) => [
        `${id}:block_transaction`,
        `${id}:request_kyc`,
      ]),
    );
    assert.ok(all.every((a) => a.client_id === 'acme'));
    const kyc = await actions(acme, 'customer_id=c-page&action_type=request_kyc');
    assert.equal(kyc.items.length, 3);
    assert.deepEqual(kyc.items[0]!.evidence, { returned_in: 'actions_required' });

    const csv = await t.app.inject({
      method: 'GET',
      url: '/api/mica/audit/actions?customer_id=c-page&format=csv',
      headers: acme.auth,
    });
    assert.equal(csv.statusCode, 200);
    const lines = csv.body.split('\r\n').filter(Boolean);
    assert.equal(
      lines[0],
      'client_id,evaluation_id,rule_id,action_type,outcome,executed_at,executor_id,evidence,trigger_type,trigger_entity_id,customer_id',
    );
    assert.equal(lines.length, 7);
    const json = await t.app.inject({
      method: 'GET',
      url: '/api/mica/audit/actions?customer_id=c-page&format=json',
      headers: globex.auth,
    });
    assert.deepEqual(
      (json.json() as ActionItem[]).map((a) => `${a.client_id}:${a.trigger_entity_id}`),
      ['globex:tx-globex', 'globex:tx-globex'],
    );

    for (const bad of ['from=2026-02-30', 'cursor=nope', 'format=csv&cursor=nope', 'limit=0'])
      assert.equal(
        (await t.app.inject({ method: 'GET', url: `/api/mica/audit/actions?${bad}`, headers: acme.auth }))
          .statusCode,
        400,
        bad,
      );
  });
});
