/** The cache port: one interface for the in-process LRU and for Redis (shared by instances). */
export interface Cache {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Deletes the given keys; returns how many existed. */
  del(keys: string[]): Promise<number>;
  /** Deletes every key starting with the prefix (and ending with the suffix); returns how many existed. */
  delPrefix(prefix: string, suffix?: string): Promise<number>;
  /** Entries and their estimated bytes under a prefix. */
  usage(prefix: string): Promise<{ entries: number; bytes: number }>;
  /**
   * Adds 1 to a counter of a named set of counters (kept apart from the entries: never listed,
   * counted in usage or deleted with them); with Redis shared by the instances.
   */
  increment(counters: string, field: string): Promise<void>;
  /** The counters of a set: {} when none was counted. */
  counters(counters: string): Promise<Record<string, number>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
