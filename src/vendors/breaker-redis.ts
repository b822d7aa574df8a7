import { Redis } from 'ioredis';
import { createRedisHealth } from '../cache/redis-health.ts';
import { type BreakerRecord, type BreakerStore, newRecord } from './breaker.ts';

// The transitions of breaker.ts (admit, settle) as Lua scripts, so that several instances share
// one breaker per vendor and each transition is atomic. A record is a hash: open (0/1), failures,
// successes, last_failure, opened_at, trial_at (epoch ms). Times come from the caller's clock.

const ADMIT_ALL = `
local now = tonumber(ARGV[1])
local recovery = tonumber(ARGV[2])
local trials = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('HMGET', key, 'open', 'opened_at', 'trial_at')
  if v[1] == '1' then
    if now - (tonumber(v[2]) or 0) < recovery then return {0, i, 'OPEN'} end
    local trial = tonumber(v[3]) or 0
    if trial > 0 and now - trial < recovery then return {0, i, 'HALF_OPEN'} end
    trials[#trials + 1] = i
  end
end
local out = {1}
for i = 1, #KEYS do out[i + 1] = 0 end
for _, i in ipairs(trials) do
  redis.call('HSET', KEYS[i], 'trial_at', ARGV[1])
  out[i + 1] = 1
end
return out
`;

const SETTLE = `
local key = KEYS[1]
local outcome, trial, now = ARGV[1], ARGV[2] == '1', ARGV[3]
local threshold, ttl = tonumber(ARGV[4]), tonumber(ARGV[5])
local v = redis.call('HMGET', key, 'open', 'failures')
local open = v[1] == '1'
local failures = tonumber(v[2]) or 0
if outcome == 'success' then
  redis.call('HINCRBY', key, 'successes', 1)
  if not open then
    redis.call('HSET', key, 'failures', 0)
  elseif trial then
    redis.call('HSET', key, 'open', 0, 'failures', 0, 'trial_at', 0)
  end
elseif outcome == 'failure' then
  failures = failures + 1
  redis.call('HSET', key, 'failures', failures, 'last_failure', now)
  if not open and failures >= threshold then
    redis.call('HSET', key, 'open', 1, 'opened_at', now, 'trial_at', 0)
  elseif open and trial then
    redis.call('HSET', key, 'opened_at', now)
  end
end
redis.call('PEXPIRE', key, ttl)
return 1
`;

const LOST = new Set(['reconnecting', 'close', 'end']);

/** Records idle this long are dropped (a breaker untouched for a day starts afresh). */
const TTL_MS = 24 * 3600 * 1000;

type Scripted = Redis & {
  breakerAdmitAll(...args: Array<string | number>): Promise<Array<number | string>>;
  breakerSettle(...args: Array<string | number>): Promise<number>;
};

/** Breaker records in Redis, shared by every instance that uses the same Redis and vendor URL. */
export function createRedisBreakerStore(url: string): BreakerStore {
  // commandTimeout bounds a command on a connection gone silent; `ready` below fails a command at
  // once while Redis is away, rather than queueing it through ioredis's reconnection back-off
  // (seconds per screening): the caller then keeps its breakers in process (breaker-fallback.ts).
  const client = new Redis(url, {
    maxRetriesPerRequest: 2,
    lazyConnect: false,
    commandTimeout: 1000,
  }) as Scripted;
  // Only a lost connection fails at once: while the first connection is being made, commands wait
  // for it, so that instances starting together share their breakers from the first screening.
  // A Redis that stops answering on an open connection is held away after one timeout
  // (redis-health.ts), so screenings do not each wait for it.
  const health = createRedisHealth(client, (status) => LOST.has(status));
  const ready = () => health.check();
  const watched = <T>(p: Promise<T>): Promise<T> => health.watch(p);
  // Errors surface as failed commands; without a listener ioredis would also log them.
  client.on('error', () => {});
  client.defineCommand('breakerAdmitAll', { lua: ADMIT_ALL });
  client.defineCommand('breakerSettle', { numberOfKeys: 1, lua: SETTLE });

  return {
    async admitAll(keys, now, opts) {
      ready();
      const res = await watched(client.breakerAdmitAll(keys.length, ...keys, now, opts.recoveryMs));
      if (Number(res[0]) === 1) return { ok: true, trials: keys.map((_, i) => Number(res[i + 1]) === 1) };
      return { ok: false, index: Number(res[1]) - 1, state: res[2] === 'OPEN' ? 'OPEN' : 'HALF_OPEN' };
    },
    async settle(key, outcome, trial, now, opts) {
      ready();
      await watched(
        client.breakerSettle(key, outcome, trial ? '1' : '0', now, opts.failureThreshold, TTL_MS),
      );
    },
    async read(keys) {
      ready();
      const pipe = client.pipeline();
      for (const k of keys) pipe.hgetall(k);
      const res = (await watched(pipe.exec())) ?? [];
      // A pipeline answers a timed-out command as an entry, not a rejection: told to the health here.
      for (const [err] of res) if (err) health.failed(err);
      return res.map(([err, h]): BreakerRecord => {
        if (err) throw err;
        const v = h as Record<string, string>;
        if (!v || Object.keys(v).length === 0) return newRecord();
        const n = (f: string) => Number(v[f] ?? 0) || 0;
        return {
          open: v.open === '1',
          failures: n('failures'),
          successes: n('successes'),
          lastFailure: n('last_failure'),
          openedAt: n('opened_at'),
          trialAt: n('trial_at'),
        };
      });
    },
    async close() {
      client.disconnect();
    },
  };
}
