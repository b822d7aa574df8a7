import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createRedisCache } from '../../../src/cache/redis.cache.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { startTestApp, TEST_REDIS_URL } from '../../helpers/harness.ts';
import { freePort } from '../../helpers/server-process.ts';

const redisUrl = process.env.TEST_REDIS_URL || TEST_REDIS_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Commands fail at once until the connection is made (the cache is only a saving). */
const waitReady = async (cache: ReturnType<typeof createRedisCache>) => {
  if (cache.client.status !== 'ready') await once(cache.client, 'ready');
};

describe('CACHE_MAX_ENTRIES', () => {
  it('defaults to the 100,000 entries of the in-process cache, and refuses less than one', () => {
    assert.equal(loadConfig({}).CACHE_MAX_ENTRIES, 100_000);
    assert.equal(loadConfig({ CACHE_MAX_ENTRIES: '250' }).CACHE_MAX_ENTRIES, 250);
    assert.throws(() => loadConfig({ CACHE_MAX_ENTRIES: '0' }), ConfigError);
  });

  it("bounds the service's cache, in process or in Redis (REDIS_URL)", async () => {
    const t = await startTestApp({ CACHE_MAX_ENTRIES: '2' });
    try {
      const { cache } = t.deps;
      if (cache.kind === 'redis') await waitReady(cache as ReturnType<typeof createRedisCache>);
      const keys = ['1', '2', '3'].map((i) => `bound-test:${randomUUID()}:${i}`);
      for (const k of keys) await cache.set(k, 'v', 60);
      const left = [];
      for (const k of keys) if ((await cache.get(k)) !== undefined) left.push(k);
      assert.deepEqual(left, keys.slice(1));
      await cache.del(keys);
    } finally {
      await t.close();
    }
  });
});

