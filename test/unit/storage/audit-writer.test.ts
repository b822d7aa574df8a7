import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAuditWriter } from '../../../src/storage/audit-writer.ts';
import type { EvaluationRecord } from '../../../src/storage/evaluations.repo.ts';

const rec = (id: string) => ({ evaluation_id: id }) as EvaluationRecord;

function controllableStore() {
  const batches: string[][] = [];
  const gates: Array<() => void> = [];
  let failIds = new Set<string>();
  let failure = () => new Error('boom');
  return {
    batches,
    release: () => gates.shift()?.(),
    failOn: (ids: string[], error?: () => Error) => {
      failIds = new Set(ids);
      if (error) failure = error;
    },
    insertBatch: (records: EvaluationRecord[]) =>
      new Promise<void>((resolve, reject) => {
        batches.push(records.map((r) => r.evaluation_id));
        gates.push(() => (records.some((r) => failIds.has(r.evaluation_id)) ? reject(failure()) : resolve()));
      }),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

/** Turns the event loop until a condition holds (bounded). */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !cond(); i++) await tick();
  assert.ok(cond(), 'condition reached');
}

describe('group-commit audit writer', () => {
  it('flushes on the next turn of the event loop when idle: no timer, no added wait', async () => {
    const store = controllableStore();
    const w = createAuditWriter({ insertBatch: store.insertBatch, maxBatch: 10, maxInFlight: 1 });
    const p = w.write(rec('a'));
    await tick();
    assert.deepEqual(store.batches, [['a']], 'flushed right after the current turn');
    store.release();
    await p;
  });

  it('writes of the same turn go together', async () => {
    const store = controllableStore();
    const w = createAuditWriter({ insertBatch: store.insertBatch, maxBatch: 10, maxInFlight: 1 });
    const ps = ['a', 'b', 'c'].map((id) => w.write(rec(id)));
    await tick();
    assert.deepEqual(store.batches, [['a', 'b', 'c']]);
    store.release();
    await Promise.all(ps);
  });

  it('writes that arrive during a flush share the next transaction, capped at maxBatch', async () => {
    const store = controllableStore();
    const w = createAuditWriter({ insertBatch: store.insertBatch, maxBatch: 3, maxInFlight: 1 });
    let settled = 0;
    const all = [w.write(rec('a')).then(() => settled++)];
    await until(() => store.batches.length === 1);
    for (const id of ['b', 'c', 'd', 'e', 'f']) all.push(w.write(rec(id)).then(() => settled++));
    await tick();
    assert.deepEqual(store.batches, [['a']], 'one flush at a time');
    assert.equal(settled, 0, 'nothing settles before its commit');
    store.release();
    await until(() => store.batches.length === 2);
    assert.deepEqual(store.batches[1], ['b', 'c', 'd']);
    assert.equal(settled, 1);
    store.release();
    await until(() => store.batches.length === 3);
    store.release();
    await Promise.all(all);
    assert.deepEqual(store.batches, [['a'], ['b', 'c', 'd'], ['e', 'f']]);
    assert.equal(w.stats().maxBatch, 3);
  });

  it('a second flush goes in flight only once enough writes wait for the first', async () => {
    const store = controllableStore();
    const w = createAuditWriter({
      insertBatch: store.insertBatch,
      maxBatch: 10,
      maxInFlight: 2,
      minQueueForExtraFlush: 3,
    });
    const all = [w.write(rec('a'))];
    await until(() => store.batches.length === 1);
    all.push(w.write(rec('b')), w.write(rec('c')));
    await tick();
    await tick();
    assert.deepEqual(store.batches, [['a']], 'two waiting writes wait for the flush in flight');
    all.push(w.write(rec('d')));
    await until(() => store.batches.length === 2);
    assert.deepEqual(store.batches[1], ['b', 'c', 'd'], 'the third opens the second flush');
    store.release();
    store.release();
    await Promise.all(all);
  });

  it('a failing record fails alone: its batch is retried one by one', async () => {
    const store = controllableStore();
    const w = createAuditWriter({ insertBatch: store.insertBatch, maxBatch: 10, maxInFlight: 1 });
    store.failOn(['bad']);
    const outcomes = ['ok1', 'bad', 'ok2'].map((id) =>
      w.write(rec(id)).then(
        () => 'ok',
        () => 'failed',
      ),
    );
    // The batch of three fails, then each record is tried alone.
    for (let released = 0; released < 4; released++) {
      await until(() => store.batches.length > released);
      store.release();
    }
    assert.deepEqual(await Promise.all(outcomes), ['ok', 'failed', 'ok']);
    assert.deepEqual(store.batches, [['ok1', 'bad', 'ok2'], ['ok1'], ['bad'], ['ok2']]);
  });

  it('a batch cut off with the store is not written again: its outcome is unknown, every caller gets its error', async () => {
    const store = controllableStore();
    const w = createAuditWriter({ insertBatch: store.insertBatch, maxBatch: 10, maxInFlight: 1 });
    const cut = new Error('Connection terminated unexpectedly');
    store.failOn(['a'], () => cut);
    const outcomes = ['a', 'b', 'c'].map((id) =>
      w.write(rec(id)).then(
        () => 'ok',
        (e) => e,
      ),
    );
    await until(() => store.batches.length === 1);
    store.release();
    assert.deepEqual(await Promise.all(outcomes), [cut, cut, cut]);
    assert.deepEqual(store.batches, [['a', 'b', 'c']], 'no record sent again');
  });

  it('close waits for every accepted write and refuses new ones', async () => {
    const store = controllableStore();
    const w = createAuditWriter({ insertBatch: store.insertBatch, maxBatch: 10, maxInFlight: 2 });
    const p = w.write(rec('a'));
    let closed = false;
    const c = w.close().then(() => {
      closed = true;
    });
    await until(() => store.batches.length === 1);
    assert.equal(closed, false);
    await assert.rejects(w.write(rec('late')));
    store.release();
    await p;
    await c;
    assert.equal(closed, true);
  });
});
