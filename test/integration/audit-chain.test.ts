import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { AppError } from '../../src/errors.ts';
import { up as chainSeqPositive } from '../../src/storage/migrations/023-chain-seq-positive.ts';
import { ensureMonthlyPartitions, listPartitions } from '../../src/storage/partitions.ts';
import { governanceRecord } from '../helpers/audit-records.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

/** Runs SQL with triggers off, as an attacker with database access would. */
function tamperWith(t: TestApp, q: ReturnType<typeof sql>) {
  return t.deps.db.connection().execute(async (c) => {
    await sql`SET session_replication_role = replica`.execute(c);
    try {
      await q.execute(c);
    } finally {
      await sql`SET session_replication_role = DEFAULT`.execute(c);
    }
  });
}

describe('tamper evidence of the audit store', () => {
  let t: TestApp;
  let acme: Awaited<ReturnType<typeof clientWithKey>>;
  let globex: Awaited<ReturnType<typeof clientWithKey>>;
  before(async () => {
    t = await startTestApp();
    acme = await clientWithKey(t, 'acme');
    globex = await clientWithKey(t, 'globex');
  });
  after(() => t.close());

  const evaluate = (c: { auth: Record<string, string>; clientId: string }, i: number) =>
    t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: c.auth,
      payload: {
        client_id: c.clientId,
        trigger_type: 'transaction',
        trigger_entity_id: `tx-${i}`,
        data: { customer_id: `c${i % 3}`, customer_verified: i % 2 === 0, amount_eur: i * 700 },
      },
    });

  const tamper = (q: ReturnType<typeof sql>) => tamperWith(t, q);

  it('each client has its own intact chain, also under concurrent writes', async () => {
    await Promise.all(Array.from({ length: 30 }, (_, i) => evaluate(i % 2 ? acme : globex, i)));
    const a = await t.deps.auditChain.verify('acme');
    const g = await t.deps.auditChain.verify('globex');
    assert.equal(a.ok, true, JSON.stringify(a));
    assert.equal(g.ok, true, JSON.stringify(g));
    assert.equal(a.rows_verified, 15);
    assert.equal(g.rows_verified, 15);
    assert.match(a.head_hash, /^[0-9a-f]{64}$/);
  });

  it('the database refuses UPDATE, DELETE and TRUNCATE of audit rows', async () => {
    await assert.rejects(sql`UPDATE evaluations SET evaluator_id = 'x'`.execute(t.deps.db), /append-only/);
    await assert.rejects(
      sql`DELETE FROM evaluations WHERE client_id = 'acme'`.execute(t.deps.db),
      /append-only/,
    );
    await assert.rejects(sql`TRUNCATE evaluations`.execute(t.deps.db), /append-only/);
    const parts = await listPartitions(t.deps.db);
    assert.ok(parts.length >= 2, 'monthly partitions exist');
    await assert.rejects(sql.raw(`TRUNCATE ${parts.at(-1)!.name}`).execute(t.deps.db), /append-only/);
    await assert.rejects(sql`DELETE FROM operator_audit`.execute(t.deps.db), /append-only/);
  });

  it('a checkpoint records the head; checkpoints are exportable', async () => {
    const cps = await t.deps.auditChain.checkpoint('acme');
    assert.equal(cps.length, 1);
    assert.equal(cps[0]!.seq, 15);
    const listed = await t.deps.auditChain.checkpoints('acme');
    assert.deepEqual(listed.at(-1)!.head_hash, cps[0]!.head_hash);
  });

  it('altering one row directly in the database is detected at that row', async () => {
    const row = (
      await sql<{ evaluation_id: string; chain_seq: string }>`
        SELECT evaluation_id::text AS evaluation_id, chain_seq FROM evaluations
         WHERE client_id = 'globex' AND chain_seq = 7`.execute(t.deps.db)
    ).rows[0]!;
    await tamper(
      sql`UPDATE evaluations SET response = replace(response::text, '"should_block":true', '"should_block":false')::json,
                                 transaction_blocked = false
           WHERE evaluation_id = ${row.evaluation_id}::uuid`,
    );
    const res = await t.deps.auditChain.verify('globex');
    assert.equal(res.ok, false);
    assert.deepEqual(res.first_break, {
      chain_seq: 7,
      evaluation_id: row.evaluation_id,
      reason: 'content_changed',
    });
  });

  it('deleting a row in the middle or at the end is detected', async () => {
    await tamper(sql`DELETE FROM evaluations WHERE client_id = 'acme' AND chain_seq = 4`);
    const mid = await t.deps.auditChain.verify('acme');
    assert.equal(mid.ok, false);
    assert.equal(mid.first_break?.chain_seq, 4);
    assert.equal(mid.first_break?.reason, 'row_missing');
    // The walk stopped at position 3; the recorded head is stated beside it, not taken for it.
    assert.equal(mid.head_seq, 3);
    assert.equal(mid.recorded_head_seq, 15);
  });

  it('a retention mark over rows still stored does not hide a break below it', async () => {
    // The application role may insert marks (retention records them through it); a forged one at
    // the broken row (or at the head) must not start the walk past rows that are still there.
    await tamper(
      sql`UPDATE evaluations SET customer_id = 'someone-else' WHERE client_id = 'globex' AND chain_seq = 3`,
    );
    for (const seq of [3, 9]) {
      await sql`INSERT INTO audit_retention_marks (client_id, seq, hash, removed_before)
                SELECT client_id, chain_seq, row_hash, now() - interval '6 years' FROM evaluations
                 WHERE client_id = 'globex' AND chain_seq = ${seq}`.execute(t.deps.db);
      const res = await t.deps.auditChain.verify('globex');
      assert.equal(res.ok, false, JSON.stringify(res));
      assert.equal(res.first_break?.chain_seq, 3);
      assert.equal(res.anchor_seq, 0);
    }
  });

  it('the operator commands refuse an unknown client; a known one without rows verifies empty', async () => {
    for (const [name, args] of [
      ['audit.verify', { client_id: 'nobody' }],
      ['audit.checkpoints', { client_id: 'nobody' }],
      ['audit.checkpoint', { client_id: 'nobody' }],
      ['clients.check', { client_id: 'nobody' }],
    ] as const)
      await assert.rejects(
        t.deps.commands(name, args, 'test'),
        (e: unknown) =>
          e instanceof AppError && e.code === 'NOT_FOUND' && e.message === 'client nobody not found',
        name,
      );
    // The same text as the other commands give for an unknown client.
    await assert.rejects(t.deps.commands('keys.create', { client_id: 'nobody' }, 'test'), {
      message: 'client nobody not found',
    });
    await t.deps.clients.create('empty-co', { actor: 't' });
    const empty = (await t.deps.commands('audit.verify', { client_id: 'empty-co' }, 'test')) as {
      ok: boolean;
      rows_verified: number;
      first_break: unknown;
    };
    assert.equal(empty.ok, true, JSON.stringify(empty));
    assert.equal(empty.rows_verified, 0);
    assert.equal(empty.first_break, null);
    assert.deepEqual(await t.deps.commands('audit.checkpoints', { client_id: 'empty-co' }, 'test'), {
      checkpoints: [],
    });
    assert.deepEqual(await t.deps.commands('audit.checkpoint', { client_id: 'empty-co' }, 'test'), {
      checkpoints: [],
    });
    assert.deepEqual(await t.deps.commands('clients.check', { client_id: 'empty-co' }, 'test'), {
      client_id: 'empty-co',
    });
  });

  /** Inserts a copy of a client's row at another position, with a new id and customer, as SQL. */
  const forgedCopy = (client: string, ofSeq: number, atSeq: number, id?: string) => sql`
    INSERT INTO evaluations (evaluation_id, client_id, trigger_type, trigger_entity_type, trigger_entity_id,
      customer_id, evaluated_at, rule_set_version, high_risk_list_date, evaluator_id, rules_evaluated,
      rules_triggered, transaction_blocked, alert_generated, case_created, highest_severity, rule_ids,
      request, response, chain_seq, prev_hash, row_hash)
    SELECT coalesce(${id ?? null}::uuid, gen_random_uuid()), client_id, trigger_type, trigger_entity_type, 'forged-tx', 'forged-customer',
      evaluated_at, rule_set_version, high_risk_list_date, evaluator_id, rules_evaluated, rules_triggered,
      transaction_blocked, alert_generated, case_created, highest_severity, rule_ids, request, response,
      ${atSeq}, prev_hash, row_hash
      FROM evaluations WHERE client_id = ${client} AND chain_seq = ${ofSeq}
    RETURNING evaluation_id::text AS evaluation_id`;

  it('a row below the start of the chain is refused, and reported when a store holds one', async () => {
    const c = await clientWithKey(t, 'below');
    for (let i = 0; i < 3; i++) await evaluate(c, 200 + i);
    // The application role may insert audit rows: position 0 or below lay under the genesis,
    // where the walk never looked, and a fabricated evaluation was exported and certified.
    for (const seq of [0, -7])
      await assert.rejects(forgedCopy('below', 2, seq).execute(t.deps.db), /chain_seq_positive/);
    // A store that took such a row before the constraint existed still migrates, and verify names it.
    await tamper(sql`ALTER TABLE evaluations DROP CONSTRAINT evaluations_chain_seq_positive`);
    const forged = (await forgedCopy('below', 2, 0).execute(t.deps.db)).rows[0] as { evaluation_id: string };
    await chainSeqPositive(t.deps.db as never);
    await assert.rejects(forgedCopy('below', 2, -1).execute(t.deps.db), /chain_seq_positive/);
    const res = await t.deps.auditChain.verify('below');
    assert.equal(res.ok, false);
    assert.deepEqual(res.first_break, {
      chain_seq: 0,
      evaluation_id: forged.evaluation_id,
      reason: 'outside_chain',
    });
    await tamper(sql`DELETE FROM evaluations WHERE evaluation_id = ${forged.evaluation_id}::uuid`);
    assert.equal((await t.deps.auditChain.verify('below')).ok, true);
  });

  it('a second row at a verified position is named as the extra row, not as a missing one', async () => {
    const c = await clientWithKey(t, 'doubled');
    for (let i = 0; i < 4; i++) await evaluate(c, 300 + i);
    // Its id sorts after every other, so the walk reads the real row 2 first, then the copy.
    const id = 'ffffffff-ffff-4fff-bfff-ffffffffffff';
    await forgedCopy('doubled', 2, 2, id).execute(t.deps.db);
    const res = await t.deps.auditChain.verify('doubled');
    assert.deepEqual(res.first_break, { chain_seq: 2, evaluation_id: id, reason: 'duplicate_seq' });
  });

  it('deleting the newest rows is detected against the chain head', async () => {
    const c = await clientWithKey(t, 'initech');
    for (let i = 0; i < 3; i++) await evaluate(c, 100 + i);
    assert.equal((await t.deps.auditChain.verify('initech')).ok, true);
    await tamper(sql`DELETE FROM evaluations WHERE client_id = 'initech' AND chain_seq = 3`);
    const res = await t.deps.auditChain.verify('initech');
    assert.equal(res.ok, false);
    assert.equal(res.first_break?.chain_seq, 3);
  });
});

