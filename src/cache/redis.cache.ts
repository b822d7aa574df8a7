import { Redis } from 'ioredis';
import type { Cache } from './cache.port.ts';
import { createRedisHealth, type RedisHealth } from './redis-health.ts';

/**
 * Redis-backed cache shared by every instance. Keys are namespaced so one Redis can serve several
 * services; TTLs are Redis's own (entries expire by themselves), eviction is Redis's LRU policy.
 */
export function createRedisCache(
  url: string,
  opts: { namespace?: string } = {},
): Cache & { client: Redis; health: RedisHealth } {
  const ns = opts.namespace ?? 'mica:cache:';
  // commandTimeout bounds a command on a connection that went silent (a network partition).
  const client = new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: false,
    commandTimeout: 1000,
  });
  // Connection errors surface as failed commands; without a listener ioredis would log them twice.
  client.on('error', () => {});
  /**
   * While Redis is away (connection lost, or not answering: redis-health.ts) a command fails at once
   * instead of waiting in ioredis's offline queue through its reconnection back-off, or for its
   * timeout: the cache is only a saving, and callers treat a failure as a miss.
   */
  const health = createRedisHealth(client, (status) => status !== 'ready');
  const ready = () => health.check();
  const watched = <T>(p: Promise<T>): Promise<T> => health.watch(p);

  async function scan(prefix: string, suffix = ''): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await watched(
        client.scan(cursor, 'MATCH', `${ns}${escapeGlob(prefix)}*${escapeGlob(suffix)}`, 'COUNT', 1000),
      );
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
    return found;
  }

  return {
    kind: 'redis',
    client,
    health,
    async get(key) {
      ready();
      return (await watched(client.get(ns + key))) ?? undefined;
    },
    async set(key, value, ttlSeconds) {
      ready();
      await watched(client.set(ns + key, value, 'EX', Math.max(1, Math.ceil(ttlSeconds))));
    },
    async del(keys) {
      if (keys.length === 0) return 0;
      ready();
      return watched(client.del(...keys.map((k) => ns + k)));
    },
    async delPrefix(prefix, suffix = '') {
      ready();
      const keys = await scan(prefix, suffix);
      let n = 0;
      for (let i = 0; i < keys.length; i += 500) n += await watched(client.del(...keys.slice(i, i + 500)));
      return n;
    },
    async usage(prefix) {
      ready();
      const keys = await scan(prefix);
      let bytes = 0;
      for (let i = 0; i < keys.length; i += 500) {
        const pipe = client.pipeline();
        for (const k of keys.slice(i, i + 500)) pipe.strlen(k);
        const res = (await watched(pipe.exec())) ?? [];
        for (const [err, len] of res) {
          // A pipeline answers a failed command as an entry: told to the health, and the figure
          // refused rather than under-reported.
          if (err) {
            health.failed(err);
            throw err;
          }
          bytes += Number(len) + ns.length;
        }
      }
      return { entries: keys.length, bytes };
    },
    async ping() {
      ready();
      await watched(client.ping());
    },
    async close() {
      client.disconnect();
    },
  };
}

function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
