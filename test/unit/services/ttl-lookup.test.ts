import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTtlLookup } from '../../../src/services/ttl-lookup.ts';

/** A load that the test settles by hand, counting the calls. */
function manualLoads<V>() {
  const calls: Array<{ key: string; resolve: (v: V) => void; reject: (e: Error) => void }> = [];
  const load = (key: string) =>
    new Promise<V>((resolve, reject) => {
      calls.push({ key, resolve, reject });
    });
  return { calls, load };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ttl lookup (auth and client caches)', () => {
  it('concurrent misses of one key share one load; other keys load on their own', async () => {
    const { calls, load } = manualLoads<string>();
    const cache = createTtlLookup({ ttlMs: 1000, load, now: () => 0 });
    const waiting = Array.from({ length: 100 }, () => cache.get('k'));
    const other = cache.get('j');
    assert.deepEqual(
      calls.map((c) => c.key),
      ['k', 'j'],
    );
    calls[0]!.resolve('v');
    calls[1]!.resolve('w');
    assert.deepEqual(new Set(await Promise.all(waiting)), new Set(['v']));
    assert.equal(await other, 'w');
  });

  it('serves a value for ttlMs from the start of its load, never after', async () => {
    let t = 0;
    let n = 0;
    const cache = createTtlLookup({ ttlMs: 1000, load: async () => ++n, now: () => t });
    assert.equal(await cache.get('k'), 1);
    t = 700;
    assert.equal(await cache.get('k'), 1);
    t = 1000;
    assert.equal(await cache.get('k'), 2, 'expired at exactly ttlMs: loaded again');
  });

  it('a value read in the last quarter of its life is served and reloaded once in the background', async () => {
    let t = 0;
    const { calls, load } = manualLoads<number>();
    const cache = createTtlLookup({ ttlMs: 1000, load, now: () => t });
    const first = cache.get('k');
    calls[0]!.resolve(1);
    assert.equal(await first, 1);
    t = 800;
    assert.equal(await cache.get('k'), 1);
    assert.equal(await cache.get('k'), 1);
    assert.equal(calls.length, 2, 'one background reload, not one per read');
    calls[1]!.resolve(2);
    await tick();
    t = 1500; // past the first value's life, within the reloaded one's (loaded from t = 800)
    assert.equal(await cache.get('k'), 2);
    assert.equal(calls.length, 2);
  });

  it('a failed background reload is not retried on every read: the value is served until it expires', async () => {
    let t = 0;
    const { calls, load } = manualLoads<number>();
    const cache = createTtlLookup({ ttlMs: 1000, load, now: () => t });
    const first = cache.get('k');
    calls[0]!.resolve(1);
    await first;
    t = 800;
    assert.equal(await cache.get('k'), 1);
    calls[1]!.reject(new Error('store down'));
    await tick();
    for (let i = 0; i < 5; i++) assert.equal(await cache.get('k'), 1);
    assert.equal(calls.length, 2, 'no reload per read while the store is down');
    t = 1000;
    const expired = cache.get('k');
    assert.equal(calls.length, 3);
    calls[2]!.resolve(2);
    assert.equal(await expired, 2);
  });

  it('a failed load rejects its waiters and caches nothing; the next read loads again', async () => {
    const { calls, load } = manualLoads<number>();
    const cache = createTtlLookup({ ttlMs: 1000, load, now: () => 0 });
    const a = cache.get('k');
    const b = cache.get('k');
    calls[0]!.reject(new Error('store down'));
    await assert.rejects(a, /store down/);
    await assert.rejects(b, /store down/);
    const c = cache.get('k');
    assert.equal(calls.length, 2);
    calls[1]!.resolve(7);
    assert.equal(await c, 7);
  });

  it('after delete or clear, a load that started before never stores what it read', async () => {
    for (const invalidate of ['delete', 'clear'] as const) {
      const { calls, load } = manualLoads<string>();
      const cache = createTtlLookup({ ttlMs: 1000, load, now: () => 0 });
      const before = cache.get('k');
      if (invalidate === 'delete') cache.delete('k');
      else cache.clear();
      const after = cache.get('k');
      assert.equal(calls.length, 2, 'a read after the change does not join the older load');
      calls[0]!.resolve('old');
      calls[1]!.resolve('new');
      assert.equal(await before, 'old');
      assert.equal(await after, 'new');
      assert.equal(await cache.get('k'), 'new');
      assert.equal(calls.length, 2);
    }
  });

  it('with ttlMs 0 nothing is kept (every read after a load loads again)', async () => {
    let n = 0;
    const cache = createTtlLookup({ ttlMs: 0, load: async () => ++n, now: () => 0 });
    assert.equal(await cache.get('k'), 1);
    assert.equal(await cache.get('k'), 2);
  });

  it('when full, drops the least recently read entry: a flood of new keys does not push out those in use', async () => {
    const loads: string[] = [];
    const cache = createTtlLookup({
      ttlMs: 1000,
      load: async (k: string) => {
        loads.push(k);
        return k;
      },
      now: () => 0,
      maxEntries: 3,
    });
    await cache.get('in-use');
    for (let i = 0; i < 50; i++) {
      await cache.get(`made-up-${i}`);
      await cache.get('in-use');
    }
    assert.equal(loads.filter((k) => k === 'in-use').length, 1, 'loaded once, never pushed out');
    assert.equal(loads.length, 51);
    // Bounded: the oldest made-up keys are gone (loaded again).
    await cache.get('made-up-0');
    await cache.get('made-up-49');
    assert.deepEqual(loads.slice(51), ['made-up-0']);
  });

  it('keys not found push out only other keys not found, however many arrive between two reads', async () => {
    const loads: string[] = [];
    const cache = createTtlLookup<string, string | undefined>({
      ttlMs: 1000,
      load: async (k) => {
        loads.push(k);
        return k.startsWith('known') ? k : undefined;
      },
      now: () => 0,
      maxEntries: 3,
    });
    for (const k of ['known-1', 'known-2']) await cache.get(k);
    for (let i = 0; i < 100; i++) await cache.get(`made-up-${i}`);
    for (const k of ['known-1', 'known-2']) assert.equal(await cache.get(k), k);
    assert.equal(loads.filter((k) => k.startsWith('known')).length, 2, 'never loaded again');
    await cache.get('made-up-99');
    await cache.get('made-up-0');
    assert.deepEqual(loads.slice(102), ['made-up-0'], 'the unknown ones are bounded too');
  });
});
