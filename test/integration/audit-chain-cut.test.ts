import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { chainCut } from '../../src/services/audit.service.ts';
import { createAuditQueryRepo } from '../../src/storage/audit-query.repo.ts';
import { ensureMonthlyPartitions } from '../../src/storage/partitions.ts';
import { governanceRecord } from '../helpers/audit-records.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

/** An evaluation stamped at `at` with one rule result, written straight to the audit writer. */
function stampedAt(clientId: string, at: Date) {
  const r = governanceRecord(clientId, at);
  const results = [
    {
      rule_id: 'MICA-GOV-001',
      rule_name: 'test',
      triggered: false,
      result: 'pass',
      severity: 'low',
      conditions_met: { x: false },
      actions_to_execute: [],
    },
  ];
  return { ...r, rules_evaluated: 1, rule_ids: ['MICA-GOV-001'], responseJson: JSON.stringify({ results }) };
}

describe('audit answers are cut at a chain position (X-Audit-Chain-Seq, after_seq, through_seq)', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let otherAuth: Record<string, string>;
  const evaluate = (i: number, amount = 50) =>
    t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: auth,
      payload: {
        client_id: 'acme',
        trigger_type: 'transaction',
        trigger_entity_id: `tx-${i}`,
        data: { customer_id: 'c1', customer_verified: false, amount_eur: amount },
      },
    });
  const get = (qs: string, headers = auth) =>
    t.app.inject({ method: 'GET', url: `/api/mica/audit/evaluations${qs}`, headers });
  const ids = (body: { items: { evaluation_id: string }[] }) =>
    new Set(body.items.map((r) => r.evaluation_id));

  before(async () => {
    t = await startTestApp();
    ({ auth } = await clientWithKey(t, 'acme'));
    ({ auth: otherAuth } = await clientWithKey(t, 'globex'));
    for (let i = 0; i < 5; i++) assert.equal((await evaluate(i, 2000)).statusCode, 200);
    await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: otherAuth,
      payload: { client_id: 'globex', trigger_type: 'transaction', trigger_entity_id: 'g', data: {} },
    });
  });
  after(() => t.close());

  it('every answer says the position it is complete through: the head, per client', async () => {
    const res = await get('?limit=1000');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-audit-chain-seq'], '5');
    assert.equal(ids(res.json()).size, 5);
    const other = await get('?limit=1000', otherAuth);
    assert.equal(other.headers['x-audit-chain-seq'], '1');
    const actions = await t.app.inject({ method: 'GET', url: '/api/mica/audit/actions', headers: auth });
    assert.equal(actions.headers['x-audit-chain-seq'], '5');
  });

  it('after_seq gives exactly what committed since, even a row stamped before rows already read', async () => {
    const first = await get('?limit=1000');
    const cut = Number(first.headers['x-audit-chain-seq']);
    const firstTo = new Date().toISOString();
    // A row stamped a minute ago that commits only now (as one waiting behind a stall would):
    // a chained window starting at the previous answer's time never shows it.
    const late = stampedAt('acme', new Date(Date.now() - 60_000));
    await t.deps.auditWriter.write(late);
    assert.equal((await evaluate(5)).statusCode, 200);
    const byTime = await get(`?from=${firstTo}&limit=1000`);
    assert.equal(ids(byTime.json()).has(late.evaluation_id), false);

    const since = await get(`?after_seq=${cut}&limit=1000`);
    assert.equal(since.statusCode, 200, since.body);
    assert.equal(since.headers['x-audit-chain-seq'], String(cut + 2));
    const got = ids(since.json());
    assert.equal(got.size, 2);
    assert.ok(got.has(late.evaluation_id));
    for (const id of ids(first.json())) assert.equal(got.has(id), false);
    // Nothing new: an empty answer at the same position.
    const none = await get(`?after_seq=${cut + 2}`);
    assert.equal(none.statusCode, 200);
    assert.deepEqual(none.json().items, []);
    assert.equal(none.headers['x-audit-chain-seq'], String(cut + 2));
  });

  it('the pages of one listing keep the cut of its first page', async () => {
    const head = Number((await get('?limit=1')).headers['x-audit-chain-seq']);
    const first = await get('?limit=3');
    assert.ok(first.json().next_cursor);
    assert.equal((await evaluate(100)).statusCode, 200);
    const seen = ids(first.json());
    let cursor: string | null = first.json().next_cursor;
    while (cursor) {
      const page = await get(`?limit=3&cursor=${cursor}`);
      assert.equal(page.headers['x-audit-chain-seq'], String(head));
      for (const id of ids(page.json())) seen.add(id);
      cursor = page.json().next_cursor;
    }
    assert.equal(seen.size, head);
    const rows = await sql<{ n: number }>`
      SELECT count(DISTINCT evaluation_id)::int AS n FROM mica_rule_evaluations
       WHERE client_id = 'acme' AND chain_seq <= ${head}`.execute(t.deps.db);
    assert.equal(rows.rows[0]?.n, head);
  });

  it("a page's cursor holds its listing's cut; an export only checks the cursor it is given", async () => {
    const head = Number((await get('?limit=1')).headers['x-audit-chain-seq']);
    const first = await get(`?after_seq=${head - 3}&limit=1`);
    const cursor = first.json().next_cursor as string;
    assert.ok(cursor);
    // The same positions: the next page. Other positions (or none): the cursor is not theirs.
    const next = await get(`?after_seq=${head - 3}&limit=1&cursor=${cursor}`);
    assert.equal(next.statusCode, 200, next.body);
    for (const other of ['', `&after_seq=${head - 4}`, `&after_seq=${head - 3}&through_seq=${head - 1}`]) {
      const res = await get(`?limit=1&cursor=${cursor}${other}`);
      assert.equal(res.statusCode, 400, other);
      assert.equal(res.json().error.details.field, 'cursor');
    }
    // Another client's cursor is not one of this client's listings (its position and time span).
    const foreign = await get(`?after_seq=${head - 3}&limit=1&cursor=${cursor}`, otherAuth);
    assert.equal(foreign.statusCode, 400);
    assert.equal(foreign.json().error.details.field, 'cursor');
    // A cursor edited to promise positions past the head (the header would claim them) is refused.
    const carried = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      h: number;
      a?: number;
    };
    for (const edit of [{ h: head + 1_000_000 }, { a: carried.h + 1 }]) {
      const forged = Buffer.from(JSON.stringify({ ...carried, ...edit })).toString('base64url');
      const res = await get(`?after_seq=${edit.a ?? head - 3}&limit=1&cursor=${forged}`);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error.details.field, 'cursor');
    }
    // A position written otherwise than in digits is refused, not read as 0 or 16.
    for (const loose of ['%20', '0x10', '1e3', '+1', '1.0'])
      assert.equal((await get(`?after_seq=${loose}`)).statusCode, 400, loose);
    // An export is every match, whatever cut the cursor carried.
    const exported = await get(`?format=json&cursor=${cursor}`);
    assert.equal(exported.statusCode, 200);
    assert.equal(
      new Set((exported.json() as { evaluation_id: string }[]).map((r) => r.evaluation_id)).size,
      head,
    );
  });

  it('through_seq answers the same rows whenever asked; a position past the head is refused', async () => {
    const upTo3 = (await get('?through_seq=3&limit=1000')).json();
    assert.equal(ids(upTo3).size, 3);
    assert.equal((await evaluate(200)).statusCode, 200);
    assert.deepEqual((await get('?through_seq=3&limit=1000')).json(), upTo3);
    const slice = await get('?after_seq=1&through_seq=3&limit=1000');
    assert.equal(ids(slice.json()).size, 2);

    const beyond = await get('?through_seq=1000&after_seq=999');
    assert.equal(beyond.statusCode, 400);
    const err = beyond.json().error;
    assert.equal(err.details.field, 'through_seq');
    assert.match(err.details.reason, /chain head/);
    assert.equal(err.details.errors.length, 2);
    const reversed = await get('?after_seq=3&through_seq=2');
    assert.equal(reversed.statusCode, 400);
    assert.equal(reversed.json().error.details.field, 'after_seq');
    const notANumber = await get('?after_seq=-1');
    assert.equal(notANumber.statusCode, 400);
    assert.equal(notANumber.json().error.details.field, 'after_seq');
    // Another client's positions are its own: acme's head is no position of globex's.
    const foreign = await get('?after_seq=3', otherAuth);
    assert.equal(foreign.statusCode, 400);
  });

  it('exports (API and operator stream) take the same cut and report it', async () => {
    const head = Number((await get('?limit=1')).headers['x-audit-chain-seq']);
    const csv = await get(`?format=csv&after_seq=${head - 1}`);
    assert.equal(csv.statusCode, 200);
    assert.equal(csv.headers['x-audit-chain-seq'], String(head));
    const lines = csv.body.trim().split('\r\n').slice(1);
    assert.equal(new Set(lines.map((l) => l.split(',')[1])).size, 1);

    const started = await t.deps.streams('audit.export', { client_id: 'acme', after_seq: 2, format: 'json' });
    assert.equal(started.throughSeq, head);
    let text = '';
    for await (const chunk of started.chunks) text += chunk;
    const rows = JSON.parse(text) as { evaluation_id: string }[];
    assert.equal(new Set(rows.map((r) => r.evaluation_id)).size, head - 2);

    const actions = await t.deps.streams('audit.actions', {
      client_id: 'acme',
      through_seq: 5,
      format: 'json',
    });
    assert.equal(actions.throughSeq, 5);
    let actionsText = '';
    for await (const chunk of actions.chunks) actionsText += chunk;
    const acted = new Set(
      (JSON.parse(actionsText) as { evaluation_id: string }[]).map((r) => r.evaluation_id),
    );
    // The five seeded transactions of EUR 2,000 by an unverified customer each executed actions.
    assert.equal(acted.size, 5);
  });
});

