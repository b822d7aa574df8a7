import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAuditWriter } from '../../../src/storage/audit-writer.ts';
import type { EvaluationRecord } from '../../../src/storage/evaluations.repo.ts';

const rec = (id: string) => ({ evaluation_id: id }) as EvaluationRecord;

function controllableStore() {
  const batches: string[][] = [];
  const gates: Array<() => void> = [];
  let failIds = new Set<string>();
  return {
    batches,
    release: () => gates.shift()?.(),
    failOn: (ids: string[]) => {
      failIds = new Set(ids);
    },
    insertBatch: (records: EvaluationRecord[]) =>
      new Promise<void>((resolve, reject) => {
        batches.push(records.map((r) => r.evaluation_id));
        gates.push(() =>
          records.some((r) => failIds.has(r.evaluation_id)) ? reject(new Error('boom')) : resolve(),
        );
      }),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('group-commit audit writer', () => {
  it('flushes at once when idle: no added wait', async () => {
    const store = controllableStore();
    const w = createAuditWriter({ insertBatch: store.insertBatch, maxBatch: 10, maxInFlight: 1 });
    const p = w.write(rec('a'));
    assert.deepEqual(store.batches, [['a']], 'written synchronously on arrival');
    store.release();
    await p;
  });

  it('writes that arrive during a flush share the next transaction', async () => {
    const store = controllableStore();
    const w = createAuditWriter({ insertBatch: store.insertBatch, maxBatch: 3, maxInFlight: 1 });
    let settled = 0;
    const all = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => w.write(rec(id)).then(() => settled++));
    assert.deepEqual(store.batches, [['a']]);
    await tick();
    assert.equal(settled, 0, 'nothing settles before its commit');
    store.release();
    await tick();
    assert.deepEqual(store.batches, [['a'], ['b', 'c', 'd']], 'batch capped at maxBatch');
    assert.equal(settled, 1);
    store.release();
    await tick();
    store.release();
    await Promise.all(all);
    assert.deepEqual(store.batches, [['a'], ['b', 'c', 'd'], ['e', 'f']]);
    assert.equal(w.stats().maxBatch, 3);
  });

  it('a failing record fails alone: its batch is retried one by one', async () => {
    const store = controllableStore();
    const w = createAuditWriter({ insertBatch: store.insertBatch, maxBatch: 10, maxInFlight: 1 });
    store.failOn(['bad']);
    const first = w.write(rec('x'));
    const ps = ['ok1', 'bad', 'ok2'].map((id) =>
      w.write(rec(id)).then(
        () => 'ok',
        () => 'failed',
      ),
    );
    store.release();
    await first;
    for (let i = 0; i < 4; i++) {
      await tick();
      store.release();
    }
    assert.deepEqual(await Promise.all(ps), ['ok', 'failed', 'ok']);
  });

  it('close waits for every accepted write and refuses new ones', async () => {
    const store = controllableStore();
    const w = createAuditWriter({ insertBatch: store.insertBatch, maxBatch: 10, maxInFlight: 2 });
    const p = w.write(rec('a'));
    let closed = false;
    const c = w.close().then(() => {
      closed = true;
    });
    await tick();
    assert.equal(closed, false);
    await assert.rejects(w.write(rec('late')));
    store.release();
    await p;
    await c;
    assert.equal(closed, true);
  });
});
