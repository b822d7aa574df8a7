import type { Cache } from '../cache/cache.port.ts';
import {
  CACHE_NAMESPACES,
  type CacheNamespace,
  cachePrefix,
  travelCacheKey,
  walletAddressPrefix,
  walletCacheKey,
  walletChainSuffix,
} from './cache-keys.ts';

/** One cache's figures as GET /api/mica/cache/stats reports them (service-spec "Cache statistics"). */
export interface CacheFigures {
  hit_rate: number;
  miss_rate: number;
  total_requests: number;
  cache_size: number;
  memory_usage_mb: number;
}

export type CacheStatsResponse = Record<CacheNamespace, CacheFigures>;

/** What POST /api/mica/cache/invalidate may select (CONTRACT §4). */
export interface InvalidateRequest {
  cache: CacheNamespace | 'all';
  wallet_address?: string;
  blockchain?: string;
  transfer_id?: string;
}

interface Counter {
  hits: number;
  misses: number;
}

const MB = 1024 * 1024;

/**
 * Hit/miss counters per client and cache, and the cache's own size. Counters live in this process
 * (since start, as the contract says): counting in Redis would add a round trip to every lookup.
 */
export function createCacheStatsService(deps: {
  cache: Pick<Cache, 'usage' | 'del' | 'delPrefix'>;
  /** Told of every lookup (the metrics' count). */
  onLookup?: (ns: CacheNamespace, hit: boolean) => void;
}) {
  const counters = new Map<string, Counter>();

  function counter(clientId: string, ns: CacheNamespace): Counter {
    const key = `${ns}:${clientId}`;
    let c = counters.get(key);
    if (!c) {
      c = { hits: 0, misses: 0 };
      counters.set(key, c);
    }
    return c;
  }

  async function figures(clientId: string, ns: CacheNamespace): Promise<CacheFigures> {
    const { hits, misses } = counter(clientId, ns);
    const total = hits + misses;
    const usage = await deps.cache.usage(cachePrefix(ns, clientId));
    return {
      hit_rate: total === 0 ? 0 : hits / total,
      miss_rate: total === 0 ? 0 : misses / total,
      total_requests: total,
      cache_size: usage.entries,
      memory_usage_mb: Math.round((usage.bytes / MB) * 1e6) / 1e6,
    };
  }

  async function invalidateWallets(clientId: string, req: InvalidateRequest): Promise<number> {
    // A transfer alone names no wallet entry: with cache "all" it leaves them alone.
    if (req.transfer_id !== undefined && req.wallet_address === undefined && req.blockchain === undefined)
      return 0;
    if (req.wallet_address === undefined)
      return deps.cache.delPrefix(
        cachePrefix('wallet_screening', clientId),
        // A chain alone selects every address screened on that chain.
        req.blockchain === undefined ? '' : walletChainSuffix(req.blockchain),
      );
    if (req.blockchain !== undefined)
      return deps.cache.del([walletCacheKey(clientId, req.wallet_address, req.blockchain)]);
    return deps.cache.delPrefix(walletAddressPrefix(clientId, req.wallet_address));
  }

  async function invalidateTransfers(clientId: string, req: InvalidateRequest): Promise<number> {
    if (req.transfer_id !== undefined) return deps.cache.del([travelCacheKey(clientId, req.transfer_id)]);
    // A selection by address or chain names no transfer: with cache "all" it leaves transfers alone.
    if (req.wallet_address !== undefined || req.blockchain !== undefined) return 0;
    return deps.cache.delPrefix(cachePrefix('travel_rule', clientId));
  }

  return {
    /** Counts one lookup of a client's cache. */
    record(clientId: string, ns: CacheNamespace, hit: boolean): void {
      const c = counter(clientId, ns);
      if (hit) c.hits++;
      else c.misses++;
      deps.onLookup?.(ns, hit);
    },

    /** The caller's client's figures for both caches. */
    async stats(clientId: string): Promise<CacheStatsResponse> {
      const [wallet, travel] = await Promise.all(CACHE_NAMESPACES.map((ns) => figures(clientId, ns)));
      return { wallet_screening: wallet as CacheFigures, travel_rule: travel as CacheFigures };
    },

    /**
     * Deletes a client's entries: a whole cache, both, or only those matching the address (and
     * chain), the chain, or the transfer given. Returns how many entries existed.
     */
    async invalidate(clientId: string, req: InvalidateRequest): Promise<number> {
      let n = 0;
      if (req.cache === 'wallet_screening' || req.cache === 'all')
        n += await invalidateWallets(clientId, req);
      if (req.cache === 'travel_rule' || req.cache === 'all') n += await invalidateTransfers(clientId, req);
      return n;
    },
  };
}
export type CacheStatsService = ReturnType<typeof createCacheStatsService>;