/** Rows a plan's scans read (returned or removed by a filter), over every node of an EXPLAIN ANALYZE. */
function rowsRead(plan: Record<string, unknown>): number {
  let n = 0;
  const loops = Number(plan['Actual Loops'] ?? 1);
  if (String(plan['Node Type']).includes('Scan'))
    n +=
      (Number(plan['Actual Rows'] ?? 0) + Number(plan['Rows Removed by Filter'] ?? 0)) * loops +
      Number(plan['Rows Removed by Index Recheck'] ?? 0);
  for (const child of (plan.Plans as Record<string, unknown>[] | undefined) ?? []) n += rowsRead(child);
  return n;
}

describe('a cut by positions reads its range, not the client history (generic plans)', () => {
  let t: TestApp;
  const TOTAL = Number(process.env.CUT_TEST_ROWS ?? 200_000);
  before(async () => {
    t = await startTestApp();
    await t.deps.clients.create('big', { actor: 'test' });
    // A long history, generated in the store (a chain of random hashes: only its size matters
    // here), one evaluation a minute up to now in monthly partitions, and the head after it.
    await ensureMonthlyPartitions(t.deps.db, new Date(Date.now() - TOTAL * 60_000), {
      monthsBack: 0,
      monthsAhead: Math.ceil(TOTAL / 40_000) + 1,
    });
    const response = JSON.stringify({
      results: [{ rule_id: 'MICA-GOV-001', result: 'pass', triggered: false, conditions_met: {} }],
    });
    await sql`
      INSERT INTO evaluations (evaluation_id, client_id, trigger_type, trigger_entity_type, trigger_entity_id,
          customer_id, evaluated_at, rule_set_version, high_risk_list_date, evaluator_id, rules_evaluated,
          rules_triggered, transaction_blocked, alert_generated, case_created, highest_severity, rule_ids,
          request, response, chain_seq, prev_hash, row_hash)
        SELECT gen_random_uuid(), 'big', 'periodic', 'customer', NULL, 'c-' || (g % 100),
               now() - (${TOTAL} - g) * interval '1 minute', '1.0', NULL, 'test', 1, 0, false, false, false,
               NULL, ARRAY['MICA-GOV-001'], '{}'::json, ${response}::json, g,
               decode(md5(g::text) || md5('p' || g), 'hex'), decode(md5('r' || g) || md5(g::text), 'hex')
          FROM generate_series(1, ${TOTAL}) AS g`.execute(t.deps.db);
    await sql`INSERT INTO audit_chain_heads (client_id, seq, head)
              SELECT 'big', ${TOTAL}, row_hash FROM evaluations WHERE client_id = 'big' AND chain_seq = ${TOTAL}`.execute(
      t.deps.db,
    );
    await sql`ANALYZE`.execute(t.deps.db);
  });
  after(() => t.close());

  it('the span lookup, a page and an export page after the head - 10, or through position 10', async () => {
    // Every statement the audit repository sends, compiled, to be explained with its parameters
    // on a session planning generically, as the service's sessions do.
    const sent: CompiledQuery[] = [];
    const spy = t.deps.db.withPlugin({
      transformQuery: ({ node, queryId }) => {
        sent.push(t.deps.db.getExecutor().compileQuery(node, queryId));
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    const repo = createAuditQueryRepo(spy);
    for (const q of [{ after_seq: TOTAL - 10 }, { through_seq: 10 }, { after_seq: 5, through_seq: 15 }]) {
      sent.length = 0;
      const filter = await chainCut(repo, { client_id: 'big', ...q });
      const rows = await repo.page(filter, undefined, 100);
      const page = await repo.exportPage(filter, undefined, 500);
      assert.equal(new Set(rows.map((r) => r.evaluation_id)).size, 10, JSON.stringify(q));
      assert.equal(page.length, 10, JSON.stringify(q));
      for (const query of sent) {
        // EXPLAIN of a statement with parameters plans it for their values; a prepared statement
        // executed under force_generic_plan is planned without them, as the service's are.
        const literal = (v: unknown) =>
          typeof v === 'number'
            ? String(v)
            : `'${String(v instanceof Date ? v.toISOString() : v).replaceAll("'", "''")}'`;
        const explained = await t.deps.db.connection().execute(async (conn) => {
          await sql`SET plan_cache_mode = force_generic_plan`.execute(conn);
          await sql.raw(`PREPARE cut_probe AS ${query.sql}`).execute(conn);
          try {
            const args = query.parameters.length > 0 ? `(${query.parameters.map(literal).join(', ')})` : '';
            return await conn.executeQuery<{ 'QUERY PLAN': unknown }>(
              CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE cut_probe${args}`),
            );
          } finally {
            await sql`DEALLOCATE cut_probe`.execute(conn);
          }
        });
        const raw = explained.rows[0]!['QUERY PLAN'];
        const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: Record<string, unknown> }[];
        const read = rowsRead(plan[0]!.Plan);
        assert.ok(read < 200, `${JSON.stringify(q)}: ${read} rows read by ${query.sql.slice(0, 120)}`);
      }
    }
  });
});