describe('retention', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('refuses a client retention shorter than the 5 years the audit trail is kept', async () => {
    for (const years of [1, 4, 4.5, 101])
      await assert.rejects(
        t.deps.clients.create(`r-${String(years).replace('.', '-')}`, {
          actor: 't',
          settings: { retention_years: years },
        }),
        /retention_years: must be an integer from 5 to 100/,
      );
    await t.deps.clients.create('r-5', { actor: 't', settings: { retention_years: 5 } });
    await assert.rejects(t.deps.clients.setSettings('r-5', { retention_years: 3 }, 't'), /retention_years/);
    assert.equal(await t.deps.retentionYearsOf('r-5'), 5);
  });

  it('removes rows past each client retention, drops old partitions, and the chains still verify', async () => {
    await t.deps.clients.create('long', { actor: 't', settings: { retention_years: 7 } });
    await t.deps.clients.create('normal', { actor: 't' });
    const now = new Date();
    const years = (n: number) => new Date(now.getTime() - n * 365.25 * 86_400_000);
    await ensureMonthlyPartitions(t.deps.db, years(8), { monthsBack: 0, monthsAhead: 0 });
    for (const at of [years(8), years(6), years(4.9), now]) {
      await t.deps.auditWriter.write(governanceRecord('long', at));
      await t.deps.auditWriter.write(governanceRecord('normal', at));
    }
    const before = await listPartitions(t.deps.db);
    const eightYearsAgo = before.find((p) => p.to <= years(7.5));
    assert.ok(eightYearsAgo, 'an old partition holds the 8-year-old rows');

    const result = await t.deps.auditChain.retention(t.deps.retentionYearsOf);
    assert.deepEqual(result.removed.map((r) => [r.client_id, r.rows]).sort(), [
      ['long', 1],
      ['normal', 2],
    ]);
    assert.ok(result.dropped_partitions.includes(eightYearsAgo.name));
    const left = await sql<{ client_id: string; n: number }>`
      SELECT client_id, count(*)::int AS n FROM evaluations GROUP BY client_id ORDER BY client_id`.execute(
      t.deps.db,
    );
    assert.deepEqual(
      left.rows.map((r) => [r.client_id, Number(r.n)]),
      [
        ['long', 3],
        ['normal', 2],
      ],
    );
    for (const c of ['long', 'normal']) {
      const v = await t.deps.auditChain.verify(c);
      assert.equal(v.ok, true, JSON.stringify(v));
    }
    const logged = await t.deps.operatorAudit.list({});
    assert.ok(logged.some((e) => e.action === 'audit.retention'));
    // Each client's own operator log says its rows were removed.
    for (const c of ['long', 'normal']) {
      const own = await t.deps.operatorAudit.list({ client_id: c });
      assert.ok(
        own.some((e) => e.action === 'audit.retention'),
        `${c}: ${JSON.stringify(own.map((e) => e.action))}`,
      );
    }
    // The next day's run finds nothing due: nothing removed, and no failure recorded.
    const again = await t.deps.auditChain.retention(t.deps.retentionYearsOf);
    assert.deepEqual(again.removed, []);
    assert.equal('failed' in again, false, JSON.stringify(again));
  });
});

