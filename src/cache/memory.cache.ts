import { LRUCache } from 'lru-cache';
import type { Cache } from './cache.port.ts';

/**
 * A value as UTF-8 bytes in a buffer of its own, outside V8's heap. Entries live for minutes, so
 * as strings every one was promoted to the old generation (a screening answer, 1-3 KB with its
 * key) and only a full collection freed it: at 500 uncached screenings a second that was a large
 * share of what filled the old generation, and each full collection held the server for tens of
 * milliseconds. Unpooled (allocUnsafeSlow), so a long-lived entry does not pin one of Node's 8 KiB
 * pool slabs full of short-lived buffers.
 */
function toBytes(value: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(value, 'utf8'));
  bytes.write(value, 0, 'utf8');
  return bytes;
}

/** In-process LRU with per-entry TTL; the embedded default. */
export function createMemoryCache(opts: { maxEntries?: number; maxBytes?: number } = {}): Cache {
  const lru = new LRUCache<string, Buffer>({
    max: opts.maxEntries ?? 100_000,
    maxSize: opts.maxBytes ?? 256 * 1024 * 1024,
    sizeCalculation: (v, k) => v.length + k.length * 2,
    ttlAutopurge: false,
    allowStale: false,
  });
  const keysWith = (prefix: string) => [...lru.keys()].filter((k) => k.startsWith(prefix));
  return {
    kind: 'memory',
    async get(key) {
      return lru.get(key)?.toString('utf8');
    },
    async set(key, value, ttlSeconds) {
      lru.set(key, toBytes(value), { ttl: ttlSeconds * 1000 });
    },
    async del(keys) {
      let n = 0;
      for (const k of keys) if (lru.delete(k)) n++;
      return n;
    },
    async delPrefix(prefix) {
      let n = 0;
      for (const k of keysWith(prefix)) if (lru.delete(k)) n++;
      return n;
    },
    async usage(prefix) {
      let entries = 0;
      let bytes = 0;
      for (const k of keysWith(prefix)) {
        const v = lru.get(k);
        if (v === undefined) continue;
        entries++;
        bytes += k.length * 2 + v.length;
      }
      return { entries, bytes };
    },
    async ping() {},
    async close() {
      lru.clear();
    },
  };
}
