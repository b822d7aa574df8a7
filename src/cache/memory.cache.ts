import { LRUCache } from 'lru-cache';
import type { Cache } from './cache.port.ts';

/** In-process LRU with per-entry TTL; the embedded default. */
export function createMemoryCache(opts: { maxEntries?: number; maxBytes?: number } = {}): Cache {
  const lru = new LRUCache<string, string>({
    max: opts.maxEntries ?? 100_000,
    maxSize: opts.maxBytes ?? 256 * 1024 * 1024,
    sizeCalculation: (v, k) => (v.length + k.length) * 2,
    ttlAutopurge: false,
    allowStale: false,
  });
  const keysWith = (prefix: string) => [...lru.keys()].filter((k) => k.startsWith(prefix));
  return {
    kind: 'memory',
    async get(key) {
      return lru.get(key);
    },
    async set(key, value, ttlSeconds) {
      lru.set(key, value, { ttl: ttlSeconds * 1000 });
    },
    async del(keys) {
      let n = 0;
      for (const k of keys) if (lru.delete(k)) n++;
      return n;
    },
    async delPrefix(prefix, suffix = '') {
      let n = 0;
      for (const k of keysWith(prefix)) if (k.endsWith(suffix) && lru.delete(k)) n++;
      return n;
    },
    async usage(prefix) {
      let entries = 0;
      let bytes = 0;
      for (const k of keysWith(prefix)) {
        // peek, not get: get refreshes an entry's recency, so measuring would change which entry
        // is evicted next (every measured entry would become recently used).
        const v = lru.peek(k);
        if (v === undefined) continue;
        entries++;
        bytes += (k.length + v.length) * 2;
      }
      return { entries, bytes };
    },
    async ping() {},
    async close() {
      lru.clear();
    },
  };
}