describe('audit maintenance job', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('runs on demand: partitions ahead, retention, a checkpoint per client with rows', async () => {
    const c = await clientWithKey(t, 'acme');
    await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: c.auth,
      payload: { client_id: 'acme', trigger_type: 'periodic', data: {} },
    });
    const report = (await t.deps.jobs.run('audit-maintenance')) as {
      partitions_created: string[];
      retention: { removed: unknown[] };
      checkpoints: number;
    };
    assert.equal(report.checkpoints, 1);
    assert.deepEqual(report.retention.removed, []);
    const cps = await t.deps.auditChain.checkpoints('acme');
    assert.equal(cps.at(-1)?.seq, 1);
    await assert.rejects(t.deps.jobs.run('nope'), /unknown job/);
  });

  it('retention never removes a row younger than its cutoff, even behind an old time at the chain head', async () => {
    // A row written with an old time after recent ones (a wrong clock): deleting by chain position
    // up to it would take the recent rows with it.
    await t.deps.clients.create('skewed', { actor: 't' });
    const old = new Date(Date.now() - 8 * 365.25 * 86_400_000);
    await ensureMonthlyPartitions(t.deps.db, old, { monthsBack: 0, monthsAhead: 0 });
    for (let i = 0; i < 3; i++) await t.deps.auditWriter.write(governanceRecord('skewed', new Date()));
    await t.deps.auditWriter.write(governanceRecord('skewed', old));
    const result = await t.deps.auditChain.retention(t.deps.retentionYearsOf);
    assert.deepEqual(
      result.removed.filter((r) => r.client_id === 'skewed'),
      [],
    );
    const left = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM evaluations WHERE client_id = 'skewed'`.execute(t.deps.db);
    assert.equal(Number(left.rows[0]!.n), 4);
    assert.equal((await t.deps.auditChain.verify('skewed')).ok, true);
  });

  it('a month whose rows landed in the default partition is reported; retention and checkpoints still run', async () => {
    // Partitions were not made ahead (the job off for months): a row of a coming month is in the
    // default partition, so that month's partition cannot be created over it.
    const now = new Date();
    const ahead = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 15));
    const name = `evaluations_p${ahead.getUTCFullYear()}_${String(ahead.getUTCMonth() + 1).padStart(2, '0')}`;
    await sql`ALTER TABLE evaluations DETACH PARTITION ${sql.table(name)}`.execute(t.deps.db);
    await sql`DROP TABLE ${sql.table(name)}`.execute(t.deps.db);
    await t.deps.clients.create('ahead', { actor: 't' });
    await t.deps.auditWriter.write(governanceRecord('ahead', ahead));
    const report = (await t.deps.jobs.run('audit-maintenance')) as {
      partitions_failed?: Array<{ partition: string; reason: string }>;
      checkpoints: number;
    };
    assert.deepEqual(
      report.partitions_failed?.map((f) => f.partition),
      [name],
    );
    assert.ok(report.checkpoints >= 1, 'the checkpoints were written');
    assert.ok((await t.deps.auditChain.checkpoints('ahead')).length >= 1);
  });

  it('two retention runs at once both complete, and record one mark (PostgreSQL: several sessions)', async (ctx) => {
    if (t.deps.database.kind !== 'postgres') {
      ctx.skip('the embedded store has one session: retention runs one after another anyway');
      return;
    }
    await t.deps.clients.create('twice', { actor: 't', settings: { retention_years: 5 } });
    const old = new Date(Date.now() - 6 * 365.25 * 86_400_000);
    await ensureMonthlyPartitions(t.deps.db, old, { monthsBack: 0, monthsAhead: 0 });
    for (let i = 0; i < 3; i++) await t.deps.auditWriter.write(governanceRecord('twice', old));
    // One run's delete is still uncommitted when the other starts (a large delete takes a while).
    const cutoff = new Date(Date.now() - 5 * 365.25 * 86_400_000);
    const runs = await t.deps.db.connection().execute(async (c) => {
      await sql`BEGIN`.execute(c);
      const first = await sql<{ n: number }>`SELECT mica_retention_delete('twice', ${cutoff}) AS n`.execute(
        c,
      );
      const second = t.deps.auditChain.retention(t.deps.retentionYearsOf);
      await new Promise((r) => setTimeout(r, 300));
      await sql`COMMIT`.execute(c);
      return [{ removed: [{ client_id: 'twice', rows: Number(first.rows[0]!.n) }] }, await second] as Array<{
        removed: Array<{ client_id: string; rows: number }>;
        failed?: unknown[];
      }>;
    });
    for (const r of runs) assert.equal((r as { failed?: unknown[] }).failed, undefined, JSON.stringify(r));
    const removed = runs.flatMap((r) => r.removed).filter((x) => x.client_id === 'twice');
    assert.deepEqual(
      removed.map((x) => x.rows),
      [3],
    );
    const marks = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM audit_retention_marks WHERE client_id = 'twice'`.execute(t.deps.db);
    assert.equal(Number(marks.rows[0]!.n), 1);
    assert.equal((await t.deps.auditChain.verify('twice')).ok, true);
  });
});

