import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { StrSweepResult } from '../../src/jobs/str-sweep.ts';
import { up as repairStrSweep } from '../../src/storage/migrations/020-str-sweep-repair.ts';
import { up as clearEscalatedStr } from '../../src/storage/migrations/026-escalated-cases-not-str.ts';
import { createStrSweepRepo, STR_CLAIM_LEASE_MS } from '../../src/storage/str-sweep.repo.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

describe('STR sweep', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  before(async () => {
    t = await startTestApp();
    ({ auth } = await clientWithKey(t, 'acme'));
  });
  after(() => t.close());

  /** Opens a case through an evaluation; `str` makes it an STR case (MICA-RPT-001). */
  async function openCase(str: boolean, daysAgo: number): Promise<{ id: string; case_number: string }> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: auth,
      payload: {
        client_id: 'acme',
        trigger_type: 'transaction',
        data: str
          ? { customer_id: 'cust-str', customer_verified: true, suspicious_activity_detected: true }
          : { customer_id: 'cust-big', customer_verified: true, full_cdd_complete: true, amount_eur: 50_000 },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const c = await t.deps.db
      .selectFrom('cases')
      .select(['id', 'case_number', 'is_str'])
      .where('evaluation_id', '=', res.json().evaluation_id)
      .executeTakeFirstOrThrow();
    assert.equal(c.is_str, str);
    await sql`UPDATE cases SET created_at = now() - make_interval(days => ${daysAgo}) WHERE id = ${c.id}`.execute(
      t.deps.db,
    );
    return c;
  }
  const close = (id: string, resolution: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/cases/${id}/transition`,
      headers: auth,
      payload: { to: 'closed', resolution },
    });
  const sweep = () => t.deps.jobs.run('str-sweep') as Promise<StrSweepResult>;
  /** Moves a case's closing (its history entry into `closed`) to `days` days ago. */
  const filedDaysAgo = (id: string, days: number) =>
    sql`UPDATE cases SET history = (
          SELECT jsonb_agg(CASE WHEN h->>'to' = 'closed' AND h->>'from' <> 'closed'
                   THEN jsonb_set(h, '{at}', to_jsonb(to_char((now() - make_interval(days => ${days})) AT TIME ZONE 'UTC',
                                                            'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
                   ELSE h END ORDER BY o)
            FROM jsonb_array_elements(history) WITH ORDINALITY AS x(h, o))
        WHERE id = ${id}`.execute(t.deps.db);
  /** Each case's `str_sweep_done`, by id. */
  const sweptFlags = async (ids: string[]) =>
    Object.fromEntries(
      (
        await t.deps.db.selectFrom('cases').select(['id', 'str_sweep_done']).where('id', 'in', ids).execute()
      ).map((c) => [c.id, c.str_sweep_done]),
    );

  it('evaluates MICA-RPT-002 once per overdue STR case, audited, with the alert its flags call for', async () => {
    const overdue = await openCase(true, 10);
    const closedUnfiled = await openCase(true, 10);
    assert.equal((await close(closedUnfiled.id, 'no_action')).statusCode, 200);
    const filed = await openCase(true, 10);
    assert.equal((await close(filed.id, 'str_filed')).statusCode, 200);
    await filedDaysAgo(filed.id, 9); // the day after it was opened: in time
    // Filed, but only after the deadline had passed (and before any sweep saw it): still missed.
    const filedLate = await openCase(true, 10);
    assert.equal((await close(filedLate.id, 'str_filed')).statusCode, 200);
    const recent = await openCase(true, 0);
    const notStr = await openCase(false, 10);

    const first = await sweep();
    const swept = first.evaluated.map((e) => e.case_id).sort();
    assert.deepEqual(swept, [overdue.id, closedUnfiled.id, filedLate.id].sort());
    assert.equal(first.failed, 0);
    for (const skipped of [filed, recent, notStr]) assert.ok(!swept.includes(skipped.id));
    // The one filed in time is settled: not looked at again.
    assert.deepEqual(await sweptFlags([filed.id, recent.id]), { [filed.id]: true, [recent.id]: false });
    const late = await t.deps.db
      .selectFrom('cases')
      .select(['history', 'status', 'resolution'])
      .where('id', '=', filedLate.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([late.status, late.resolution], ['closed', 'str_filed']);
    assert.match(
      (late.history as { note: string }[]).at(-1)!.note,
      /^STR not filed within the deadline \(filed .*, after it\): MICA-RPT-002/,
    );

    const entry = first.evaluated.find((e) => e.case_id === overdue.id)!;
    assert.equal(entry.alert, true);
    const evaluation = await t.deps.db
      .selectFrom('evaluations')
      .selectAll()
      .where('evaluation_id', '=', entry.evaluation_id)
      .executeTakeFirstOrThrow();
    assert.equal(evaluation.evaluator_id, 'system:str-sweep');
    assert.equal(evaluation.client_id, 'acme');
    assert.deepEqual(evaluation.rule_ids, ['MICA-RPT-002']);
    assert.equal(evaluation.trigger_entity_id, overdue.case_number);
    assert.equal(evaluation.customer_id, 'cust-str');
    const rows = await t.deps.db
      .selectFrom('mica_rule_evaluations')
      .selectAll()
      .where('evaluation_id', '=', entry.evaluation_id)
      .execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.rule_id, 'MICA-RPT-002');
    assert.equal(rows[0]!.result, 'alert');
    assert.deepEqual(rows[0]!.conditions_met, { str_filed: false, str_overdue: true });

    const alert = await t.deps.db
      .selectFrom('alerts')
      .selectAll()
      .where('evaluation_id', '=', entry.evaluation_id)
      .executeTakeFirstOrThrow();
    assert.equal(alert.case_id, overdue.id, 'the alert belongs to the STR case');
    assert.equal(alert.severity, 'high');
    assert.deepEqual(alert.rule_ids, ['MICA-RPT-002']);
    const c = await t.deps.db
      .selectFrom('cases')
      .selectAll()
      .where('id', '=', overdue.id)
      .executeTakeFirstOrThrow();
    assert.equal(c.str_sweep_done, true);
    const noted = (c.history as { at: string; note: string; from: string; to: string }[]).at(-1)!;
    assert.match(noted.note, /MICA-RPT-002/);
    assert.deepEqual([noted.from, noted.to], ['open', 'open']);
    // The note is a change of the case: the trail from its time on lists it (the export passes
    // over cases not updated since the time asked for).
    assert.equal(new Date(c.updated_at).toISOString(), noted.at);
    const trail = await t.app.inject({
      method: 'GET',
      url: `/api/mica/audit/transitions?format=json&kind=case&case_id=${overdue.id}&from=${noted.at}`,
      headers: auth,
    });
    assert.equal(trail.statusCode, 200, trail.body);
    const rows2 = trail.json();
    const listed = (Array.isArray(rows2) ? rows2 : rows2.items) as { note: string }[];
    assert.deepEqual(
      listed.map((r) => r.note),
      [noted.note],
    );

    const second = await sweep();
    assert.deepEqual(second.evaluated, [], 'once per case');
  });

  it('concurrent sweeps evaluate each case once', async () => {
    const cases = [await openCase(true, 5), await openCase(true, 6), await openCase(true, 7)];
    const runs = await Promise.all([sweep(), sweep(), sweep()]);
    const all = runs.flatMap((r) => r.evaluated.map((e) => e.case_id)).sort();
    assert.deepEqual(all, cases.map((c) => c.id).sort());
    const n = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM evaluations WHERE evaluator_id = 'system:str-sweep'`.execute(t.deps.db);
    assert.equal(Number(n.rows[0]!.n), 3 + 3, 'three of the first test, three here');
  });

  it('a sweep that died after claiming leaves nothing unevaluated: an expired claim is taken up again', async () => {
    const repo = createStrSweepRepo(t.deps.db);
    const stale = await openCase(true, 8);
    const live = await openCase(true, 9);
    // Claimed by sweeps that never evaluated: one long ago (expired), one just now (still held).
    await repo.claim([stale.id], new Date(Date.now() - STR_CLAIM_LEASE_MS - 60_000));
    await repo.claim([live.id], new Date());
    const r = await sweep();
    const ids = r.evaluated.map((e) => e.case_id);
    assert.ok(ids.includes(stale.id), 'the expired claim is evaluated');
    assert.ok(!ids.includes(live.id), 'a live claim is left to its sweep');
    assert.deepEqual(await sweptFlags([stale.id, live.id]), {
      [stale.id]: true,
      [live.id]: false,
    });
  });

  it('an evaluation committed before the case was marked is not made twice', async () => {
    const c = await openCase(true, 10);
    const first = await sweep();
    assert.ok(first.evaluated.some((e) => e.case_id === c.id));
    // As if marking the case had failed after its evaluation was committed.
    await sql`UPDATE cases SET str_sweep_done = false, str_sweep_claimed_at = NULL WHERE id = ${c.id}`.execute(
      t.deps.db,
    );
    const again = await sweep();
    assert.ok(!again.evaluated.some((e) => e.case_id === c.id));
    const n = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM evaluations
       WHERE evaluator_id = 'system:str-sweep' AND trigger_entity_id = ${c.case_number}`.execute(t.deps.db);
    assert.equal(Number(n.rows[0]!.n), 1);
    const row = await t.deps.db
      .selectFrom('cases')
      .select('str_sweep_done')
      .where('id', '=', c.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.str_sweep_done, true);
  });

  it('migration 020 gives back a case an earlier sweep marked done without its evaluation', async () => {
    const evaluated = await openCase(true, 12);
    await sweep();
    // The old sweep's failure: marked done, never evaluated.
    const lost = await openCase(true, 11);
    await sql`UPDATE cases SET str_sweep_done = true WHERE id = ${lost.id}`.execute(t.deps.db);
    await repairStrSweep(t.deps.db as never);
    assert.deepEqual(await sweptFlags([lost.id, evaluated.id]), {
      [lost.id]: false,
      [evaluated.id]: true,
    });
    const r = await sweep();
    assert.ok(r.evaluated.some((e) => e.case_id === lost.id));
  });

  it('a case filed in time is settled even where MICA-RPT-002 is disabled (not read again forever)', async () => {
    const quiet = await clientWithKey(t, 'quiet');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: quiet.auth,
      payload: {
        client_id: 'quiet',
        trigger_type: 'transaction',
        data: { customer_id: 'q', customer_verified: true, suspicious_activity_detected: true },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const c = await t.deps.db
      .selectFrom('cases')
      .select(['id'])
      .where('evaluation_id', '=', res.json().evaluation_id)
      .executeTakeFirstOrThrow();
    await sql`UPDATE cases SET created_at = now() - interval '10 days' WHERE id = ${c.id}`.execute(t.deps.db);
    const closed = await t.app.inject({
      method: 'POST',
      url: `/api/cases/${c.id}/transition`,
      headers: quiet.auth,
      payload: { to: 'closed', resolution: 'str_filed' },
    });
    assert.equal(closed.statusCode, 200, closed.body);
    await filedDaysAgo(c.id, 9);
    await t.deps.clients.setSettings('quiet', { disabled_rules: ['MICA-RPT-002'] }, 'test');
    const r = await sweep();
    assert.ok(!r.evaluated.some((e) => e.case_id === c.id));
    assert.deepEqual(await sweptFlags([c.id]), { [c.id]: true });
  });

  it('migration 026 clears the STR mark of escalation-opened cases not yet swept', async () => {
    const str = await openCase(true, 3);
    await sql`UPDATE cases SET reason = 'Escalated from alert 00000000-0000-0000-0000-000000000000' WHERE id = ${str.id}`.execute(
      t.deps.db,
    );
    const kept = await openCase(true, 3);
    await clearEscalatedStr(t.deps.db as never);
    const rows = await t.deps.db
      .selectFrom('cases')
      .select(['id', 'is_str'])
      .where('id', 'in', [str.id, kept.id])
      .execute();
    assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, r.is_str])), {
      [str.id]: false,
      [kept.id]: true,
    });
  });

  it('honours the client calendar: not yet due within 2 business days', async () => {
    const c = await openCase(true, 1);
    const r = await sweep();
    assert.ok(!r.evaluated.some((e) => e.case_id === c.id));
    assert.ok(r.checked >= 1);
  });
  it('a case opened by escalating an STR alert is not a second STR case', async () => {
    const str = await openCase(true, 10);
    assert.equal((await close(str.id, 'str_filed')).statusCode, 200);
    await filedDaysAgo(str.id, 9);
    const alert = await t.deps.db
      .selectFrom('alerts')
      .select(['id'])
      .where('case_id', '=', str.id)
      .executeTakeFirstOrThrow();
    const escalated = await t.app.inject({
      method: 'POST',
      url: `/api/alerts/${alert.id}/transition`,
      headers: auth,
      payload: { to: 'escalated' },
    });
    assert.equal(escalated.statusCode, 200, escalated.body);
    const opened = await t.deps.db
      .selectFrom('cases')
      .select(['id', 'is_str', 'rule_ids'])
      .where('reason', 'like', `Escalated from alert ${alert.id}%`)
      .executeTakeFirstOrThrow();
    assert.equal(opened.is_str, false);
    assert.ok(opened.rule_ids.includes('MICA-RPT-001'));
    await sql`UPDATE cases SET created_at = now() - interval '10 days' WHERE id = ${opened.id}`.execute(
      t.deps.db,
    );
    const result = await sweep();
    assert.ok(!result.evaluated.some((e) => e.case_id === opened.id || e.case_id === str.id));
  });
});
