import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createMemoryCache } from '../src/cache/memory.cache.ts';
import { createRedisCache } from '../src/cache/redis.cache.ts';
import { walletCacheKey } from '../src/services/cache-keys.ts';

/**
 * Memory of N wallet-screening cache entries in the service's own caches:
 * `node --expose-gc --import tsx bench/cache-memory.ts <entries> <answer.json>`; prints one JSON line.
 * In-process: V8 heap used after a full GC and RSS, before and after filling an LRU sized for N.
 * Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379/15): INFO used_memory before and after
 * filling, through the cache's own set (bound = N, so nothing is evicted), under a namespace
 * unique to this run: the figure includes the LRU index the cache keeps beside the entries (two
 * sorted sets), as the service would hold it. Plus MEMORY USAGE of sampled entries and of the two
 * index keys; everything is deleted at the end.
 */
const entries = Number(process.argv[2] ?? 1_000_000);
const answer = process.argv[3]
  ? readFileSync(process.argv[3], 'utf8')
  : `lists=ofac:1;vendors=\n${JSON.stringify({ risk_profile: { wallet_address: `0x${'0'.repeat(40)}` } })}`;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const ADDRESS = /0x[0-9a-f]{40}|[13][1-9A-HJ-NP-Za-km-z]{25,34}/;

/** The i-th entry: a distinct address in the key and in the value, as real entries differ. */
function entry(i: number): [string, string] {
  const address = `0x${i.toString(16).padStart(8, '0')}${randomBytes(16).toString('hex')}`;
  // Built by concatenation so that every value is its own flat string, as a JSON.stringify result is.
  const value = answer.replace(ADDRESS, address);
  return [walletCacheKey('bench', address, 'ethereum'), Buffer.from(value).toString('utf8')];
}

const mib = (b: number) => b / 2 ** 20;

async function inProcess() {
  gc!();
  const h0 = process.memoryUsage();
  const cache = createMemoryCache({ maxEntries: entries, maxBytes: Number.MAX_SAFE_INTEGER });
  for (let i = 0; i < entries; i++) {
    const [k, v] = entry(i);
    await cache.set(k, v, 300);
  }
  gc!();
  const h1 = process.memoryUsage();
  const heap = h1.heapUsed + h1.external - (h0.heapUsed + h0.external);
  const out = { heapMiB: mib(heap), rssMiB: mib(h1.rss - h0.rss), perEntryBytes: heap / entries };
  await cache.close();
  return out;
}

async function redis() {
  const url = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379/15';
  const namespace = `mica:bench-mem:${randomBytes(6).toString('hex')}:`;
  // Bound = N: every entry stays, each with its two index members, as in a full cache of N.
  const cache = createRedisCache(url, { namespace, maxEntries: entries });
  const used = async () => Number(/used_memory:(\d+)/.exec(await cache.client.info('memory'))?.[1]);
  // The cache refuses commands until the connection is ready (it is only a saving in the service).
  if (cache.client.status !== 'ready') await once(cache.client, 'ready');
  try {
    const u0 = await used();
    // A batch of sets at once: ioredis writes them back to back on its one connection, so a
    // batch costs about one round trip, as a pipeline would.
    const batch = 2000;
    for (let i = 0; i < entries; i += batch) {
      const sets: Promise<void>[] = [];
      for (let j = i; j < Math.min(entries, i + batch); j++) {
        const [k, v] = entry(j);
        sets.push(cache.set(k, v, 300));
      }
      await Promise.all(sets);
    }
    const u1 = await used();
    const sample = cache.client.pipeline();
    const keys = await cache.client.scan('0', 'MATCH', `${namespace}*`, 'COUNT', 1000);
    for (const k of keys[1].slice(0, 200)) sample.memory('USAGE', k);
    const sizes = ((await sample.exec()) ?? []).map(([, n]) => Number(n));
    // The index keys' names are the cache's own (redis.cache.ts): outside the namespace.
    const index = cache.client.pipeline();
    for (const k of [`lru-index:${namespace}`, `lru-expiry:${namespace}`]) index.memory('USAGE', k);
    const indexBytes = ((await index.exec()) ?? []).reduce((sum, [, n]) => sum + Number(n ?? 0), 0);
    return {
      usedMiB: mib(u1 - u0),
      perEntryBytes: (u1 - u0) / entries,
      sampledPerEntryBytes: sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length),
      indexMiB: mib(indexBytes),
      indexPerEntryBytes: indexBytes / entries,
    };
  } finally {
    await cache.delPrefix('');
    await cache.close();
  }
}

const memory = await inProcess();
gc();
let redisResult: Awaited<ReturnType<typeof redis>> | undefined;
let error: string | undefined;
try {
  redisResult = await redis();
} catch (e) {
  error = `redis: ${e instanceof Error ? e.message : String(e)}`;
}
process.stdout.write(
  `${JSON.stringify({ entries, valueBytes: Buffer.byteLength(answer), memory, redis: redisResult, error })}\n`,
);
process.exit(0);
