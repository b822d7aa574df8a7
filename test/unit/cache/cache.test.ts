import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import type { Cache } from '../../../src/cache/cache.port.ts';
import { createMemoryCache } from '../../../src/cache/memory.cache.ts';
import { createRedisCache } from '../../../src/cache/redis.cache.ts';
import { TEST_REDIS_URL } from '../../helpers/harness.ts';

const adapters: Array<[string, () => Cache]> = [['memory', () => createMemoryCache()]];
const redisUrl = TEST_REDIS_URL;
if (redisUrl)
  adapters.push(['redis', () => createRedisCache(redisUrl, { namespace: `test:${randomUUID()}:` })]);

for (const [name, make] of adapters) {
  describe(`cache port: ${name}`, () => {
    const cache = make();
    after(() => cache.close());

    it('stores, reads and deletes', async () => {
      assert.equal(await cache.get('a'), undefined);
      await cache.set('a', 'one', 60);
      assert.equal(await cache.get('a'), 'one');
      assert.equal(await cache.del(['a', 'missing']), 1);
      assert.equal(await cache.get('a'), undefined);
    });

    it('keeps any text as it was given: multi-byte characters, long values, the empty string', async () => {
      const texts = ['Müller, Zoë — 北京 ✓ 🚀', `{"a":"${'é'.repeat(5000)}"}`, ''];
      for (const [i, text] of texts.entries()) await cache.set(`text:${i}`, text, 60);
      for (const [i, text] of texts.entries()) assert.equal(await cache.get(`text:${i}`), text);
    });

    it('expires entries after their TTL', async () => {
      await cache.set('ttl', 'x', 1);
      assert.equal(await cache.get('ttl'), 'x');
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal(await cache.get('ttl'), undefined);
    });

    it('deletes and measures by prefix, literally (no glob injection)', async () => {
      await cache.set('wallet:c1:0xabc:ethereum', 'v1', 60);
      await cache.set('wallet:c1:bc1q:bitcoin', 'v2', 60);
      await cache.set('wallet:c2:0xabc:ethereum', 'v3', 60);
      await cache.set('wallet:c*:x', 'v4', 60);
      const usage = await cache.usage('wallet:c1:');
      assert.equal(usage.entries, 2);
      assert.ok(usage.bytes > 0);
      assert.equal(await cache.delPrefix('wallet:c*'), 1);
      assert.equal(await cache.delPrefix('wallet:c1:'), 2);
      assert.equal(await cache.get('wallet:c2:0xabc:ethereum'), 'v3');
    });

    it('deletes by prefix and suffix, literally', async () => {
      await cache.set('wallet:s1:0xabc:ethereum', 'v1', 60);
      await cache.set('wallet:s1:0xdef:ethereum', 'v2', 60);
      await cache.set('wallet:s1:0xabc:binance-smart-chain', 'v3', 60);
      await cache.set('wallet:s1:x:*', 'v4', 60);
      await cache.set('wallet:s2:0xabc:ethereum', 'v5', 60);
      assert.equal(await cache.delPrefix('wallet:s1:', ':*'), 1);
      assert.equal(await cache.delPrefix('wallet:s1:', ':ethereum'), 2);
      assert.equal(await cache.get('wallet:s1:0xabc:binance-smart-chain'), 'v3');
      assert.equal(await cache.get('wallet:s2:0xabc:ethereum'), 'v5');
    });

    it('answers ping', async () => {
      await cache.ping();
    });
  });
}

describe('memory cache: measuring does not touch recency', () => {
  it('usage() leaves the eviction order as it was (the least recently used still goes first)', async () => {
    const cache = createMemoryCache({ maxEntries: 3 });
    await cache.set('w:a', '1', 60);
    await cache.set('w:b', '2', 60);
    await cache.set('w:c', '3', 60);
    // A stats call reads every entry; reading with get made them all recently used, in reverse.
    assert.deepEqual(await cache.usage('w:'), { entries: 3, bytes: 3 * (3 + 1) * 2 });
    await cache.set('w:d', '4', 60);
    assert.equal(await cache.get('w:a'), undefined, 'a, the least recently used, is evicted');
    assert.equal(await cache.get('w:b'), '2');
    assert.equal(await cache.get('w:c'), '3');
    assert.equal(await cache.get('w:d'), '4');
    await cache.close();
  });
});
