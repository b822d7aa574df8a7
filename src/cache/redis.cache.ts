import { Redis } from 'ioredis';
import type { Cache } from './cache.port.ts';

/**
 * Redis-backed cache shared by every instance. Keys are namespaced so one Redis can serve several
 * services; TTLs are Redis's own (entries expire by themselves), eviction is Redis's LRU policy.
 */
export function createRedisCache(url: string, opts: { namespace?: string } = {}): Cache & { client: Redis } {
  const ns = opts.namespace ?? 'mica:cache:';
  const client = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  // Connection errors surface as failed commands; without a listener ioredis would log them twice.
  client.on('error', () => {});

  async function scan(prefix: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${ns}${escapeGlob(prefix)}*`, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
    return found;
  }

  return {
    kind: 'redis',
    client,
    async get(key) {
      return (await client.get(ns + key)) ?? undefined;
    },
    async set(key, value, ttlSeconds) {
      await client.set(ns + key, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
    },
    async del(keys) {
      if (keys.length === 0) return 0;
      return client.del(...keys.map((k) => ns + k));
    },
    async delPrefix(prefix) {
      const keys = await scan(prefix);
      let n = 0;
      for (let i = 0; i < keys.length; i += 500) n += await client.del(...keys.slice(i, i + 500));
      return n;
    },
    async usage(prefix) {
      const keys = await scan(prefix);
      let bytes = 0;
      for (let i = 0; i < keys.length; i += 500) {
        const pipe = client.pipeline();
        for (const k of keys.slice(i, i + 500)) pipe.strlen(k);
        const res = (await pipe.exec()) ?? [];
        for (const [err, len] of res) if (!err) bytes += Number(len) + ns.length;
      }
      return { entries: keys.length, bytes };
    },
    async ping() {
      await client.ping();
    },
    async close() {
      client.disconnect();
    },
  };
}

function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
