import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { WebhookKind } from '../../src/domain/webhooks/kinds.ts';
import { assertGapFreePerYear, firstCaseNumber } from '../helpers/case-numbers.ts';
import { clientWithKey, type TestApp } from '../helpers/harness.ts';
import { intakeCounts, register, signed, startWebhookApp, vendorBody } from '../helpers/webhooks.ts';

const SECRETS: Record<WebhookKind, string> = {
  'txmon-a': 'secret-txmon-a-acme',
  'txmon-b': 'secret-txmon-b-acme',
  kyc: 'secret-kyc-acme',
  screening: 'secret-screening-acme',
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('webhook intake', () => {
  let t: TestApp;
  before(async () => {
    t = await startWebhookApp();
    await clientWithKey(t, 'acme');
    await t.deps.clients.addOfficer('acme', 'olga', 'test');
    for (const kind of Object.keys(SECRETS) as WebhookKind[]) await register(t, kind, 'acme', SECRETS[kind]);
  });
  after(() => t.close());

  const deliver = (kind: WebhookKind, body: unknown) => t.app.inject(signed(kind, SECRETS[kind], body));
  const alertOf = (id: string) =>
    t.deps.db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('a high-severity txmon alert: 200 with alert, case and case number, all committed', async () => {
    const body = vendorBody('txmon-a', {
      data: { severity: 'high', customer_id: 'cust-1', transaction_id: 'tx-9', reason: 'structuring' },
    });
    const res = await deliver('txmon-a', body);
    assert.equal(res.statusCode, 200, res.body);
    const ack = res.json();
    assert.deepEqual(Object.keys(ack), ['status', 'platform_alert_id', 'case_id', 'case_number']);
    assert.equal(ack.status, 'accepted');
    assert.match(ack.platform_alert_id, UUID);
    assert.match(ack.case_id, UUID);
    const a = await alertOf(ack.platform_alert_id);
    assert.equal(ack.case_number, firstCaseNumber(a.created_at));
    assert.equal(a.client_id, 'acme');
    assert.equal(a.source, 'txmon-a');
    assert.equal(a.event, 'alert.created');
    assert.equal(a.vendor_object_id, body.data.alert_id);
    assert.equal(a.customer_id, 'cust-1');
    assert.equal(a.transaction_id, 'tx-9');
    assert.equal(a.severity, 'high');
    assert.equal(a.case_id, ack.case_id);
    assert.deepEqual(a.payload, body);
    assert.ok((a.headers as Record<string, string>)['x-signature-256']);
    // The vendor's body reads in its own key order, not the database's (CONTRACT §5: the raw body).
    assert.deepEqual(Object.keys(a.payload as object), Object.keys(body));
    assert.deepEqual(Object.keys((a.payload as { data: object }).data), Object.keys(body.data));
    const { auth } = await clientWithKey(t, 'acme', {});
    const viaApi = await t.app.inject({
      method: 'GET',
      url: `/api/alerts/${ack.platform_alert_id}`,
      headers: auth,
    });
    assert.equal(viaApi.statusCode, 200, viaApi.body);
    assert.equal(JSON.stringify(viaApi.json().payload), JSON.stringify(body));
    assert.equal(new Date(a.due_at).getTime() - new Date(a.created_at).getTime(), 24 * 3600_000);
    const c = await t.deps.db
      .selectFrom('cases')
      .selectAll()
      .where('id', '=', ack.case_id)
      .executeTakeFirstOrThrow();
    assert.equal(c.assignee, 'olga');
    assert.equal(c.status, 'open');
    assert.match(c.reason, /structuring/);
  });

  it('case rules per kind: severity high/critical, every screening.hit, kyc declined or review', async () => {
    const cases: [WebhookKind, Record<string, unknown>, string | undefined, boolean, string][] = [
      ['txmon-a', { severity: 'low' }, undefined, false, 'low'],
      ['txmon-a', { severity: 'medium' }, undefined, false, 'medium'],
      ['txmon-a', { severity: 'critical' }, undefined, true, 'critical'],
      ['txmon-b', { risk_score: 80 }, undefined, true, 'critical'],
      ['txmon-b', { risk_score: 30 }, 'transaction.flagged', false, 'medium'],
      ['txmon-b', {}, undefined, false, 'medium'],
      ['screening', { severity: 'low' }, undefined, true, 'low'],
      ['kyc', { decision: 'approved', customer_id: 'k1' }, undefined, false, 'low'],
      ['kyc', { decision: 'review', customer_id: 'k2' }, undefined, true, 'medium'],
      ['kyc', { decision: 'declined', customer_id: 'k3' }, undefined, true, 'high'],
    ];
    for (const [kind, data, event, withCase, severity] of cases) {
      const res = await deliver(kind, vendorBody(kind, { data, event }));
      assert.equal(res.statusCode, 200, res.body);
      const ack = res.json();
      assert.equal(ack.case_id !== null, withCase, `${kind} ${JSON.stringify(data)}`);
      assert.equal(ack.case_number !== null, withCase);
      assert.equal((await alertOf(ack.platform_alert_id)).severity, severity);
    }
  });

  it('a KYC evaluation.completed records the customer decision; a later one replaces it', async () => {
    const first = await deliver(
      'kyc',
      vendorBody('kyc', { data: { decision: 'review', customer_id: 'cust-kyc' } }),
    );
    assert.equal(first.statusCode, 200);
    const d1 = await t.deps.db
      .selectFrom('kyc_decisions')
      .selectAll()
      .where('client_id', '=', 'acme')
      .where('customer_id', '=', 'cust-kyc')
      .executeTakeFirstOrThrow();
    assert.equal(d1.decision, 'review');
    assert.equal(d1.alert_id, first.json().platform_alert_id);
    const second = await deliver(
      'kyc',
      vendorBody('kyc', { data: { decision: 'approved', customer_id: 'cust-kyc' } }),
    );
    const d2 = await t.deps.db
      .selectFrom('kyc_decisions')
      .selectAll()
      .where('customer_id', '=', 'cust-kyc')
      .executeTakeFirstOrThrow();
    assert.equal(d2.decision, 'approved');
    assert.equal(d2.alert_id, second.json().platform_alert_id);
    const alert = await alertOf(second.json().platform_alert_id);
    assert.equal(
      (alert.payload as { data: { decision: string } }).data.decision,
      'approved',
      'visible in the alert',
    );
  });

  it('400 BAD_REQUEST: malformed JSON, unknown event, missing vendor object id, bad fields; nothing stored', async () => {
    const before = await intakeCounts(t);
    const bad: [WebhookKind, unknown][] = [
      ['txmon-a', '{"id": "x", '],
      ['txmon-a', '[1,2,3]'],
      ['txmon-a', vendorBody('txmon-a', { event: 'alert.deleted' })],
      ['kyc', { id: 'd-1', event: 'evaluation.completed', data: { customer_id: 'c' } }],
      ['screening', { id: 'd-2', event: 'screening.hit', data: { hit_id: 'h', severity: 'extreme' } }],
      ['txmon-b', { event: 'alert.created', data: { alert_id: 'a' } }],
      ['txmon-a', '{"a":'.repeat(70) + '1' + '}'.repeat(70)],
      // Text PostgreSQL cannot store: NUL and an unpaired surrogate, escaped in valid JSON.
      ['txmon-a', '{"id":"n-1","event":"alert.created","data":{"alert_id":"a\\u0000b"}}'],
      ['txmon-a', '{"id":"n-2","event":"alert.created","data":{"alert_id":"a","reason":"\\ud800"}}'],
    ];
    for (const [kind, body] of bad) {
      const res = await deliver(kind, body);
      assert.equal(res.statusCode, 400, `${kind} ${String(body).slice(0, 40)}: ${res.body}`);
      assert.equal(res.json().error.code, 'BAD_REQUEST');
    }
    const missing = await deliver('kyc', { id: 'd-1', event: 'evaluation.completed', data: {} });
    assert.equal(missing.json().error.details.field, 'data.evaluation_id');
    assert.deepEqual(await intakeCounts(t), before);
  });

  it('409 DUPLICATE_ALERT for a repeated delivery id and for a second creation of one vendor object', async () => {
    const body = vendorBody('screening');
    assert.equal((await deliver('screening', body)).statusCode, 200);
    const before = await intakeCounts(t);
    const again = await deliver('screening', body);
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error.code, 'DUPLICATE_ALERT');
    const sameObject = vendorBody('screening', { objectId: body.data.hit_id });
    assert.equal((await deliver('screening', sameObject)).statusCode, 409);
    assert.deepEqual(await intakeCounts(t), before, 'nothing new stored, no case number used');
  });

  it('20 identical deliveries at once: exactly one 200, the rest 409, one alert', async () => {
    const body = vendorBody('txmon-a', { data: { severity: 'critical' } });
    const before = await intakeCounts(t);
    const results = await Promise.all(Array.from({ length: 20 }, () => deliver('txmon-a', body)));
    const codes = results.map((r) => r.statusCode).sort();
    assert.deepEqual(codes, [200, ...Array(19).fill(409)], codes.join(','));
    const after = await intakeCounts(t);
    assert.equal(after.alerts, before.alerts + 1);
    assert.equal(after.cases, before.cases + 1);
    assert.equal(after.deliveries, before.deliveries + 1);
  });

  it('the same vendor object created concurrently under different delivery ids: one alert', async () => {
    const objectId = 'obj-race';
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        deliver('txmon-b', vendorBody('txmon-b', { objectId, data: { severity: 'high' } })),
      ),
    );
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, ...Array(9).fill(409)]);
    const n = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM alerts WHERE vendor_object_id = ${objectId}`.execute(t.deps.db);
    assert.equal(Number(n.rows[0]!.n), 1);
  });

  it('case numbers stay distinct and gap-free under concurrent intake', async () => {
    const c = await clientWithKey(t, 'numbers');
    await register(t, 'screening', 'numbers', 'numbers-screening-secret');
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        t.app.inject(signed('screening', 'numbers-screening-secret', vendorBody('screening'))),
      ),
    );
    assert.ok(results.every((r) => r.statusCode === 200));
    assertGapFreePerYear(results.map((r) => r.json().case_number));
    assert.equal(c.clientId, 'numbers');
  });

  it("the alert's payload is the body as delivered: numbers keep every digit (list, detail, transition)", async () => {
    const { auth } = await clientWithKey(t, 'acme', {});
    const objectId = `obj-exact-${Date.now()}`;
    // Numbers a double cannot hold: 2^63-ish, overflow, underflow, more digits than 17.
    const exact = (id: string, event: string, extra: string) =>
      `{"id":"${id}","event":"${event}","created_at":"${new Date().toISOString()}",` +
      `"data":{"alert_id":"${objectId}","severity":"low","account_id":1234567890123456789,` +
      `"big":1e400,"tiny":1e-400,"amount":0.1000000000000000055,"n":[-0.0,1E+2, 12345678901234567890123]${extra}}}`;
    const created = exact(`dlv-${objectId}-1`, 'alert.created', '');
    const res = await deliver('txmon-a', created);
    assert.equal(res.statusCode, 200, res.body);
    const id = res.json().platform_alert_id as string;
    const payloadText = (body: string) => {
      // The response is valid JSON, and the payload's text within it is the delivered text.
      JSON.parse(body);
      return body;
    };
    const detail = await t.app.inject({ method: 'GET', url: `/api/alerts/${id}`, headers: auth });
    assert.equal(detail.statusCode, 200, detail.body);
    assert.ok(payloadText(detail.body).includes(`"payload":${created},"history":`), detail.body);
    assert.equal(detail.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(detail.json().payload.data.alert_id, objectId);
    const list = await t.app.inject({ method: 'GET', url: '/api/alerts?limit=200', headers: auth });
    assert.equal(list.statusCode, 200);
    assert.ok(payloadText(list.body).includes(`"payload":${created}`));
    // An update's body replaces it, as delivered too (whitespace and all).
    const updated = exact(`dlv-${objectId}-2`, 'alert.updated', ',"more": 9007199254740993 ');
    assert.equal((await deliver('txmon-a', updated)).statusCode, 200);
    const moved = await t.app.inject({
      method: 'POST',
      url: `/api/alerts/${id}/transition`,
      headers: auth,
      payload: { to: 'acknowledged' },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.ok(payloadText(moved.body).includes(`"payload":${updated},"history":`), moved.body);
    // A refusal is still the usual error body.
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/alerts/${id}/transition`,
      headers: auth,
      payload: { to: 'open' },
    });
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().error.code, 'INVALID_TRANSITION');
  });

  it('a body opening with a byte order mark is accepted (creation and update)', async () => {
    // JSON parsers may ignore a BOM (RFC 8259 §8.1); the json column of the payload refused it: 500.
    const objectId = `obj-bom-${Date.now()}`;
    const body = (id: string, event: string, severity: string) =>
      Buffer.from(
        `\uFEFF{"id":"${id}","event":"${event}","data":{"alert_id":"${objectId}","severity":"${severity}"}}`,
        'utf8',
      );
    const created = await deliver('txmon-a', body(`dlv-${objectId}-1`, 'alert.created', 'low'));
    assert.equal(created.statusCode, 200, created.body);
    const updated = await deliver('txmon-a', body(`dlv-${objectId}-2`, 'alert.updated', 'high'));
    assert.equal(updated.statusCode, 200, updated.body);
    const alert = await alertOf(created.json().platform_alert_id);
    assert.equal((alert.payload as { data: { severity: string } }).data.severity, 'high');
    const delivery = await t.deps.db
      .selectFrom('webhook_deliveries')
      .select('raw_body')
      .where('delivery_id', '=', `dlv-${objectId}-1`)
      .executeTakeFirstOrThrow();
    // The delivery's text as sent (the embedded engine's text decoding drops a leading BOM).
    assert.equal(
      delivery.raw_body?.replace(/^\uFEFF/, ''),
      body(`dlv-${objectId}-1`, 'alert.created', 'low').toString('utf8').slice(1),
    );
  });

  it('a payload id past 2^53 is refused: too large to be exact, send it as a string', async () => {
    const res = await deliver(
      'txmon-a',
      `{"id":"dlv-big-${Date.now()}","event":"alert.created","data":{"alert_id":9007199254740993}}`,
    );
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.body, /data\.alert_id: Number too large to be exact .*send the id as a string/);
  });

  it('*.updated updates its alert (severity, payload, history) with the same ids, and may open a case', async () => {
    const created = vendorBody('txmon-a', { data: { severity: 'low' } });
    const first = (await deliver('txmon-a', created)).json();
    assert.equal(first.case_id, null);
    const update = vendorBody('txmon-a', {
      event: 'alert.updated',
      objectId: created.data.alert_id,
      data: { severity: 'critical', reason: 'escalated by vendor' },
    });
    const res = await deliver('txmon-a', update);
    assert.equal(res.statusCode, 200, res.body);
    const ack = res.json();
    assert.equal(ack.platform_alert_id, first.platform_alert_id);
    assert.match(ack.case_id, UUID, 'critical now: a case is opened');
    const a = await alertOf(first.platform_alert_id);
    assert.equal(a.severity, 'critical');
    assert.deepEqual(a.payload, update);
    assert.equal(JSON.stringify(a.payload), JSON.stringify(update), 'in the order it was sent');
    assert.equal(a.case_id, ack.case_id);
    assert.equal(new Date(a.due_at).getTime() - new Date(a.created_at).getTime(), 4 * 3600_000);
    const history = a.history as { note: string; from: string; to: string }[];
    assert.equal(history.length, 2);
    assert.match(history[1]!.note, /alert\.updated .*low → critical/);
    // A second update keeps the ids and opens no second case.
    const again = vendorBody('txmon-a', { event: 'alert.updated', objectId: created.data.alert_id });
    const ack2 = (await deliver('txmon-a', again)).json();
    assert.deepEqual(
      [ack2.platform_alert_id, ack2.case_id, ack2.case_number],
      [ack.platform_alert_id, ack.case_id, ack.case_number],
    );
    // The same update delivered twice is a duplicate.
    assert.equal((await deliver('txmon-a', again)).statusCode, 409);
  });

  it('an update raising a closed alert to critical still opens a case; the alert stays closed', async () => {
    const created = vendorBody('txmon-a', { data: { severity: 'low' } });
    const first = (await deliver('txmon-a', created)).json();
    const { auth } = await clientWithKey(t, 'acme');
    const closed = await t.app.inject({
      method: 'POST',
      url: `/api/alerts/${first.platform_alert_id}/transition`,
      headers: auth,
      payload: { to: 'closed', resolution: 'false_positive' },
    });
    assert.equal(closed.statusCode, 200, closed.body);
    const update = vendorBody('txmon-a', {
      event: 'alert.updated',
      objectId: created.data.alert_id,
      data: { severity: 'critical' },
    });
    const ack = (await deliver('txmon-a', update)).json();
    assert.match(ack.case_id, UUID, 'CONTRACT §6: a case for severity critical');
    assert.match(ack.case_number, /^CASE-\d{4}-\d{6}$/);
    const a = await alertOf(first.platform_alert_id);
    assert.equal(a.status, 'closed');
    assert.equal(a.severity, 'critical');
    assert.equal(a.case_id, ack.case_id);
  });

  it('an update for an unknown object creates the alert (deliveries arrive out of order)', async () => {
    const update = vendorBody('screening', { event: 'screening.updated', data: { severity: 'medium' } });
    const res = await deliver('screening', update);
    assert.equal(res.statusCode, 200);
    const a = await alertOf(res.json().platform_alert_id);
    assert.equal(a.event, 'screening.updated');
    assert.equal(res.json().case_id, null, 'an update is not a hit: medium opens no case');
    const lateCreation = vendorBody('screening', { objectId: update.data.hit_id });
    assert.equal((await deliver('screening', lateCreation)).statusCode, 409);
  });

  it('a long vendor reason is cut for the case without splitting a character', async () => {
    const reason = `x${'🚨'.repeat(600)}`;
    const res = await deliver('screening', vendorBody('screening', { data: { reason } }));
    assert.equal(res.statusCode, 200, res.body);
    const c = await t.deps.db
      .selectFrom('cases')
      .select('reason')
      .where('id', '=', res.json().case_id)
      .executeTakeFirstOrThrow();
    assert.ok(c.reason.endsWith('🚨') && Array.from(c.reason).length === 500);
  });

  it('due dates follow the client calendar (time zone and holiday country)', async () => {
    await clientWithKey(t, 'berlin', { settings: { time_zone: 'Europe/Berlin', holiday_country: 'DE' } });
    await register(t, 'txmon-a', 'berlin', 'berlin-txmon-secret');
    const res = await t.app.inject(
      signed('txmon-a', 'berlin-txmon-secret', vendorBody('txmon-a', { data: { severity: 'low' } })),
    );
    assert.equal(res.statusCode, 200, res.body);
    const a = await alertOf(res.json().platform_alert_id);
    const days = (new Date(a.due_at).getTime() - new Date(a.created_at).getTime()) / 86_400_000;
    // Low: 5 business days, so never less than 5 calendar days and more across a weekend (less an
    // hour when the clocks go forward in between: the due date keeps the local time of day).
    assert.ok(days >= 5 - 1 / 24 && days <= 12, `low alert due after ${days} days`);
    const { isHoliday } = (await t.deps.clientContext('berlin'))!;
    assert.ok(isHoliday?.('2026-12-25'), 'the DE calendar is the one in use');
  });
});
