/**
 * Tasks that share a key run one after another, in the order they asked; tasks of other keys run
 * alongside. Used to keep a customer's transactions from being decided on the same stale rolling
 * sum (MICA-CDD-002): each reads the sum only after the one before it has been committed.
 * A key's entry is removed when its last task ends, so keys do not accumulate.
 */
export function createKeyedTurns() {
  const tails = new Map<string, Promise<void>>();
  return {
    async run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key);
      let release!: () => void;
      const mine = new Promise<void>((resolve) => {
        release = resolve;
      });
      tails.set(key, mine);
      try {
        if (previous !== undefined) await previous;
        return await task();
      } finally {
        if (tails.get(key) === mine) tails.delete(key);
        release();
      }
    },
    /** Keys with a task running or waiting (for tests and metrics). */
    get size(): number {
      return tails.size;
    },
  };
}
export type KeyedTurns = ReturnType<typeof createKeyedTurns>;
