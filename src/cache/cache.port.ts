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
  ping(): Promise<void>;
  close(): Promise<void>;
}
