/**
 * Values loaded from the store on demand and reused for `ttlMs` from the start of their load, so a
 * change in the store (a revoked key, new client settings) is seen within `ttlMs` at most.
 *
 * Two things a plain map with expiry times did not do, which the hot path needs under load:
 * - Concurrent misses of one key share one load. Before, every request in flight when the entry
 *   expired queried the store on its own: on the embedded store, ~100 lookups one after the other
 *   behind the audit writes, every second, and a closed-loop p99 of ~1 s.
 * - A value read in the last quarter of its life is loaded again in the background while it is
 *   still served, so a key in steady use does not expire at all and no request waits for it.
 *   A value is never served past its `ttlMs`.
 *
 * `delete` and `clear` (the store changed) also discard loads in flight: a load that started
 * before the change never stores what it read. lru-cache's fetch() was not used: it either serves
 * an expired value while refreshing (allowStale) or, with its abort handling, rejects or stores
 * the result of a load that an invalidation overtook; here neither may happen.
 */
export function createTtlLookup<K, V>(opts: {
  ttlMs: number;
  load: (key: K) => Promise<V>;
  /**
   * Entries kept at most, found and not found apart; when full, the least recently read of its kind
   * goes. Keys hashed from callers' input land here: a flood of made-up API keys (not found) only
   * pushes out other unknown ones, never those in use.
   */
  maxEntries?: number;
  now?: () => number;
}) {
  const now = opts.now ?? Date.now;
  const maxEntries = opts.maxEntries ?? 10_000;
  type Entry = { value: V; until: number; refreshing: boolean };
  const found = new Map<K, Entry>();
  const notFound = new Map<K, Entry>();
  const mapOf = (value: V) => (value === undefined ? notFound : found);
  const loading = new Map<K, Promise<V>>();
  /** Bumped by every invalidation; a load from an older generation does not store its value. */
  let generation = 0;

  function start(key: K): Promise<V> {
    const began = now();
    const loadedIn = generation;
    const load = opts.load(key).then((value) => {
      if (loadedIn === generation && opts.ttlMs > 0) {
        // A Map iterates in insertion order and a read moves its entry to the end: the first is the
        // least recently read.
        found.delete(key);
        notFound.delete(key);
        const entries = mapOf(value);
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as K);
        entries.set(key, { value, until: began + opts.ttlMs, refreshing: false });
      }
      return value;
    });
    loading.set(key, load);
    const done = () => {
      if (loading.get(key) === load) loading.delete(key);
    };
    load.then(done, done);
    return load;
  }

  return {
    /** The value of `key`: cached, the load in flight, or a new load. Rejects when the load fails (nothing cached). */
    get(key: K): Promise<V> {
      const t = now();
      const entries = found.has(key) ? found : notFound;
      const hit = entries.get(key);
      if (hit && hit.until > t) {
        entries.delete(key);
        entries.set(key, hit);
        // One background reload per value: if it fails (store down), the value simply expires,
        // rather than every later read starting another load.
        if (!hit.refreshing && hit.until - t < opts.ttlMs / 4 && !loading.has(key)) {
          hit.refreshing = true;
          start(key).catch(() => {});
        }
        return Promise.resolve(hit.value);
      }
      return loading.get(key) ?? start(key);
    },
    /** Forgets one key (and every load in flight). */
    delete(key: K): void {
      found.delete(key);
      notFound.delete(key);
      loading.clear();
      generation++;
    },
    /** Forgets everything. */
    clear(): void {
      found.clear();
      notFound.clear();
      loading.clear();
      generation++;
    },
  };
}