// Each test its own namespace: a service instance is a cache over its own ioredis client, so two
// caches of one namespace are two instances sharing one Redis cache.
describe('redis cache: size bound, least recently used first', {
  skip: !redisUrl && 'REDIS_URL not set',
}, () => {
  const opened: Array<ReturnType<typeof createRedisCache>> = [];
  const open = async (namespace: string, maxEntries: number) => {
    const cache = createRedisCache(redisUrl as string, { namespace, maxEntries });
    opened.push(cache);
    await waitReady(cache);
    return cache;
  };
  const namespace = () => `test:lru:${randomUUID()}:`;
  after(async () => {
    for (const c of opened) {
      await c.delPrefix('').catch(() => {});
      await c.close();
    }
  });
  /** Which of the keys are still cached. */
  const present = async (cache: ReturnType<typeof createRedisCache>, keys: string[]) => {
    const found: string[] = [];
    for (const k of keys) if ((await cache.get(k)) !== undefined) found.push(k);
    return found;
  };

  it('holds no more entries than the bound, on a Redis that never evicts by itself', async () => {
    const cache = await open(namespace(), 5);
    for (let i = 0; i < 20; i++) await cache.set(`k:${i}`, `v${i}`, 60);
    assert.equal((await cache.usage('')).entries, 5);
    // The most recent five are the ones left.
    const keys = Array.from({ length: 20 }, (_, i) => `k:${i}`);
    assert.deepEqual(await present(cache, keys), keys.slice(15));
  });

  it('evicts the least recently used entry first: a read refreshes an entry', async () => {
    const cache = await open(namespace(), 3);
    await cache.set('a', '1', 60);
    await cache.set('b', '2', 60);
    await cache.set('c', '3', 60);
    assert.equal(await cache.get('a'), '1'); // now b is the least recently used
    await cache.set('d', '4', 60);
    assert.deepEqual(await present(cache, ['a', 'b', 'c', 'd']), ['a', 'c', 'd']);
    // Setting an entry again refreshes it too, and does not count it twice.
    await cache.set('c', '3!', 60);
    await cache.set('e', '5', 60); // a is now the oldest (the reads above went a, c, d)
    assert.deepEqual(await present(cache, ['a', 'c', 'd', 'e']), ['c', 'd', 'e']);
    assert.equal((await cache.usage('')).entries, 3);
  });

  it('two instances share one bound and one order', async () => {
    const ns = namespace();
    const one = await open(ns, 4);
    const two = await open(ns, 4);
    await one.set('a', '1', 60);
    await one.set('b', '2', 60);
    await two.set('c', '3', 60);
    await two.set('d', '4', 60);
    assert.equal(await two.get('a'), '1'); // read by the other instance: a is recent again
    await one.set('e', '5', 60);
    for (const cache of [one, two]) {
      assert.deepEqual(await present(cache, ['a', 'b', 'c', 'd', 'e']), ['a', 'c', 'd', 'e']);
      assert.equal((await cache.usage('')).entries, 4);
    }
  });

  it('del and delPrefix free their places: deleted entries are not counted nor evicted later', async () => {
    const cache = await open(namespace(), 3);
    await cache.set('x:b', '2', 60);
    await cache.set('x:c', '3', 60);
    await cache.set('x:a', '1', 60); // the most recent
    assert.equal(await cache.del(['x:a']), 1);
    await cache.set('x:d', '4', 60);
    // Three places and three entries: nothing evicted (a left-over x:a would have pushed x:b out).
    assert.deepEqual(await present(cache, ['x:a', 'x:b', 'x:c', 'x:d']), ['x:b', 'x:c', 'x:d']);

    await cache.set('p:1', 'p', 60); // x:b evicted
    await cache.set('p:2', 'p', 60); // x:c evicted
    assert.deepEqual(await present(cache, ['x:d', 'p:1', 'p:2']), ['x:d', 'p:1', 'p:2']);
    assert.equal(await cache.delPrefix('p:'), 2);
    await cache.set('y:1', 'y', 60);
    await cache.set('y:2', 'y', 60);
    assert.deepEqual(await present(cache, ['x:d', 'y:1', 'y:2']), ['x:d', 'y:1', 'y:2']);
    assert.equal((await cache.usage('')).entries, 3);
  });

  it('expired entries do not count against live ones, even when read just before they expired', async () => {
    const ns = namespace();
    const cache = await open(ns, 3);
    await cache.set('live', 'l', 60);
    await cache.set('short:1', 's', 1);
    await cache.set('short:2', 's', 1);
    // Read last: more recent than 'live', which was set before them and never read.
    assert.equal(await cache.get('short:1'), 's');
    assert.equal(await cache.get('short:2'), 's');
    await sleep(1100);
    await cache.set('new:1', 'n', 60);
    await cache.set('new:2', 'n', 60);
    assert.deepEqual(await present(cache, ['live', 'new:1', 'new:2']), ['live', 'new:1', 'new:2']);
    assert.equal((await cache.usage('')).entries, 3);
    // And the bound still holds over the live: the least recently read of them goes.
    await cache.set('new:3', 'n', 60);
    assert.deepEqual(await present(cache, ['live', 'new:1', 'new:2', 'new:3']), ['new:1', 'new:2', 'new:3']);
  });

  it('the index of a busy cache does not keep the expired: it holds the live entries only', async () => {
    const ns = namespace();
    const cache = await open(ns, 1000);
    const indexed = async () => [
      await cache.client.zcard(`lru-index:${ns}`),
      await cache.client.zcard(`lru-expiry:${ns}`),
    ];
    await cache.set('anchor', 'a', 60);
    for (let i = 0; i < 60; i++) await cache.set(`gone:${i}`, 'g', 1);
    await sleep(1100);
    // A miss drops the member of its expired entry at once.
    assert.equal(await cache.get('gone:0'), undefined);
    assert.deepEqual(await indexed(), [60, 60]);
    // A set drops the others.
    await cache.set('kept', 'k', 60);
    assert.deepEqual(await indexed(), [2, 2]);
    // The index lives no longer than its entries: an abandoned namespace leaves nothing behind.
    const ttl = await cache.client.pttl(`lru-index:${ns}`);
    assert.ok(ttl > 0 && ttl <= 60_000, String(ttl));
  });
});

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

// A Redis of this test's own (its maxmemory is changed: never the shared one's).
describe('redis cache on a full Redis (maxmemory, noeviction)', {
  skip: !hasRedisServer && 'redis-server not installed',
}, () => {
  it('a read that finds its value returns it, though Redis refuses the index update', async () => {
    const port = await freePort();
    const server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const url = `redis://127.0.0.1:${port}/0`;
    // Retried until the server listens: the ping waits in the offline queue meanwhile.
    const admin = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: () => 50 });
    admin.on('error', () => {});
    let cache: ReturnType<typeof createRedisCache> | undefined;
    try {
      await admin.ping();
      cache = createRedisCache(url, { namespace: 'test:oom:', maxEntries: 100 });
      await waitReady(cache);
      await cache.set('kept', 'value', 60);
      // Fill it past a maxmemory set below what it uses: every growing write is now refused.
      await admin.set('filler', 'x'.repeat(2 * 1024 * 1024));
      const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.config('SET', 'maxmemory', String(used - 1024 * 1024));
      await assert.rejects(admin.zadd('probe', 1, 'm'), /OOM/, 'Redis is full');
      // The hit's ZADD is refused; the read still answers the value it found.
      assert.equal(await cache.get('kept'), 'value');
      assert.equal(await cache.get('kept'), 'value');
      // A miss answers a miss (its index clean-up is no growing write, and may not fail the read either).
      assert.equal(await cache.get('absent'), undefined);
    } finally {
      cache?.close();
      admin.disconnect();
      server.kill();
      await once(server, 'exit').catch(() => {});
    }
  });
});
