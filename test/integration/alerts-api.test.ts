import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { allowedTransitions, statusesOf } from '../../src/domain/cases/state-machines.ts';
import { ALERT_KEYS, type CasesApi, startCasesApi } from '../helpers/cases-api.ts';
import { signed, vendorBody } from '../helpers/webhooks.ts';

describe('alerts API (and the 404s of every alert and case route)', () => {
  let t: CasesApi['t'];
  let acme: CasesApi['acme'];
  let globex: CasesApi['globex'];
  let as: CasesApi['as'];
  let webhook: CasesApi['webhook'];
  let newAlert: CasesApi['newAlert'];
  let newCase: CasesApi['newCase'];
  before(async () => {
    ({ t, acme, globex, as, webhook, newAlert, newCase } = await startCasesApi());
  });
  after(() => t.close());
  const CLOSE = { alert: 'false_positive' } as const;

  it('lists alerts with the contract shape, soonest due first, filtered and paginated; tenant-scoped', async () => {
    for (const s of ['low', 'medium', 'high', 'critical', 'low']) await webhook('acme', s);
    const foreign = await webhook('globex', 'high');
    const all = (await as(acme).get('/api/alerts?limit=200')).json();
    assert.ok(all.items.length >= 5);
    assert.deepEqual(Object.keys(all.items[0]), ALERT_KEYS);
    assert.equal(all.next_cursor, null);
    const dues = all.items.map((a: { due_at: string }) => a.due_at);
    assert.deepEqual(dues, [...dues].sort());
    assert.ok(!all.items.some((a: { id: string }) => a.id === foreign.platform_alert_id));

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { id: string }[]; next_cursor: string | null } = (
        await as(acme).get(`/api/alerts?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      ).json();
      assert.ok(page.items.length <= 2);
      seen.push(...page.items.map((a: { id: string }) => a.id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(
      seen,
      all.items.map((a: { id: string }) => a.id),
    );

    const high = (await as(acme).get('/api/alerts?severity=high')).json();
    assert.ok(high.items.length >= 1 && high.items.every((a: { severity: string }) => a.severity === 'high'));
    const open = (await as(acme).get('/api/alerts?status=open')).json();
    assert.equal(open.items.length, all.items.length);
    assert.equal((await as(acme).get('/api/alerts?status=bogus')).statusCode, 400);
    const badCursor = await as(acme).get('/api/alerts?cursor=bm90LWEtY3Vyc29y');
    assert.equal(badCursor.statusCode, 400);
    assert.equal(badCursor.json().error.details.field, 'cursor');
    assert.equal((await as(acme).get('/api/alerts')).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/alerts' })).statusCode, 401);
  });

  it('unknown and foreign ids are both 404 NOT_FOUND, for every alert and case route', async () => {
    const foreign = await webhook('globex', 'critical');
    const missing = '00000000-0000-4000-8000-000000000000';
    const urls = [
      ['GET', `/api/alerts/${foreign.platform_alert_id}`],
      ['GET', `/api/alerts/${missing}`],
      ['GET', '/api/alerts/not-a-uuid'],
      ['POST', `/api/alerts/${foreign.platform_alert_id}/transition`],
      ['GET', `/api/cases/${foreign.case_id}`],
      // Case numbers are per client: the caller's own CASE-…-000002 is not globex's; a number it lacks is 404.
      ['GET', `/api/cases/CASE-${new Date().getUTCFullYear()}-999999`],
      ['GET', `/api/cases/${missing}`],
      ['GET', '/api/cases/CASE-1999-000001'],
      ['POST', `/api/cases/${foreign.case_id}/transition`],
      ['POST', `/api/cases/${foreign.case_id}/assign`],
    ] as const;
    for (const [method, url] of urls) {
      const payload = url.endsWith('/assign')
        ? { officer: 'olga' }
        : { to: 'closed', resolution: 'no_action' };
      const res = await t.app.inject({
        method,
        url,
        headers: acme.auth,
        ...(method === 'POST' ? { payload } : {}),
      });
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
      assert.equal(res.json().error.code, 'NOT_FOUND');
    }
    // The owner sees them.
    assert.equal((await as(globex).get(`/api/cases/${foreign.case_number}`)).statusCode, 200);
  });

  it('every alert edge: allowed ones move, illegal ones are 409 INVALID_TRANSITION with the allowed list', async () => {
    const reach: Record<string, (id: string) => Promise<void>> = {
      open: async () => {},
      acknowledged: async (id) =>
        void (await as(acme).post(`/api/alerts/${id}/transition`, { to: 'acknowledged' })),
      escalated: async (id) =>
        void (await as(acme).post(`/api/alerts/${id}/transition`, { to: 'escalated' })),
      closed: async (id) =>
        void (await as(acme).post(`/api/alerts/${id}/transition`, {
          to: 'closed',
          resolution: 'true_positive',
        })),
    };
    for (const from of statusesOf('alert')) {
      for (const to of statusesOf('alert')) {
        const id = await newAlert();
        await reach[from]!(id);
        const body = to === 'closed' ? { to, resolution: CLOSE.alert } : { to };
        const res = await as(acme).post(`/api/alerts/${id}/transition`, body);
        const allowed = allowedTransitions('alert', from);
        if (allowed.includes(to as never)) {
          assert.equal(res.statusCode, 200, `${from} → ${to}: ${res.body}`);
          assert.equal(res.json().status, to);
        } else {
          assert.equal(res.statusCode, 409, `${from} → ${to}`);
          assert.equal(res.json().error.code, 'INVALID_TRANSITION');
          assert.deepEqual(res.json().error.details.allowed, allowed);
        }
      }
    }
  });

  it('closing needs a resolution (400 INVALID_REQUEST); history records actor, time, from, to, note', async () => {
    const id = await newAlert();
    const missing = await as(acme).post(`/api/alerts/${id}/transition`, { to: 'closed' });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error.code, 'INVALID_REQUEST');
    assert.equal(missing.json().error.details.field, 'resolution');
    const wrong = await as(acme).post(`/api/alerts/${id}/transition`, {
      to: 'closed',
      resolution: 'str_filed',
    });
    assert.equal(wrong.statusCode, 400);
    const extra = await as(acme).post(`/api/alerts/${id}/transition`, {
      to: 'acknowledged',
      resolution: 'true_positive',
    });
    assert.equal(extra.statusCode, 400);
    const ok = await as(acme, { 'x-actor': 'Olga O.' }).post(`/api/alerts/${id}/transition`, {
      to: 'closed',
      resolution: 'true_positive',
      note: 'confirmed with the customer',
    });
    assert.equal(ok.statusCode, 200, ok.body);
    const a = ok.json();
    assert.equal(a.resolution, 'true_positive');
    const last = a.history[a.history.length - 1];
    // CONTRACT §9: the actor is the key's id, the X-Actor header recorded beside it.
    assert.equal(last.actor, acme.keyId);
    assert.equal(last.actor_name, 'Olga O.');
    assert.equal(last.from, 'open');
    assert.equal(last.to, 'closed');
    assert.equal(last.note, 'confirmed with the customer');
    assert.ok(Math.abs(Date.parse(last.at) - Date.now()) < 60_000);
  });

  it('an X-Actor name sent as UTF-8 is recorded as written', async () => {
    const id = await newAlert();
    // On the wire a header is bytes; Node hands each byte over as one Latin-1 character.
    const wire = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    const res = await as(acme, { 'x-actor': wire('Zoë Müller-Łukasiewicz 🛡') }).post(
      `/api/alerts/${id}/transition`,
      { to: 'acknowledged' },
    );
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().history.at(-1).actor_name, 'Zoë Müller-Łukasiewicz 🛡');
    // Bytes that are not UTF-8 are kept as Latin-1 (as Node read them).
    const latin = await as(acme, { 'x-actor': 'Ren\u00e9' }).post(
      `/api/alerts/${await newAlert()}/transition`,
      {
        to: 'acknowledged',
      },
    );
    assert.equal(latin.json().history.at(-1).actor_name, 'René');
    // At most 128 characters (code points: 128 emoji pass); a longer name is refused, not cut, and
    // the alert is left as it was.
    const alert = await newAlert();
    const long = await as(acme, { 'x-actor': 'a'.repeat(129) }).post(`/api/alerts/${alert}/transition`, {
      to: 'acknowledged',
    });
    assert.equal(long.statusCode, 400, long.body);
    assert.deepEqual(long.json().error.details.errors, ['X-Actor: Must be at most 128 characters']);
    assert.equal((await as(acme).get(`/api/alerts/${alert}`)).json().status, 'open');
    // A bidi override would reverse how the name reads in histories and exports: refused.
    const rlo = await as(acme, { 'x-actor': wire('caf\u00e9 \u202e evil') }).post(
      `/api/alerts/${alert}/transition`,
      {
        to: 'acknowledged',
      },
    );
    assert.equal(rlo.statusCode, 400, rlo.body);
    assert.match(
      rlo.json().error.details.errors[0],
      /^X-Actor: Must not contain bidirectional control characters/,
    );
    const emoji = await as(acme, { 'x-actor': wire('🛡'.repeat(128)) }).post(
      `/api/alerts/${alert}/transition`,
      {
        to: 'acknowledged',
      },
    );
    assert.equal(emoji.statusCode, 200, emoji.body);
    assert.equal(emoji.json().history.at(-1).actor_name, '🛡'.repeat(128));
  });

  it('escalation opens a case, or joins the case given; a foreign case is 404', async () => {
    const id = await newAlert();
    const res = await as(acme).post(`/api/alerts/${id}/transition`, {
      to: 'escalated',
      note: 'needs a look',
    });
    assert.equal(res.statusCode, 200, res.body);
    const caseId = res.json().case_id;
    const c = (await as(acme).get(`/api/cases/${caseId}`)).json();
    assert.deepEqual(c.alert_ids, [id]);
    assert.match(c.reason, /needs a look/);

    const second = await newAlert();
    const joined = await as(acme).post(`/api/alerts/${second}/transition`, {
      to: 'escalated',
      case_id: caseId,
    });
    assert.equal(joined.json().case_id, caseId);
    assert.deepEqual((await as(acme).get(`/api/cases/${caseId}`)).json().alert_ids, [id, second]);

    const foreign = await webhook('globex', 'critical');
    const third = await newAlert();
    const refused = await as(acme).post(`/api/alerts/${third}/transition`, {
      to: 'escalated',
      case_id: foreign.case_id,
    });
    assert.equal(refused.statusCode, 404);
    assert.equal((await as(acme).get(`/api/alerts/${third}`)).json().status, 'open', 'rolled back');
    const notEscalating = await as(acme).post(`/api/alerts/${third}/transition`, {
      to: 'acknowledged',
      case_id: caseId,
    });
    assert.equal(notEscalating.statusCode, 400);
  });

  it('an alert escalated into another case joins it; the case it left still lists it; crossing moves do not deadlock', async () => {
    const { platform_alert_id: id, case_id: ownCase } = await webhook('acme', 'high');
    const other = await webhook('acme', 'critical');
    const moved = await as(acme).post(`/api/alerts/${id}/transition`, {
      to: 'escalated',
      case_id: other.case_id,
    });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().case_id, other.case_id, 'CONTRACT §5: joins the one given');
    assert.deepEqual(
      (await as(acme).get(`/api/cases/${ownCase}`)).json().alert_ids,
      [id],
      'still its evidence',
    );
    // Its history stays in the case's transitions, and its severity in the case's (console queue).
    const moves = (await as(acme).get(`/api/mica/audit/transitions?case_id=${ownCase}&kind=alert`)).json()
      .items;
    assert.deepEqual(
      moves.map((m: { item_id: string; to: string }) => [m.item_id, m.to]),
      [
        [id, 'open'],
        [id, 'escalated'],
      ],
    );
    const queue = (await as(acme).get('/api/console/cases?limit=200')).json().items;
    assert.equal(queue.find((c: { id: string }) => c.id === ownCase).severity, 'high');
    // In the order they were raised.
    assert.deepEqual((await as(acme).get(`/api/cases/${other.case_id}`)).json().alert_ids, [
      id,
      other.platform_alert_id,
    ]);
    // Alerts escalated into each other's cases at once (PostgreSQL: sessions locking both cases).
    const pairs = await Promise.all(
      Array.from(
        { length: 8 },
        async () => [await webhook('acme', 'high'), await webhook('acme', 'high')] as const,
      ),
    );
    const answers = await Promise.all(
      pairs.flatMap(([x, y]) => [
        as(acme).post(`/api/alerts/${x.platform_alert_id}/transition`, {
          to: 'escalated',
          case_id: y.case_id,
        }),
        as(acme).post(`/api/alerts/${y.platform_alert_id}/transition`, {
          to: 'escalated',
          case_id: x.case_id,
        }),
      ]),
    );
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      answers.map(() => 200),
    );
    for (const [x, y] of pairs)
      assert.deepEqual(
        (await as(acme).get(`/api/cases/${x.case_id}`)).json().alert_ids.sort(),
        [x.platform_alert_id, y.platform_alert_id].sort(),
      );

    // An evaluation's alert (MICA-CDD-005, no case) joining an evaluation's case (MICA-CDD-002).
    const evaluate = (id: string, data: Record<string, unknown>) =>
      as(acme)
        .post('/api/mica/evaluate', {
          client_id: 'acme',
          trigger_type: 'transaction',
          trigger_entity_id: id,
          data: { customer_id: `c-${id}`, customer_verified: true, ...data },
        })
        .then((r) => r.json());
    const withCase = await evaluate('join-1', { amount_eur: 5000 });
    const withAlert = await evaluate('join-2', { amount_eur: 10, multiple_identities_detected: true });
    const caseRow = (await as(acme).get(`/api/cases?limit=200`))
      .json()
      .items.find((c: { evaluation_id: string }) => c.evaluation_id === withCase.evaluation_id);
    const alertRow = (await as(acme).get(`/api/alerts?limit=200`))
      .json()
      .items.find((a: { evaluation_id: string }) => a.evaluation_id === withAlert.evaluation_id);
    assert.deepEqual(caseRow.rule_ids, ['MICA-CDD-002']);
    await new Promise((r) => setTimeout(r, 5));
    const joined = await as(acme).post(`/api/alerts/${alertRow.id}/transition`, {
      to: 'escalated',
      case_id: caseRow.id,
    });
    assert.equal(joined.statusCode, 200, joined.body);
    const after = (await as(acme).get(`/api/cases/${caseRow.id}`)).json();
    assert.deepEqual(after.rule_ids, ['MICA-CDD-002', 'MICA-CDD-005']);
    assert.deepEqual(after.alert_ids, [alertRow.id]);
    assert.ok(Date.parse(after.updated_at) > Date.parse(caseRow.updated_at), 'updated when an alert joins');
  });

  it('escalating an alert whose case is closed opens a new case for it', async () => {
    const { platform_alert_id: id, case_id: oldCase } = await webhook('acme', 'high');
    for (const to of ['investigating', 'closed'])
      assert.equal(
        (
          await as(acme).post(`/api/cases/${oldCase}/transition`, {
            to,
            resolution: to === 'closed' ? 'no_action' : undefined,
          })
        ).statusCode,
        200,
      );
    const res = await as(acme).post(`/api/alerts/${id}/transition`, { to: 'escalated', note: 'again' });
    assert.equal(res.statusCode, 200, res.body);
    const newCase = res.json().case_id;
    assert.ok(newCase && newCase !== oldCase, 'a new case');
    const c = (await as(acme).get(`/api/cases/${newCase}`)).json();
    assert.equal(c.status, 'open');
    assert.deepEqual(c.alert_ids, [id]);
    assert.deepEqual(
      (await as(acme).get(`/api/cases/${oldCase}`)).json().alert_ids,
      [id],
      'the closed case keeps it',
    );
  });

  it('an illegal move names the item with its article', async () => {
    const id = await newAlert();
    await as(acme).post(`/api/alerts/${id}/transition`, { to: 'closed', resolution: 'false_positive' });
    const res = await as(acme).post(`/api/alerts/${id}/transition`, { to: 'acknowledged' });
    assert.equal(res.statusCode, 409, res.body);
    assert.match(res.json().error.message, /^An alert cannot move from /);
  });

  it('the transitions trail names the case an alert was in at each entry, not its case now (also for entries written before they named it)', async () => {
    type Row = { item_id: string; to: string; case_id: string | null; case_number: string | null };
    const numberOf = async (caseId: string) =>
      (await as(acme).get(`/api/cases/${caseId}`)).json().case_number;
    const trail = async (caseId: string, alertId: string) => {
      const res = await as(acme).get(`/api/mica/audit/transitions?case_id=${caseId}&kind=alert&limit=200`);
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().items as Row[])
        .filter((r) => r.item_id === alertId)
        .map((r) => [r.to, r.case_id, r.case_number]);
    };
    // Created with its own case (a webhook), then escalated into another one by case_id.
    const first = await webhook('acme', 'high');
    const target = await webhook('acme', 'critical');
    const [own, into] = [first.case_id!, target.case_id!];
    const [ownNumber, intoNumber] = [await numberOf(own), await numberOf(into)];
    assert.equal(
      (
        await as(acme).post(`/api/alerts/${first.platform_alert_id}/transition`, {
          to: 'escalated',
          case_id: into,
        })
      ).statusCode,
      200,
    );
    const moved = [
      ['open', own, ownNumber],
      ['escalated', into, intoNumber],
    ];
    // In the export of the case it left and of the case it joined alike.
    assert.deepEqual(await trail(own, first.platform_alert_id), moved);
    assert.deepEqual(await trail(into, first.platform_alert_id), moved);
    // Created without a case, acknowledged, then escalated: a case is opened then.
    const loose = await newAlert();
    await as(acme).post(`/api/alerts/${loose}/transition`, { to: 'acknowledged' });
    const opened = (await as(acme).post(`/api/alerts/${loose}/transition`, { to: 'escalated' })).json()
      .case_id;
    const looseRows = [
      ['open', null, null],
      ['acknowledged', null, null],
      ['escalated', opened, await numberOf(opened)],
    ];
    assert.deepEqual(await trail(opened, loose), looseRows);
    // Created without a case, escalated into an existing one by case_id.
    const joiner = await newAlert();
    await as(acme).post(`/api/alerts/${joiner}/transition`, { to: 'escalated', case_id: into });
    const joinerRows = [
      ['open', null, null],
      ['escalated', into, intoNumber],
    ];
    assert.deepEqual(await trail(into, joiner), joinerRows);
    // Created low without a case; the vendor's update to critical opens one.
    const body = vendorBody('txmon-a', { data: { severity: 'low' } });
    const created = (await t.app.inject(signed('txmon-a', 'acme-txmon-secret', body))).json();
    const update = vendorBody('txmon-a', {
      event: 'alert.updated',
      objectId: body.data.alert_id,
      data: { severity: 'critical' },
    });
    const updatedCase = (await t.app.inject(signed('txmon-a', 'acme-txmon-secret', update))).json().case_id;
    const updatedRows = [
      ['open', null, null],
      ['open', updatedCase, await numberOf(updatedCase)],
    ];
    assert.deepEqual(await trail(updatedCase, created.platform_alert_id), updatedRows);

    // Entries stored before they named their case: the same, derived from the recorded moves.
    const ids = [first.platform_alert_id, loose, joiner, created.platform_alert_id];
    await sql`UPDATE alerts SET history = (SELECT jsonb_agg(e.value - 'case_id' ORDER BY e.ord)
                FROM jsonb_array_elements(history) WITH ORDINALITY AS e(value, ord))
               WHERE id IN (${sql.join(ids)})`.execute(t.deps.db);
    const left = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM alerts, jsonb_array_elements(history) e
      WHERE id IN (${sql.join(ids)}) AND e ? 'case_id'`.execute(t.deps.db);
    assert.equal(Number(left.rows[0]!.n), 0);
    assert.deepEqual(await trail(own, first.platform_alert_id), moved);
    assert.deepEqual(await trail(into, first.platform_alert_id), moved);
    assert.deepEqual(await trail(opened, loose), looseRows);
    assert.deepEqual(await trail(into, joiner), joinerRows);
    assert.deepEqual(await trail(updatedCase, created.platform_alert_id), updatedRows);
  });

  it('concurrent transitions of one alert: exactly one applies', async () => {
    const id = await newAlert();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => as(acme).post(`/api/alerts/${id}/transition`, { to: 'acknowledged' })),
    );
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, ...Array(7).fill(409)]);
    assert.equal((await as(acme).get(`/api/alerts/${id}`)).json().history.length, 2);
  });

  it('overdue: flagged in listings and filterable; final items are never overdue', async () => {
    const late = await newAlert();
    const closedLate = await newAlert();
    await as(acme).post(`/api/alerts/${closedLate}/transition`, {
      to: 'closed',
      resolution: 'false_positive',
    });
    await sql`UPDATE alerts SET due_at = now() - interval '1 hour' WHERE id IN (${late}, ${closedLate})`.execute(
      t.deps.db,
    );
    const lateCase = await newCase();
    await sql`UPDATE cases SET due_at = now() - interval '1 day' WHERE id = ${lateCase}`.execute(t.deps.db);

    const overdue = (await as(acme).get('/api/alerts?overdue=true&limit=200')).json();
    assert.deepEqual(
      overdue.items.map((a: { id: string }) => a.id),
      [late],
    );
    assert.equal(overdue.items[0].overdue, true);
    const notOverdue = (await as(acme).get('/api/alerts?overdue=false&limit=200')).json();
    const closed = notOverdue.items.find((a: { id: string }) => a.id === closedLate);
    assert.equal(closed.overdue, false);
    assert.equal((await as(acme).get(`/api/alerts/${late}`)).json().overdue, true);
    const cases = (await as(acme).get('/api/cases?overdue=true')).json();
    assert.deepEqual(
      cases.items.map((c: { id: string }) => c.id),
      [lateCase],
    );
  });
});
