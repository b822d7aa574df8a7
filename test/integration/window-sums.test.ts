import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createEvaluationsRepo,
  type EvaluationRecord,
  type WindowLookup,
} from '../../src/storage/evaluations.repo.ts';
import { governanceRecord } from '../helpers/audit-records.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

/**
 * The rolling-window sums of MICA-CDD-002 read from the database (the store of several instances):
 * one lookup goes as plain parameters, several as one JSON recordset; both must give the same sums.
 */
describe('rolling-window sums from the database', () => {
  let t: TestApp;
  let repo: ReturnType<typeof createEvaluationsRepo>;
  const day = 86_400_000;
  const now = Date.now();

  function tx(
    customer: string,
    id: string,
    amount: number,
    ageDays: number,
    blocked = false,
  ): EvaluationRecord {
    return {
      ...governanceRecord('win', new Date(now - ageDays * day)),
      trigger_type: 'transaction',
      customer_id: customer,
      customerTransaction: { transaction_id: id, customer_id: customer, amount_eur: amount, blocked },
    };
  }

  before(async () => {
    t = await startTestApp();
    await t.deps.clients.create('win', { actor: 'test' });
    repo = createEvaluationsRepo(t.deps.database, { inOrder: t.deps.database.kind === 'pglite' });
    for (const r of [
      tx('alice', 't1', 100, 1),
      tx('alice', 't2', 250.5, 10),
      tx('alice', 't3', 999, 40), // outside a 30-day window
      tx('alice', 't4', 5000, 2, true), // blocked: never counted
      tx('bob', 't5', 70, 3),
      // Finite amounts whose sum is not: the sum must neither fail nor drop to nothing.
      tx('huge', 't6', 1.7e308, 1),
      tx('huge', 't7', 1.7e308, 2),
    ])
      await repo.insertBatch([r]);
  });
  after(() => t.close());

  const since = new Date(now - 30 * day);
  const cases: Array<[WindowLookup, number]> = [
    [{ client_id: 'win', customer_id: 'alice', since, exclude: 'none' }, 350.5],
    [{ client_id: 'win', customer_id: 'alice', since, exclude: 't2' }, 100],
    [{ client_id: 'win', customer_id: 'alice', since: new Date(now - 5 * day), exclude: 'none' }, 100],
    [{ client_id: 'win', customer_id: 'bob', since, exclude: 'none' }, 70],
    [{ client_id: 'win', customer_id: 'carol', since, exclude: 'none' }, 0],
    [{ client_id: 'other', customer_id: 'alice', since, exclude: 'none' }, 0],
  ];

  it('one lookup at a time', async () => {
    for (const [lookup, expected] of cases) assert.deepEqual(await repo.windowSums([lookup]), [expected]);
  });

  it('all lookups together, in their order', async () => {
    assert.deepEqual(
      await repo.windowSums(cases.map(([l]) => l)),
      cases.map(([, e]) => e),
    );
  });

  it('amounts whose sum exceeds the double range give a large finite sum, not an error', async () => {
    const huge: WindowLookup = { client_id: 'win', customer_id: 'huge', since, exclude: 'none' };
    for (const sums of [await repo.windowSums([huge]), await repo.windowSums([huge, cases[0]![0]])]) {
      assert.ok(Number.isFinite(sums[0]) && sums[0]! >= 1e300, String(sums[0]));
    }
  });

  it("MICA-CDD-002 still blocks after a customer's sum has passed the double range", async () => {
    const { auth } = await clientWithKey(t, 'win-e2e');
    const evaluate = async (id: string, amount: number, full: boolean) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/mica/evaluate',
        headers: auth,
        payload: {
          client_id: 'win-e2e',
          trigger_type: 'transaction',
          trigger_entity_id: id,
          data: { customer_id: 'huge', customer_verified: true, full_cdd_complete: full, amount_eur: amount },
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { should_block: boolean };
    };
    await evaluate('g1', 1.7e308, true);
    await evaluate('g2', 1.7e308, true);
    assert.equal((await evaluate('g3', 10, false)).should_block, true);
  });
});