/**
 * Someone who can delete audit rows with triggers off (a superuser) removes a chain's oldest rows
 * and inserts a retention mark so that the walk starts after them. Rows removed cannot be checked,
 * but a mark retention cannot have written can: its cutoff, the row it left, the checkpoints.
 */
describe('retention marks that retention cannot have written', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const years = (n: number) => new Date(Date.now() - n * 365.25 * 86_400_000);
  const tamper = (q: ReturnType<typeof sql>) => tamperWith(t, q);
  /** Deletes the client's rows up to `seq` behind a mark dated `removedBefore`. */
  const forge = (client: string, seq: number, removedBefore: Date) =>
    tamper(sql`
      WITH m AS (INSERT INTO audit_retention_marks (client_id, seq, hash, removed_before)
                 SELECT client_id, chain_seq, row_hash, ${removedBefore.toISOString()}::timestamptz
                   FROM evaluations WHERE client_id = ${client} AND chain_seq = ${seq} RETURNING 1)
      DELETE FROM evaluations WHERE client_id = ${client} AND chain_seq <= ${seq}`);
  async function chain(client: string, times: Date[]) {
    await t.deps.clients.create(client, { actor: 't' });
    await ensureMonthlyPartitions(t.deps.db, years(9), { monthsBack: 0, monthsAhead: 0 });
    for (const at of times) await t.deps.auditWriter.write(governanceRecord(client, at));
  }
  const broken = async (
    client: string,
    checkpoints?: Parameters<TestApp['deps']['auditChain']['verify']>[1],
  ) => {
    const res = await t.deps.auditChain.verify(client, checkpoints);
    assert.equal(res.ok, false, JSON.stringify(res));
    return res.first_break;
  };

  it('a mark whose cutoff is within the 5 years every client keeps', async () => {
    await chain('recent', [new Date(), new Date(), new Date(), new Date()]);
    await forge('recent', 2, new Date());
    assert.deepEqual(await broken('recent'), {
      chain_seq: 2,
      evaluation_id: null,
      reason: 'mark_not_retention',
    });
  });

  it('a mark that left a row older than its cutoff (retention would have taken it)', async () => {
    await chain('left-old', [years(9), years(8), years(7), new Date()]);
    await forge('left-old', 1, years(6));
    assert.deepEqual(await broken('left-old'), {
      chain_seq: 1,
      evaluation_id: null,
      reason: 'mark_not_retention',
    });
  });

  it('a mark over rows written after a checkpoint taken since its cutoff: stored, or exported and kept elsewhere', async () => {
    await chain('checked', [new Date(), new Date()]);
    await t.deps.auditChain.checkpoint('checked');
    for (let i = 0; i < 2; i++) await t.deps.auditWriter.write(governanceRecord('checked', new Date()));
    const exported = await t.deps.auditChain.checkpoints('checked');
    await forge('checked', 3, years(6));
    assert.equal((await broken('checked'))?.reason, 'mark_not_retention');
    // The stored checkpoints removed too: the exported copy still shows it.
    await tamper(sql`DELETE FROM audit_checkpoints WHERE client_id = 'checked'`);
    assert.equal(
      (await t.deps.auditChain.verify('checked')).ok,
      true,
      'nothing left in the database shows it',
    );
    assert.deepEqual(await broken('checked', exported), {
      chain_seq: 3,
      evaluation_id: null,
      reason: 'mark_not_retention',
    });
  });

  it('exported checkpoints show the newest rows removed with the recorded head moved back', async () => {
    await chain('rolled-back', [new Date(), new Date(), new Date()]);
    await t.deps.auditChain.checkpoint('rolled-back');
    const exported = await t.deps.auditChain.checkpoints('rolled-back');
    await tamper(sql`DELETE FROM evaluations WHERE client_id = 'rolled-back' AND chain_seq = 3`);
    await tamper(sql`DELETE FROM audit_checkpoints WHERE client_id = 'rolled-back'`);
    await tamper(sql`
      UPDATE audit_chain_heads SET seq = 2, head = (SELECT row_hash FROM evaluations
                                                     WHERE client_id = 'rolled-back' AND chain_seq = 2)
       WHERE client_id = 'rolled-back'`);
    assert.equal((await t.deps.auditChain.verify('rolled-back')).ok, true, 'consistent inside the database');
    // The exported checkpoint vouches for row 3: it is the first row missing.
    assert.deepEqual(await broken('rolled-back', exported), {
      chain_seq: 3,
      evaluation_id: null,
      reason: 'row_missing',
    });
  });

  it('real retention verifies, with checkpoints exported before it too', async () => {
    await chain('kept', [years(8), years(7), new Date()]);
    await t.deps.auditChain.checkpoint('kept');
    const exported = await t.deps.auditChain.checkpoints('kept');
    const result = await t.deps.auditChain.retention(async () => 5);
    assert.deepEqual(
      result.removed.filter((r) => r.client_id === 'kept').map((r) => r.rows),
      [2],
    );
    for (const cps of [undefined, exported]) {
      const res = await t.deps.auditChain.verify('kept', cps);
      assert.equal(res.ok, true, JSON.stringify(res));
      assert.equal(res.anchor_seq, 2);
    }
  });

  it('a row decided before a checkpoint but committed after it does not make real retention look forged', async () => {
    const cutoff = new Date();
    cutoff.setUTCFullYear(cutoff.getUTCFullYear() - 5);
    const hours = (n: number) => new Date(cutoff.getTime() + n * 3600_000);
    await chain('in-flight', [hours(-2)]);
    // The checkpoint an hour after the cutoff saw row 1 only; row 2, decided an hour before the
    // cutoff, committed after it (a checkpoint's time is the database's, a row's the server's).
    await sql`INSERT INTO audit_checkpoints (client_id, seq, head, created_at)
              SELECT client_id, seq, head, ${hours(1).toISOString()}::timestamptz FROM audit_chain_heads
               WHERE client_id = 'in-flight'`.execute(t.deps.db);
    await t.deps.auditWriter.write(governanceRecord('in-flight', hours(-1)));
    await t.deps.auditWriter.write(governanceRecord('in-flight', new Date()));
    const result = await t.deps.auditChain.retention(async () => 5);
    assert.deepEqual(
      result.removed.filter((r) => r.client_id === 'in-flight').map((r) => r.rows),
      [2],
    );
    const res = await t.deps.auditChain.verify('in-flight');
    assert.equal(res.ok, true, JSON.stringify(res));
  });

  it('the recorded head changed alone is a head mismatch at the head', async () => {
    await chain('head', [new Date(), new Date()]);
    await tamper(sql`UPDATE audit_chain_heads SET head = ${Buffer.alloc(32)} WHERE client_id = 'head'`);
    assert.deepEqual(await broken('head'), { chain_seq: 2, evaluation_id: null, reason: 'head_mismatch' });
  });
});
