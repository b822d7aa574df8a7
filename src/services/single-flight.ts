/**
 * Requests for the same thing at the same moment share one computation: the first one runs it, the
 * others wait for its answer. Used where each computation is an audited evaluation (and may open a
 * case): eight identical requests sent at once were eight evaluations and eight cases, where eight
 * sent one after another are one evaluation and seven cache hits. Within one process only; several
 * instances may each compute once.
 */
export function createSingleFlight<T>() {
  const running = new Map<string, Promise<T>>();
  return {
    /** `fn`'s answer for `key`, shared with any call for the same key still running; `shared` when it was. */
    async run(key: string, fn: () => Promise<T>): Promise<{ value: T; shared: boolean }> {
      const already = running.get(key);
      if (already) return { value: await already, shared: true };
      const started = fn();
      running.set(key, started);
      try {
        return { value: await started, shared: false };
      } finally {
        running.delete(key);
      }
    },
  };
}
