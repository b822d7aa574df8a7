import type { Cache } from './cache.port.ts';

/**
 * A cache that only saves work: when it is unreachable, a read is a miss and a write is dropped
 * (reported through onError), so the request is served from the source instead of failing.
 */
export function tolerantCache(
  cache: Pick<Cache, 'get' | 'set'>,
  ttlSeconds: number,
  onError?: (err: unknown) => void,
) {
  return {
    async get(key: string): Promise<string | undefined> {
      try {
        return await cache.get(key);
      } catch (err) {
        onError?.(err);
        return undefined;
      }
    },
    async set(key: string, value: string): Promise<void> {
      try {
        await cache.set(key, value, ttlSeconds);
      } catch (err) {
        onError?.(err);
      }
    },
  };
}
