import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createConsoleService, endOfLocalDay } from '../../src/services/console.service.ts';
import { createClientsRepo } from '../../src/storage/clients.repo.ts';
import { createConsoleRepo } from '../../src/storage/console.repo.ts';
import { type CasesApi, startCasesApi } from '../helpers/cases-api.ts';
import { clientWithKey } from '../helpers/harness.ts';
import { register, signed, vendorBody } from '../helpers/webhooks.ts';

type Who = { auth: Record<string, string> };

describe('console API: whoami, counts, cases queue, evaluation record, rule stats, transitions', () => {
  let api: CasesApi;
  let olga: Who & { keyId: string };
  before(async () => {
    api = await startCasesApi();
    const k = await api.t.deps.keys.create('acme', { officer: 'olga', actor: 'test' });
    olga = { keyId: k.key_id, auth: { authorization: `Bearer ${k.key}` } };
  });
  after(() => api.t.close());

  /** A third client with one webhook case (globex's cases are counted by other tests). */
  let hooliCase: (Who & { caseId: string; alertId: string }) | undefined;
  const otherTenant = async () => {
    if (hooliCase) return hooliCase;
    const k = await clientWithKey(api.t, 'hooli');
    await register(api.t, 'txmon-a', 'hooli', 'hooli-txmon-secret');
    const res = await api.t.app.inject(
      signed('txmon-a', 'hooli-txmon-secret', vendorBody('txmon-a', { data: { severity: 'high' } })),
    );
    assert.equal(res.statusCode, 200, res.body);
    hooliCase = { auth: k.auth, caseId: res.json().case_id, alertId: res.json().platform_alert_id };
    return hooliCase;
  };

  const evaluate = (who: Who, client: string, id: string, data: Record<string, unknown>) =>
    api.as(who).post('/api/mica/evaluate', {
      client_id: client,
      trigger_type: 'transaction',
      trigger_entity_id: id,
      data,
    });

  it('whoami names the client, role, environment and the key’s officer; 401 without a key', async () => {
    const me = (await api.as(olga).get('/api/console/whoami')).json();
    assert.deepEqual(me, {
      client_id: 'acme',
      client_name: 'acme',
      key_id: olga.keyId,
      role: 'standard',
      environment: 'live',
      sandbox: false,
      officer: 'olga',
      officers: ['bruno', 'olga'],
      time_zone: 'UTC',
    });
    const plain = (await api.as(api.acme).get('/api/console/whoami')).json();
    assert.equal(plain.officer, null);
    const other = (await api.as(api.globex).get('/api/console/whoami')).json();
    assert.equal(other.client_id, 'globex');
    assert.deepEqual(other.officers, []);
    const anon = await api.t.app.inject({ method: 'GET', url: '/api/console/whoami' });
    assert.equal(anon.statusCode, 401);
    assert.equal(anon.json().error.code, 'UNAUTHORIZED');
  });

  it('an officer key acts as its officer: in case history and in the audit rows; X-Actor cannot override it', async () => {
    const caseId = await api.newCase();
    const moved = await api
      .as(olga, { 'x-actor': 'mallory' })
      .post(`/api/cases/${caseId}/transition`, { to: 'investigating', note: 'looking' });
    assert.equal(moved.statusCode, 200, moved.body);
    const last = moved.json().history.at(-1);
    assert.deepEqual([last.actor, last.actor_name], [olga.keyId, 'olga']);
    const assigned = await api.as(olga).post(`/api/cases/${caseId}/assign`, { officer: 'bruno' });
    const assignedBy = assigned.json().history.at(-1);
    assert.deepEqual([assignedBy.actor, assignedBy.actor_name], [olga.keyId, 'olga']);
    // A key without an officer may still name its person.
    const named = await api.as(api.acme, { 'x-actor': 'Olga O.' }).post(`/api/cases/${caseId}/transition`, {
      to: 'pending_filing',
    });
    assert.deepEqual(
      [named.json().history.at(-1).actor, named.json().history.at(-1).actor_name],
      [api.acme.keyId, 'Olga O.'],
    );

    const ev = (await evaluate(olga, 'acme', 'tx-olga', { customer_verified: true, amount_eur: 5 })).json();
    const rows = (
      await api.as(olga).get(`/api/mica/audit/evaluations?evaluation_id=${ev.evaluation_id}`)
    ).json().items;
    assert.ok(rows.length > 0);
    for (const r of rows) assert.equal(r.evaluator_id, `key:${olga.keyId} (olga)`);
  });

  it('the audit filter by evaluation id returns that evaluation’s rows only, and none of another client', async () => {
    const a = (await evaluate(api.acme, 'acme', 'tx-a', { customer_verified: true, amount_eur: 1 })).json();
    await evaluate(api.acme, 'acme', 'tx-b', { customer_verified: true, amount_eur: 2 });
    const rows = (
      await api.as(api.acme).get(`/api/mica/audit/evaluations?evaluation_id=${a.evaluation_id}`)
    ).json().items;
    assert.equal(rows.length, a.rules_evaluated);
    assert.ok(rows.every((r: { evaluation_id: string }) => r.evaluation_id === a.evaluation_id));
    const foreign = (
      await api.as(api.globex).get(`/api/mica/audit/evaluations?evaluation_id=${a.evaluation_id}`)
    ).json();
    assert.deepEqual(foreign.items, []);
    const junk = await api.as(api.acme).get('/api/mica/audit/evaluations?evaluation_id=not-a-uuid');
    assert.equal(junk.statusCode, 200);
    assert.deepEqual(junk.json().items, []);
  });

  it('the evaluation record holds the request as received; unknown, malformed and foreign ids are 404', async () => {
    const data = { customer_id: 'c-5', customer_verified: true, amount_eur: 2500 };
    const ev = (await evaluate(api.acme, 'acme', 'tx-rec', data)).json();
    const rec = await api.as(api.acme).get(`/api/console/evaluations/${ev.evaluation_id}`);
    assert.equal(rec.statusCode, 200, rec.body);
    const body = rec.json();
    assert.equal(body.request.trigger_entity_id, 'tx-rec');
    assert.deepEqual(body.request.data, data);
    assert.deepEqual(body.response, ev);
    assert.match(body.evaluator_id, /^key:/);
    for (const [who, id] of [
      [api.globex, ev.evaluation_id],
      [api.acme, randomUUID()],
      [api.acme, 'nope'],
    ] as const) {
      const res = await api.as(who).get(`/api/console/evaluations/${id}`);
      assert.equal(res.statusCode, 404, `${id}`);
      assert.equal(res.json().error.code, 'NOT_FOUND');
    }
  });

  it('a case page in one answer: the case, its alerts byte for byte as the alert API serves them, their evaluations', async () => {
    // A vendor body with numbers no double holds: the page must carry them as delivered.
    const body = vendorBody('txmon-a', {
      data: { severity: 'high', customer_id: 'c-page', account_ref: '__BIG__' },
    });
    const text = JSON.stringify(body)
      .replace('"__BIG__"', '1234567890123456789')
      .replace('}}', ',"big":1e400}}');
    const res = await api.t.app.inject(signed('txmon-a', 'acme-txmon-secret', text));
    assert.equal(res.statusCode, 200, res.body);
    const { case_id: caseId, case_number: caseNumber, platform_alert_id: alertId } = res.json();
    // An evaluation's alert joins the case by escalation: its evaluation comes with the page.
    const ev = (
      await evaluate(api.acme, 'acme', 'tx-page', {
        customer_id: 'c-page',
        customer_verified: true,
        multiple_identities_detected: true,
      })
    ).json();
    const evAlert = (await api.as(api.acme).get('/api/alerts?limit=200'))
      .json()
      .items.find((a: { evaluation_id: string | null }) => a.evaluation_id === ev.evaluation_id);
    assert.ok(evAlert, 'the evaluation raised an alert');
    const joined = await api.as(olga).post(`/api/alerts/${evAlert.id}/transition`, {
      to: 'escalated',
      note: 'same customer',
      case_id: caseId,
    });
    assert.equal(joined.statusCode, 200, joined.body);

    for (const ref of [caseId, caseNumber]) {
      const page = await api.as(api.acme).get(`/api/console/cases/${ref}`);
      assert.equal(page.statusCode, 200, page.body);
      assert.equal(page.headers['content-type'], 'application/json; charset=utf-8');
      const p = page.json();
      assert.deepEqual(Object.keys(p), [
        'case',
        'alerts',
        'alerts_total',
        'alerts_not_shown',
        'evaluations',
        'rule_articles',
      ]);
      const c = (await api.as(api.acme).get(`/api/cases/${caseId}`)).json();
      assert.deepEqual(p.case, { ...c, severity: 'high' });
      assert.deepEqual(
        p.alerts.map((a: { id: string }) => a.id),
        [alertId, evAlert.id],
      );
      assert.deepEqual([p.alerts_total, p.alerts_not_shown], [2, 0]);
      // Each alert is the alert API's answer, byte for byte: the payload keeps every digit.
      for (const id of [alertId, evAlert.id]) {
        const one = await api.as(api.acme).get(`/api/alerts/${id}`);
        assert.ok(page.body.includes(one.body), `alert ${id} as served by /api/alerts/${id}`);
      }
      assert.ok(page.body.includes(`"payload":${text},"history":`), page.body);
      assert.match(page.body, /"account_ref":1234567890123456789,"big":1e400\}/);
      assert.deepEqual(p.evaluations, [ev]);
      const rules = (await api.as(api.acme).get('/api/mica/rules')).json().items;
      const triggered = ev.results.filter((r: { triggered: boolean }) => r.triggered);
      assert.ok(triggered.length > 0);
      for (const r of triggered)
        assert.equal(
          p.rule_articles[r.rule_id],
          rules.find((x: { id: string }) => x.id === r.rule_id).article,
        );
    }
  });

  it('a case page shows at most 100 alerts and counts the others; one client only, 404 alike', async () => {
    const { case_id: caseId, platform_alert_id: alertId } = await api
      .webhook('acme', 'medium')
      .then(async () => api.webhook('acme', 'high'));
    // 104 more alerts linked to the case, written straight to the store (no 104 deliveries needed).
    await sql`
      INSERT INTO alerts (id, client_id, status, resolution, severity, source, event, vendor_object_id,
                          customer_id, transaction_id, evaluation_id, case_id, rule_ids, due_at, created_at,
                          updated_at, payload, headers, history)
      SELECT gen_random_uuid(), client_id, status, resolution, severity, source, event, vendor_object_id || '-' || g,
             customer_id, transaction_id, evaluation_id, case_id, rule_ids, due_at, created_at + g * interval '1 ms',
             updated_at, payload, headers, history
        FROM alerts, generate_series(1, 104) g
       WHERE id = ${alertId}::uuid`.execute(api.t.deps.db);
    const page = await api.as(api.acme).get(`/api/console/cases/${caseId}`);
    assert.equal(page.statusCode, 200, page.body);
    const p = page.json();
    assert.equal(p.case.alert_ids.length, 105);
    assert.equal(p.alerts.length, 100);
    assert.deepEqual([p.alerts_total, p.alerts_not_shown], [105, 5]);
    assert.deepEqual(
      p.alerts.map((a: { id: string }) => a.id),
      p.case.alert_ids.slice(0, 100),
    );
    assert.equal(p.alerts[0].id, alertId);

    const hooli = await otherTenant();
    const theirs = await api.as(hooli).get(`/api/console/cases/${hooli.caseId}`);
    assert.equal(theirs.statusCode, 200);
    assert.equal(theirs.json().case.id, hooli.caseId);
    for (const [who, id] of [
      [hooli, caseId],
      [api.globex, caseId],
      [api.acme, hooli.caseId],
      [api.acme, randomUUID()],
      [api.acme, 'CASE-1999-000001'],
      [api.acme, 'nope'],
    ] as const) {
      const res = await api.as(who).get(`/api/console/cases/${id}`);
      assert.equal(res.statusCode, 404, `${id}: ${res.body}`);
      assert.equal(res.json().error.code, 'NOT_FOUND');
    }
    const anon = await api.t.app.inject({ method: 'GET', url: `/api/console/cases/${caseId}` });
    assert.equal(anon.statusCode, 401);
  });

  it('escalation targets: the case an alert is in and the open cases it may join; one client only', async () => {
    const lone = await api.newAlert();
    const open = await api.webhook('acme', 'high');
    const closed = await api.webhook('acme', 'high');
    await api
      .as(olga)
      .post(`/api/cases/${closed.case_id}/transition`, { to: 'closed', resolution: 'no_action', note: 'x' });
    const hooli = await otherTenant();
    const t = (await api.as(api.acme).get(`/api/console/alerts/${lone}/escalation`)).json();
    assert.equal(t.case, null);
    const ids = t.open_cases.map((c: { id: string }) => c.id);
    assert.ok(ids.includes(open.case_id));
    assert.ok(!ids.includes(closed.case_id), 'a closed case is not offered');
    assert.ok(!ids.includes(hooli.caseId), 'nor another client’s');
    assert.ok(t.open_cases.every((c: { status: string }) => c.status !== 'closed'));
    assert.equal(t.open_cases_not_shown, 0);
    const inCase = (
      await api.as(api.acme).get(`/api/console/alerts/${open.platform_alert_id}/escalation`)
    ).json();
    assert.deepEqual(inCase.case, {
      id: open.case_id,
      case_number: open.case_number,
      status: 'open',
      open: true,
    });
    const inClosed = (
      await api.as(api.acme).get(`/api/console/alerts/${closed.platform_alert_id}/escalation`)
    ).json();
    assert.equal(inClosed.case.open, false);
    for (const [who, id] of [
      [hooli, lone],
      [api.acme, hooli.alertId],
      [api.acme, 'nope'],
    ] as const) {
      const res = await api.as(who).get(`/api/console/alerts/${id}/escalation`);
      assert.equal(res.statusCode, 404, `${id}`);
    }
  });

  it('the cases queue gives each case its severity and shows one client only', async () => {
    const high = await api.webhook('acme', 'high');
    const critical = await api.webhook('acme', 'critical');
    const queue = (await api.as(api.acme).get('/api/console/cases?limit=200')).json();
    const sev = new Map(queue.items.map((c: { id: string; severity: string }) => [c.id, c.severity]));
    assert.equal(sev.get(high.case_id), 'high');
    assert.equal(sev.get(critical.case_id), 'critical');
    const globexCase = (await api.webhook('globex', 'high')).case_id;
    assert.ok(!sev.has(globexCase));
    const theirs = (await api.as(api.globex).get('/api/console/cases')).json();
    assert.deepEqual(
      theirs.items.map((c: { id: string }) => c.id),
      [globexCase],
    );
    const bad = await api.as(api.acme).get('/api/console/cases?status=nonsense');
    assert.equal(bad.statusCode, 400);
  });

  it('the cases queue filters by severity in the query: full pages, the shown severity, one client only', async () => {
    type QueueCase = { id: string; severity: string | null };
    type QueuePage = { items: QueueCase[]; next_cursor: string | null };
    const get = async (who: Who, url: string): Promise<QueuePage> => {
      const res = await api.as(who).get(url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res.json();
    };
    const walk = async (who: Who, query: string, limit: number) => {
      const pages: QueueCase[][] = [];
      let cursor: string | null = null;
      do {
        const page = await get(
          who,
          `/api/console/cases?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        pages.push(page.items);
        cursor = page.next_cursor;
      } while (cursor);
      return pages;
    };

    // Interleaved high and critical cases, so the critical ones are spread over the unfiltered order.
    const made: Record<string, string[]> = { high: [], critical: [] };
    for (const sev of ['critical', 'high', 'high', 'critical', 'high', 'critical', 'high', 'critical'])
      made[sev]!.push((await api.webhook('acme', sev)).case_id!);
    // A critical alert joining a high case raises the case to critical; a low one joining a
    // critical case leaves it critical; a low alert escalated alone opens a low case.
    const raised = (await api.webhook('acme', 'high')).case_id!;
    const critAlert = (await api.webhook('acme', 'critical')).platform_alert_id;
    const joined = await api.as(api.acme).post(`/api/alerts/${critAlert}/transition`, {
      to: 'escalated',
      case_id: raised,
      note: 'same customer',
    });
    assert.equal(joined.statusCode, 200, joined.body);
    const lowAlert = await api.newAlert();
    const lowJoined = await api
      .as(api.acme)
      .post(`/api/alerts/${lowAlert}/transition`, { to: 'escalated', case_id: made.critical![0], note: 'x' });
    assert.equal(lowJoined.statusCode, 200, lowJoined.body);
    const lowAlone = await api
      .as(api.acme)
      .post(`/api/alerts/${await api.newAlert()}/transition`, { to: 'escalated', note: 'on its own' });
    assert.equal(lowAlone.statusCode, 200, lowAlone.body);
    const lowCase = lowAlone.json().case_id as string;
    const globexCritical = (await api.webhook('globex', 'critical')).case_id!;
    // Closed at once, so that the other client's open counts (checked below) stay as they were.
    await api.t.deps.db
      .updateTable('cases')
      .set({ status: 'closed', resolution: 'no_action' })
      .where('id', '=', globexCritical)
      .execute();

    // The unfiltered queue, in its order, with each case's shown severity.
    const all = (await walk(api.acme, 'status=open', 200)).flat();
    const shown = new Map(all.map((c) => [c.id, c.severity]));
    assert.equal(shown.get(raised), 'critical');
    assert.equal(shown.get(made.critical![0]!), 'critical');
    assert.equal(shown.get(lowCase), 'low');
    assert.ok(!shown.has(globexCritical));

    for (const severity of ['critical', 'high', 'low'] as const) {
      const expected = all.filter((c) => c.severity === severity).map((c) => c.id);
      assert.ok(expected.length > 0, severity);
      const pages = await walk(api.acme, `status=open&severity=${severity}`, 2);
      // Every page but the last is full: nothing was dropped after the query.
      for (const page of pages.slice(0, -1)) assert.equal(page.length, 2, `${severity} page is full`);
      const got = pages.flat();
      assert.ok(got.every((c) => c.severity === severity));
      assert.deepEqual(
        got.map((c) => c.id),
        expected,
        `${severity}: the same cases, in the same order, as the unfiltered queue shows`,
      );
      assert.ok(!got.some((c) => c.id === globexCritical));
    }
    const critical = (await walk(api.acme, 'status=open&severity=critical', 2)).flat().map((c) => c.id);
    assert.ok(critical.includes(raised));
    assert.ok(made.critical!.every((id) => critical.includes(id)));
    assert.ok(!critical.includes(lowCase) && made.high!.every((id) => !critical.includes(id)));
    // Combined with the other filters; and none of this client's at another client.
    assert.deepEqual((await get(api.acme, '/api/console/cases?severity=medium')).items, []);
    assert.deepEqual((await get(api.acme, '/api/console/cases?severity=critical&status=closed')).items, []);
    const theirs = (await get(api.globex, '/api/console/cases?severity=critical&limit=200')).items;
    assert.deepEqual(
      theirs.map((c) => c.id),
      [globexCritical],
    );

    for (const bad of ['nonsense', 'CRITICAL', '']) {
      const res = await api.as(api.acme).get(`/api/console/cases?severity=${bad}`);
      assert.equal(res.statusCode, 400, `severity=${bad}`);
      const body = res.json();
      assert.equal(body.error.code, 'INVALID_REQUEST');
      assert.match(JSON.stringify(body.error.details), /severity/);
    }
    // The plain cases API has no severity filter: it refuses the parameter rather than answer
    // every case as if filtered.
    const plain = await api.as(api.acme).get('/api/cases?severity=critical&limit=200');
    assert.equal(plain.statusCode, 400, plain.body);
    assert.equal(plain.json().error.details.field, 'severity');
    assert.ok(lowCase);
  });

  it('rule stats count evaluations and triggers per rule for today, for the caller only', async () => {
    type Stats = { days: string[]; rules: { rule_id: string; evaluations: number[]; triggers: number[] }[] };
    const stats = async () => (await api.as(api.acme).get('/api/mica/rules/stats')).json() as Stats;
    const cdd2 = (s: Stats) => s.rules.find((r) => r.rule_id === 'MICA-CDD-002')!;
    // Measured again if midnight UTC fell between the two readings (a new day, a new last bucket).
    for (let attempt = 1; ; attempt++) {
      const dayBefore = new Date().toISOString().slice(0, 10);
      const before = await stats();
      const dayAfter = new Date().toISOString().slice(0, 10);
      assert.equal(before.days.length, 30);
      assert.ok([dayBefore, dayAfter].includes(before.days.at(-1)!), before.days.at(-1));
      await evaluate(api.acme, 'acme', `tx-s1-${attempt}`, {
        customer_id: `c-s-${attempt}`,
        customer_verified: true,
        amount_eur: 3000,
      });
      await evaluate(api.acme, 'acme', `tx-s2-${attempt}`, {
        customer_verified: true,
        full_cdd_complete: true,
        amount_eur: 3000,
      });
      const now = await stats();
      if (now.days.at(-1) !== before.days.at(-1) && attempt < 3) continue;
      assert.equal(cdd2(now).evaluations.at(-1)! - cdd2(before).evaluations.at(-1)!, 2);
      assert.equal(cdd2(now).triggers.at(-1)! - cdd2(before).triggers.at(-1)!, 1);
      break;
    }
    const globex = (await api.as(api.globex).get('/api/mica/rules/stats?days=7')).json();
    assert.equal(globex.days.length, 7);
    assert.equal(
      globex.rules.reduce((s: number, r: { total_evaluations: number }) => s + r.total_evaluations, 0),
      0,
    );
    assert.equal((await api.as(api.acme).get('/api/mica/rules/stats?days=91')).statusCode, 400);
  });

  it('transitions: every move of cases and alerts, paged and exported; case filter; foreign case 404', async () => {
    const {
      case_id: caseId,
      case_number: caseNumber,
      platform_alert_id: alertId,
    } = await api.webhook('acme', 'high');
    await api
      .as(olga)
      .post(`/api/cases/${caseId}/transition`, { to: 'investigating', note: 'a, "quoted" note' });
    await api
      .as(olga)
      .post(`/api/cases/${caseId}/transition`, { to: 'closed', resolution: 'no_action', note: 'done' });
    await api.as(olga).post(`/api/alerts/${alertId}/transition`, { to: 'acknowledged', note: 'seen' });

    const mine = (await api.as(api.acme).get(`/api/mica/audit/transitions?case_id=${caseNumber}`)).json()
      .items;
    const moves = mine.map((r: { kind: string; to: string }) => `${r.kind}:${r.to}`);
    // The case and its alert are created together: their first entries may share a timestamp.
    assert.deepEqual(moves.slice(0, 2).sort(), ['alert:open', 'case:open']);
    assert.deepEqual(moves.slice(2), ['case:investigating', 'case:closed', 'alert:acknowledged']);
    const closing = mine.find((r: { to: string }) => r.to === 'closed');
    assert.equal(closing.resolution, 'no_action');
    assert.deepEqual([closing.actor, closing.actor_name], [olga.keyId, 'olga']);
    assert.equal(closing.case_number, caseNumber);
    assert.equal(mine.find((r: { kind: string }) => r.kind === 'alert').case_number, caseNumber);
    const alertsOnly = (
      await api.as(api.acme).get(`/api/mica/audit/transitions?case_id=${caseId}&kind=alert`)
    ).json();
    assert.ok(alertsOnly.items.every((r: { kind: string }) => r.kind === 'alert'));

    // Pages of one walk the whole trail once, in time order.
    const all = (await api.as(api.acme).get('/api/mica/audit/transitions?limit=1000')).json().items;
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Array<{ item_id: string; at: string; to: string }>; next_cursor: string | null } =
        (
          await api
            .as(api.acme)
            .get(`/api/mica/audit/transitions?limit=3${cursor ? `&cursor=${cursor}` : ''}`)
        ).json();
      walked.push(...page.items.map((r) => `${r.item_id}/${r.at}/${r.to}`));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(
      walked,
      all.map((r: { item_id: string; at: string; to: string }) => `${r.item_id}/${r.at}/${r.to}`),
    );
    const times = all.map((r: { at: string }) => r.at);
    assert.deepEqual(times, [...times].sort());

    const csv = await api.as(api.acme).get(`/api/mica/audit/transitions?case_id=${caseId}&format=csv`);
    assert.match(csv.headers['content-type'] as string, /^text\/csv/);
    const lines = csv.body.trim().split('\r\n');
    assert.equal(lines[0], 'at,kind,item_id,case_id,case_number,actor,actor_name,from,to,note,resolution');
    assert.equal(lines.length, 1 + mine.length);
    assert.ok(lines.some((l) => l.endsWith(',investigating,"a, ""quoted"" note",')));
    const json = await api.as(api.acme).get(`/api/mica/audit/transitions?case_id=${caseId}&format=json`);
    assert.equal(JSON.parse(json.body).length, mine.length);

    const foreign = await api.as(api.globex).get(`/api/mica/audit/transitions?case_id=${caseId}`);
    assert.equal(foreign.statusCode, 404);
    const foreignNumber = await api.as(api.globex).get(`/api/mica/audit/transitions?case_id=${caseNumber}`);
    assert.equal(foreignNumber.statusCode, 404);
    const globexAll = (await api.as(api.globex).get('/api/mica/audit/transitions?limit=1000')).json().items;
    assert.ok(globexAll.every((r: { item_id: string }) => r.item_id !== caseId && r.item_id !== alertId));
    assert.equal((await api.as(api.acme).get('/api/mica/audit/transitions?cursor=bogus')).statusCode, 400);
    assert.equal((await api.as(api.acme).get('/api/mica/audit/transitions?from=yesterday')).statusCode, 400);
  });

  it('counts: open, overdue and due today (up to midnight in the client time zone); per client', async () => {
    // A fixed clock and due dates set around it, so the day boundary is certain.
    const at = new Date('2030-01-15T12:00:00Z');
    const db = api.t.deps.db;
    await api.t.deps.clients.create('initech', { actor: 'test' });
    const svc = (clientId: string, timeZone: string) => {
      const s = createConsoleService({
        repo: createConsoleRepo(db),
        clients: createClientsRepo(db),
        clientContext: async (id) => {
          const ctx = await api.t.deps.clientContext(id);
          return ctx && { ...ctx, settings: { ...ctx.settings, time_zone: timeZone } };
        },
        alertsCases: api.t.deps.alertsCases,
        now: () => at,
      });
      return s.counts({ keyId: 'k', clientId, role: 'standard', environment: 'live', officer: null });
    };
    const empty = await svc('initech', 'UTC');
    assert.deepEqual(empty.cases, { open: 0, overdue: 0, due_today: 0 });

    await api.t.deps.commands(
      'webhooks.add',
      { kind: 'txmon-a', client_id: 'initech', secret: 'initech-secret' },
      't',
    );
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api.t.app.inject(
        signed('txmon-a', 'initech-secret', vendorBody('txmon-a', { data: { severity: 'high' } })),
      );
      ids.push(res.json().case_id);
    }
    const due = [
      '2030-01-15T11:00:00Z',
      '2030-01-15T20:00:00Z',
      '2030-01-16T07:00:00Z',
      '2030-01-14T00:00:00Z',
    ];
    for (const [i, id] of ids.entries())
      await db
        .updateTable('cases')
        .set({ due_at: new Date(due[i]!) })
        .where('id', '=', id)
        .execute();
    // The fourth is overdue but closed: neither open nor overdue.
    await db
      .updateTable('cases')
      .set({ status: 'closed', resolution: 'no_action' })
      .where('id', '=', ids[3]!)
      .execute();

    const utc = await svc('initech', 'UTC');
    assert.deepEqual(utc.cases, { open: 3, overdue: 1, due_today: 1 });
    assert.equal(utc.as_of, at.toISOString());
    // In Tokyo it is 21:00 on the 15th: the day ends at 15:00 UTC, so 20:00 UTC is tomorrow.
    assert.deepEqual((await svc('initech', 'Asia/Tokyo')).cases, { open: 3, overdue: 1, due_today: 0 });
    // In Los Angeles it is 04:00: the day ends at 08:00 UTC on the 16th, so 07:00 UTC on the 16th is today.
    assert.deepEqual((await svc('initech', 'America/Los_Angeles')).cases, {
      open: 3,
      overdue: 1,
      due_today: 2,
    });
    assert.equal(utc.alerts.open, 4);

    // Through HTTP, another client's items never count.
    const globex = (await api.as(api.globex).get('/api/console/counts')).json();
    const acme = (await api.as(api.acme).get('/api/console/counts')).json();
    assert.ok(acme.cases.open > 0);
    assert.equal(globex.cases.open, 1);
  });

  it('the end of a local day follows the time zone, DST included', () => {
    assert.equal(
      endOfLocalDay(new Date('2030-01-15T12:00:00Z'), 'UTC').toISOString(),
      '2030-01-16T00:00:00.000Z',
    );
    assert.equal(
      endOfLocalDay(new Date('2030-01-15T12:00:00Z'), 'Asia/Tokyo').toISOString(),
      '2030-01-15T15:00:00.000Z',
    );
    // 2030-03-31 is the EU switch to summer time: that day in Berlin ends at 22:00 UTC.
    assert.equal(
      endOfLocalDay(new Date('2030-03-31T10:00:00Z'), 'Europe/Berlin').toISOString(),
      '2030-03-31T22:00:00.000Z',
    );
  });
});
