import { Redis } from 'ioredis';
import type { Cache } from './cache.port.ts';
import { createRedisHealth, type RedisHealth } from './redis-health.ts';

/**
 * The size bound, least recently used first, kept by the cache itself: Redis's own eviction needs
 * a maxmemory and an LRU policy on the server, and a Redis left at its defaults (maxmemory 0,
 * noeviction) never evicts anything. Two sorted sets beside the entries, shared by every instance:
 *
 * - the LRU index: every entry's key, scored by its last access (set, or a hit);
 * - the expiry index: the same keys, scored by when the entry expires.
 *
 * Times are the server's clock (TIME, in microseconds, written as exact digit strings: Lua's own
 * number formatting keeps 14 digits), so instances with skewed clocks still agree on the order.
 *
 * Entries still expire by their TTL, and Redis tells nobody. A member whose entry expired must not
 * count against the live ones: otherwise a busy cache would fill its index with the dead, and the
 * bound would evict live entries while far fewer than the bound live. LRU order alone does not
 * tell the dead from the live (an entry read just before it expired is more recent than one set
 * after it and never read). So every set first drops members whose expiry has passed (the expiry
 * index, in order), at least as many as the set would evict, before it evicts the least recently
 * used: a live entry is evicted only when no expired member is left, that is when the index holds
 * only live entries. A miss also drops its key's member. What is left is a member whose entry
 * went otherwise (deleted by hand, or by a Redis eviction policy): it is dropped at its expiry.
 *
 * The scripts delete entries that are not among their KEYS (the evicted and the expired):
 * fine on one Redis (or Valkey) server, not on a Redis Cluster.
 */

/** Score of now: TIME's seconds and microseconds as one exact integer string. */
const NOW = `
local t = redis.call('TIME')
local usec = string.rep('0', 6 - #t[2]) .. t[2]
local now = t[1] .. usec
`;

// KEYS: entry, LRU index, expiry index. A hit refreshes the entry's place; a miss drops any member
// left of it (it expired, or went otherwise), all in the one round trip of the read. The index
// updates go through pcall: they are bookkeeping, and a refused one must not fail the read. A
// Redis with a maxmemory and noeviction refuses a growing write (ZADD) when full, and with
// redis.call that error would abort the script: the read would fail (a miss) where a plain GET
// finds the value. So a read that found its value returns it, the entry's recency then not
// refreshed until Redis has room again (the entry may be evicted a little early: the bound holds).
const GET = `
local v = redis.call('GET', KEYS[1])
if v then
  ${NOW}
  redis.pcall('ZADD', KEYS[2], 'XX', now, KEYS[1])
else
  redis.pcall('ZREM', KEYS[2], KEYS[1])
  redis.pcall('ZREM', KEYS[3], KEYS[1])
end
return v
`;

// KEYS: entry, LRU index, expiry index. ARGV: value, ttl (s), bound, expired dropped per set, most
// members dropped or evicted in one call (a lowered bound is then reached over several sets rather
// than in one long script that every other instance's reads would wait behind).
const SET = `
local key, lru, exp = KEYS[1], KEYS[2], KEYS[3]
local ttl, bound = tonumber(ARGV[2]), tonumber(ARGV[3])
local sweep, most = tonumber(ARGV[4]), tonumber(ARGV[5])
${NOW}
redis.call('SET', key, ARGV[1], 'EX', ttl)
redis.call('ZADD', lru, now, key)
redis.call('ZADD', exp, (tonumber(t[1]) + ttl) .. usec, key)
-- The indexes outlive every entry they list, and no more: an unused namespace leaves nothing.
for _, index in ipairs({lru, exp}) do
  if redis.call('PTTL', index) < ttl * 1000 then redis.call('PEXPIRE', index, ttl * 1000) end
end
local over = redis.call('ZCARD', lru) - bound
local expired = redis.call('ZRANGEBYSCORE', exp, '-inf', now, 'LIMIT', 0, math.min(math.max(sweep, over), most))
for _, m in ipairs(expired) do
  redis.call('DEL', m)
  redis.call('ZREM', lru, m)
  redis.call('ZREM', exp, m)
end
over = redis.call('ZCARD', lru) - bound
if over > 0 then
  local lru_first = redis.call('ZPOPMIN', lru, math.min(over, most))
  for i = 1, #lru_first, 2 do
    redis.call('DEL', lru_first[i])
    redis.call('ZREM', exp, lru_first[i])
  end
end
return 1
`;

