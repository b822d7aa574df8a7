import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchCell, batchesBetween, batchTotals } from '../../../bench/report.ts';
import { createMetrics } from '../../../src/observability/metrics.ts';

/** The bench reads the audit batch sizes from the service's own /metrics text. */
describe('bench: audit batch statistics', () => {
  it('reads the totals of the service’s batch-size histogram and the difference between two readings', async () => {
    const metrics = createMetrics();
    for (const size of [1, 3, 8]) metrics.auditBatchSize.observe(size);
    const first = batchTotals(await metrics.registry.metrics());
    assert.deepEqual(first, { batches: 3, evaluations: 12, upTo8: 3 });
    for (const size of [9, 40]) metrics.auditBatchSize.observe(size);
    const between = batchesBetween(first, batchTotals(await metrics.registry.metrics()));
    assert.deepEqual(between, { batches: 2, evaluations: 49, upTo8: 0 });
    assert.equal(batchCell(between), '2 batches, 24.5 evaluations each on average, 0 % of them ≤ 8');
  });

  it('reports nothing for a server without the histogram (the baseline)', () => {
    assert.equal(batchTotals(''), undefined);
    assert.equal(batchesBetween(undefined, { batches: 1, evaluations: 1, upTo8: 1 }), undefined);
    assert.equal(batchCell(undefined), 'n/a');
  });
});
