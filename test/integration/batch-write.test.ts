import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { type OfficerLoad, pickOfficer } from '../../src/domain/cases/assignment.ts';
import { formatCaseNumber } from '../../src/domain/cases/case-number.ts';
import {
  createEvaluationsRepo,
  type EvaluationRecord,
  slotsFor,
} from '../../src/storage/evaluations.repo.ts';
import { insertFollowUps, type NewCase } from '../../src/storage/follow-ups.repo.ts';
import { isStorable } from '../../src/storage/storable.ts';
import { governanceRecord } from '../helpers/audit-records.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

/**
 * The evaluation write path commits a batch in one statement: case numbers and assignment are
 * computed in SQL, and chain heads move optimistically. These tests hold that SQL to the domain's
 * rules and the chain to its links when batches fail, overlap or race another writer.
 */
describe('one-statement batch writes', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.deps.clients.create('acme', { actor: 'test' });
    await t.deps.clients.create('beta', { actor: 'test' });
    await t.deps.clients.create('gamma', { actor: 'test' });
    await t.deps.clients.create('delta', { actor: 'test' });
    await t.deps.clients.create('omega', { actor: 'test' });
  });
  after(() => t.close());

  function newCase(clientId: string, at: string): NewCase {
    return {
      id: randomUUID(),
      client_id: clientId,
      reason: 'test',
      is_str: false,
      rule_ids: [],
      evaluation_id: null,
      due_at: at,
      created_at: at,
      actor: 'test',
    };
  }

  it('assigns like picking the least-loaded officer (then name) once per case, numbers without gaps', async () => {
    const names = ['olga', 'Olga', 'bruno', 'ágnes', 'zoe', 'o'];
    let year = 2000;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...names), { minLength: 0, maxLength: 4 }),
        fc.array(fc.nat({ max: 6 }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 1, max: 9 }),
        async (officers, loads, count) => {
          year++; // a fresh counter each run: numbers start at 1
          const db = t.deps.db;
          await sql`DELETE FROM compliance_officers WHERE client_id = 'acme'`.execute(db);
          for (const [i, o] of officers.entries()) {
            await sql`INSERT INTO compliance_officers (client_id, officer) VALUES ('acme', ${o})`.execute(db);
            await sql`UPDATE compliance_officers SET open_cases = ${loads[i]!}
                       WHERE client_id = 'acme' AND officer = ${o}`.execute(db);
          }
          const expectedLoad: OfficerLoad[] = officers.map((name, i) => ({ name, openCases: loads[i]! }));
          const expected = Array.from({ length: count }, () => {
            const best = pickOfficer(expectedLoad);
            if (best) best.openCases++;
            return best?.name ?? null;
          });
          const at = `${year}-06-01T00:00:00.000Z`;
          const opened = await insertFollowUps(
            db,
            Array.from({ length: count }, () => newCase('acme', at)),
            [],
          );
          assert.deepEqual(
            opened.map((o) => o.assignee),
            expected,
          );
          assert.deepEqual(
            opened.map((o) => o.case_number),
            Array.from({ length: count }, (_, i) => formatCaseNumber(year, i + 1)),
          );
        },
      ),
      { numRuns: 30 },
    );
  });

  it('formats numbers past 999999 as the domain does', async () => {
    await sql`INSERT INTO case_counters (client_id, year, last_seq) VALUES ('beta', 2031, 999998)`.execute(
      t.deps.db,
    );
    const at = '2031-03-01T00:00:00.000Z';
    const opened = await insertFollowUps(t.deps.db, [newCase('beta', at), newCase('beta', at)], []);
    assert.deepEqual(
      opened.map((o) => o.case_number),
      [formatCaseNumber(2031, 999999), formatCaseNumber(2031, 1000000)],
    );
  });

  const chainOk = (clientId: string) => t.deps.auditChain.verify(clientId);
  const assertChainsIntact = async (...clients: string[]) => {
    for (const client of clients) {
      const report = await chainOk(client);
      assert.equal(report.ok, true, JSON.stringify(report));
    }
  };
  const storedCount = async (clientId: string) =>
    Number(
      (
        await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM evaluations WHERE client_id = ${clientId}`.execute(t.deps.db)
      ).rows[0]!.n,
    );

  it('a failed batch does not break the chain of the batches sent after it', async () => {
    const repo = createEvaluationsRepo(t.deps.database, { inOrder: t.deps.database.kind === 'pglite' });
    const at = new Date();
    const good = () => governanceRecord('acme', at);
    // A record the database refuses fails its batch, after the batches behind it were linked to it.
    const bad: EvaluationRecord = { ...governanceRecord('acme', at), evaluation_id: 'not-a-uuid' };
    const results = await Promise.allSettled([
      repo.insertBatch([good(), good()]),
      repo.insertBatch([bad, good()]),
      repo.insertBatch([good(), good(), good()]),
      repo.insertBatch([good()]),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    const report = await chainOk('acme');
    assert.equal(report.ok, true, JSON.stringify(report));
    assert.equal(await storedCount('acme'), 6);
  });

  for (const [client, perBatch] of [
    ['beta', 2],
    ['delta', 1],
  ] as const)
    it(`two writers of one client (as two instances) relink instead of forking the chain, ${perBatch} per batch`, async () => {
      let relinks = 0;
      const onRelink = () => relinks++;
      const a = createEvaluationsRepo(t.deps.database, { onRelink });
      const b = createEvaluationsRepo(t.deps.database, { onRelink });
      const at = new Date();
      const batch = () => Array.from({ length: perBatch }, () => governanceRecord(client, at));
      // First in turns, so that a relink is certain: b links to the head a left, then a links to
      // the head it knows, which b has moved on.
      await a.insertBatch(batch());
      await b.insertBatch(batch());
      await a.insertBatch(batch());
      assert.equal(relinks, 1);
      // Then racing: whichever way the writes interleave (a writer may even finish all of its
      // batches before the other starts), the chain stays one line.
      const writes: Promise<void>[] = [];
      for (let i = 0; i < 12; i++) writes.push((i % 2 === 0 ? a : b).insertBatch(batch()));
      await Promise.all(writes);
      const report = await chainOk(client);
      assert.equal(report.ok, true, JSON.stringify(report));
      const heads = await sql<{
        seq: number;
      }>`SELECT seq FROM audit_chain_heads WHERE client_id = ${client}`.execute(t.deps.db);
      assert.equal(Number(heads.rows[0]!.seq), 15 * perBatch);
    });

  // Batches of a few evaluations of one client (what an unsaturated service writes) go as rows of
  // parameters; from nine to 512, of any clients, as rows padded to a power of two; others
  // (a few of several clients, or more than 512) as JSON recordsets.

  it('a failed single evaluation does not break the chain of those sent after it', async () => {
    const repo = createEvaluationsRepo(t.deps.database, { inOrder: t.deps.database.kind === 'pglite' });
    const at = new Date();
    const good = () => governanceRecord('gamma', at);
    const bad: EvaluationRecord = { ...governanceRecord('gamma', at), evaluation_id: 'not-a-uuid' };
    const results = await Promise.allSettled([
      repo.insertBatch([good()]),
      repo.insertBatch([bad]),
      repo.insertBatch([good()]),
      repo.insertBatch([good(), good()]),
      repo.insertBatch([good()]),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled'],
    );
    const report = await chainOk('gamma');
    assert.equal(report.ok, true, JSON.stringify(report));
    assert.equal(await storedCount('gamma'), 5);
  });

  it('a single evaluation writes its window row and opens its case and alert in the same statement', async () => {
    const repo = createEvaluationsRepo(t.deps.database, { inOrder: t.deps.database.kind === 'pglite' });
    const at = new Date().toISOString();
    const record: EvaluationRecord = {
      ...governanceRecord('gamma', new Date(at)),
      trigger_type: 'transaction',
      customer_id: 'cust-1',
      customerTransaction: {
        transaction_id: 'tx-single',
        customer_id: 'cust-1',
        amount_eur: 1234.5,
        blocked: false,
      },
    };
    const opened = newCase('gamma', at);
    record.followUps = {
      case: { ...opened, evaluation_id: record.evaluation_id },
      alert: {
        id: randomUUID(),
        client_id: 'gamma',
        severity: 'high',
        source: 'evaluation',
        event: 'transaction',
        vendor_object_id: null,
        customer_id: 'cust-1',
        transaction_id: 'tx-single',
        evaluation_id: record.evaluation_id,
        case_id: opened.id,
        rule_ids: [],
        due_at: at,
        created_at: at,
        payload: null,
        headers: null,
        actor: 'test',
      },
    };
    await repo.insertBatch([record]);
    const db = t.deps.db;
    const window = await sql<{ amount_eur: number }>`
      SELECT amount_eur FROM customer_transactions WHERE client_id = 'gamma' AND transaction_id = 'tx-single'`.execute(
      db,
    );
    assert.deepEqual(
      window.rows.map((r) => Number(r.amount_eur)),
      [1234.5],
    );
    const cases = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM cases WHERE client_id = 'gamma' AND evaluation_id = ${record.evaluation_id}`.execute(
      db,
    );
    assert.equal(Number(cases.rows[0]!.n), 1);
    const alerts = await sql<{ case_id: string }>`
      SELECT case_id::text AS case_id FROM alerts WHERE client_id = 'gamma' AND evaluation_id = ${record.evaluation_id}`.execute(
      db,
    );
    assert.deepEqual(
      alerts.rows.map((r) => r.case_id),
      [opened.id],
    );
    assert.equal((await chainOk('gamma')).ok, true);
  });

  it('larger and mixed-client batches write and link like small ones', async () => {
    const repo = createEvaluationsRepo(t.deps.database, { inOrder: t.deps.database.kind === 'pglite' });
    const at = new Date();
    const many = Array.from({ length: 12 }, () => governanceRecord('omega', at));
    await repo.insertBatch(many);
    await repo.insertBatch([
      governanceRecord('omega', at),
      governanceRecord('delta', at),
      governanceRecord('omega', at),
    ]);
    await repo.insertBatch([governanceRecord('omega', at)]);
    await assertChainsIntact('omega', 'delta');
    assert.equal(await storedCount('omega'), 15);
  });

  it('slots: a batch of n goes as the next power of two of rows (at least 16), none past 512', () => {
    assert.deepEqual([9, 16, 17, 32, 33, 100, 256, 257, 512, 513, 5000].map(slotsFor), [
      16,
      16,
      32,
      32,
      64,
      128,
      256,
      512,
      512,
      undefined,
      undefined,
    ]);
  });

  it('batches past eight go as padded rows of parameters: every value stored exactly as given, whatever it holds', async () => {
    const repo = createEvaluationsRepo(t.deps.database, { inOrder: t.deps.database.kind === 'pglite' });
    // Storable text (no NUL, no lone surrogate: callers refuse those first), quotes, backslashes,
    // newlines, commas and braces included; null where a column allows it.
    const text = fc.string({ unit: 'binary', maxLength: 12 }).filter(isStorable);
    const optional = fc.option(text, { nil: null });
    const record = fc.record({
      client: fc.constantFrom('omega', 'delta'),
      entity: optional,
      customer: optional,
      ruleIds: fc.array(text, { maxLength: 3 }),
      note: text,
      amount: fc.option(fc.double({ min: 0, max: 1e9, noNaN: true }), { nil: undefined }),
      flags: fc.tuple(fc.boolean(), fc.boolean(), fc.boolean()),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 9, maxLength: 40 }), async (specs) => {
        const at = new Date();
        const records = specs.map((x): EvaluationRecord => {
          const base = governanceRecord(x.client, at);
          return {
            ...base,
            trigger_entity_id: x.entity,
            customer_id: x.customer,
            rule_ids: x.ruleIds,
            transaction_blocked: x.flags[0],
            alert_generated: x.flags[1],
            case_created: x.flags[2],
            requestJson: JSON.stringify({ note: x.note, customer: x.customer }),
            customerTransaction:
              x.amount === undefined || x.customer === null
                ? undefined
                : {
                    transaction_id: `tx-${base.evaluation_id}`,
                    customer_id: x.customer,
                    amount_eur: x.amount,
                    blocked: x.flags[0],
                  },
          };
        });
        await repo.insertBatch(records);
        const stored = await sql<{
          evaluation_id: string;
          trigger_entity_id: string | null;
          customer_id: string | null;
          rule_ids: string[];
          request: string;
          flags: boolean[];
        }>`
          SELECT evaluation_id::text AS evaluation_id, trigger_entity_id, customer_id, rule_ids,
                 request::text AS request,
                 ARRAY[transaction_blocked, alert_generated, case_created] AS flags
            FROM evaluations WHERE evaluation_id = ANY(${records.map((r) => r.evaluation_id)}::uuid[])`.execute(
          t.deps.db,
        );
        const byId = new Map(stored.rows.map((r) => [r.evaluation_id, r]));
        for (const r of records) {
          const row = byId.get(r.evaluation_id);
          assert.ok(row, `evaluation ${r.evaluation_id} stored`);
          assert.deepEqual(
            [row.trigger_entity_id, row.customer_id, row.rule_ids, row.request, row.flags],
            [
              r.trigger_entity_id,
              r.customer_id,
              r.rule_ids,
              r.requestJson,
              [r.transaction_blocked, r.alert_generated, r.case_created],
            ],
          );
        }
        const windows = records.flatMap((r) => (r.customerTransaction ? [r.customerTransaction] : []));
        const amounts = await sql<{ transaction_id: string; amount_eur: number; customer_id: string }>`
          SELECT transaction_id, amount_eur, customer_id FROM customer_transactions
           WHERE transaction_id = ANY(${windows.map((w) => w.transaction_id)}::text[])`.execute(t.deps.db);
        assert.deepEqual(
          amounts.rows
            .map((w) => [w.transaction_id, Number(w.amount_eur), w.customer_id])
            .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
          windows
            .map((w) => [w.transaction_id, w.amount_eur, w.customer_id])
            .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        );
      }),
      { numRuns: 15 },
    );
    await assertChainsIntact('omega', 'delta');
  });

  it('padded batches open their cases and alerts, up to 512; past 512 a batch goes as JSON recordsets', async () => {
    const repo = createEvaluationsRepo(t.deps.database, { inOrder: t.deps.database.kind === 'pglite' });
    const at = new Date();
    const iso = at.toISOString();
    const withCase = (client: string): EvaluationRecord => {
      const record = governanceRecord(client, at);
      const opened = { ...newCase(client, iso), evaluation_id: record.evaluation_id };
      record.followUps = {
        case: opened,
        alert: {
          id: randomUUID(),
          client_id: client,
          severity: 'high',
          source: 'evaluation',
          event: 'periodic',
          vendor_object_id: null,
          customer_id: null,
          transaction_id: null,
          evaluation_id: record.evaluation_id,
          case_id: opened.id,
          rule_ids: [],
          due_at: iso,
          created_at: iso,
          payload: null,
          headers: null,
          actor: 'test',
        },
      };
      return record;
    };
    const before = await storedCount('delta');
    const batch = [
      ...Array.from({ length: 20 }, () => governanceRecord('delta', at)),
      withCase('delta'),
      withCase('omega'),
    ];
    await repo.insertBatch(batch);
    const opened = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM cases c JOIN alerts a ON a.case_id = c.id
       WHERE c.evaluation_id = ANY(${batch.map((r) => r.evaluation_id)}::uuid[])`.execute(t.deps.db);
    assert.equal(Number(opened.rows[0]!.n), 2);
    // The largest padded statement (512 rows of 22 parameters and 512 window rows of 6), then the JSON path.
    await repo.insertBatch(Array.from({ length: 300 }, () => governanceRecord('delta', at)));
    await repo.insertBatch(Array.from({ length: 513 }, () => governanceRecord('delta', at)));
    assert.equal(await storedCount('delta'), before + 21 + 300 + 513);
    await assertChainsIntact('omega', 'delta');
  });

  it('the last of several evaluations of one transaction in a batch sets its window row', async () => {
    const repo = createEvaluationsRepo(t.deps.database, { inOrder: t.deps.database.kind === 'pglite' });
    const at = new Date();
    const of = (amount: number): EvaluationRecord => ({
      ...governanceRecord('omega', at),
      trigger_type: 'transaction',
      customer_id: 'cust-9',
      customerTransaction: {
        transaction_id: 'tx-twice',
        customer_id: 'cust-9',
        amount_eur: amount,
        blocked: false,
      },
    });
    await repo.insertBatch([of(10), of(20)]);
    await repo.insertBatch(Array.from({ length: 10 }, (_, i) => of(100 + i)));
    const window = await sql<{ amount_eur: number }>`
      SELECT amount_eur FROM customer_transactions WHERE client_id = 'omega' AND transaction_id = 'tx-twice'`.execute(
      t.deps.db,
    );
    assert.deepEqual(
      window.rows.map((r) => Number(r.amount_eur)),
      [109],
    );
  });
});