// KEYS: LRU index, expiry index, then the entries. Returns how many entries existed.
const DEL = `
local n = 0
for i = 3, #KEYS do
  n = n + redis.call('DEL', KEYS[i])
  redis.call('ZREM', KEYS[1], KEYS[i])
  redis.call('ZREM', KEYS[2], KEYS[i])
end
return n
`;

/** Expired members dropped by every set, beyond those it must drop to stay within the bound. */
const SWEEP = 100;
/** Most members one set drops or evicts. */
const MOST_PER_SET = 1000;

type Scripted = Redis & {
  cacheGet(key: string, lru: string, exp: string): Promise<string | null>;
  cacheSet(
    key: string,
    lru: string,
    exp: string,
    value: string,
    ttl: number,
    bound: number,
    sweep: number,
    most: number,
  ): Promise<number>;
  cacheDel(n: number, ...keys: string[]): Promise<number>;
};

/**
 * Redis-backed cache shared by every instance. Keys are namespaced so one Redis can serve several
 * services; TTLs are Redis's own (entries expire by themselves); at most `maxEntries` entries per
 * namespace, the least recently used evicted first, whichever instance used them (see above).
 */
export function createRedisCache(
  url: string,
  opts: { namespace?: string; maxEntries?: number } = {},
): Cache & { client: Redis; health: RedisHealth } {
  const ns = opts.namespace ?? 'mica:cache:';
  const bound = opts.maxEntries ?? 100_000;
  // Outside the namespace: no entry's key can be an index's, nor a prefix scan find one.
  const lruKey = `lru-index:${ns}`;
  const expKey = `lru-expiry:${ns}`;
  // commandTimeout bounds a command on a connection that went silent (a network partition).
  const client = new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: false,
    commandTimeout: 1000,
  }) as Scripted;
  // Connection errors surface as failed commands; without a listener ioredis would log them twice.
  client.on('error', () => {});
  client.defineCommand('cacheGet', { numberOfKeys: 3, lua: GET });
  client.defineCommand('cacheSet', { numberOfKeys: 3, lua: SET });
  client.defineCommand('cacheDel', { lua: DEL });
  /**
   * While Redis is away (connection lost, or not answering: redis-health.ts) a command fails at once
   * instead of waiting in ioredis's offline queue through its reconnection back-off, or for its
   * timeout: the cache is only a saving, and callers treat a failure as a miss.
   */
  const health = createRedisHealth(client, (status) => status !== 'ready');
  const ready = () => health.check();
  const watched = <T>(p: Promise<T>): Promise<T> => health.watch(p);
  /** Deletes entries (full keys) and their index members at once; how many entries existed. */
  const delKeys = (keys: string[]) => watched(client.cacheDel(keys.length + 2, lruKey, expKey, ...keys));

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
      return (await watched(client.cacheGet(ns + key, lruKey, expKey))) ?? undefined;
    },
    async set(key, value, ttlSeconds) {
      ready();
      const ttl = Math.max(1, Math.ceil(ttlSeconds));
      await watched(client.cacheSet(ns + key, lruKey, expKey, value, ttl, bound, SWEEP, MOST_PER_SET));
    },
    async del(keys) {
      if (keys.length === 0) return 0;
      ready();
      return delKeys(keys.map((k) => ns + k));
    },
    async delPrefix(prefix, suffix = '') {
      ready();
      const keys = await scan(prefix, suffix);
      let n = 0;
      for (let i = 0; i < keys.length; i += 500) n += await delKeys(keys.slice(i, i + 500));
      return n;
    },
    async usage(prefix) {
      ready();
      // The entries themselves, not the index: an expired entry is gone from the scan at once.
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
