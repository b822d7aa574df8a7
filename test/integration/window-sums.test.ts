import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createEvaluationsRepo,
  type EvaluationRecord,
  type WindowLookup,
} from '../../src/storage/evaluations.repo.ts';
import { governanceRecord } from '../helpers/audit-records.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

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
});
