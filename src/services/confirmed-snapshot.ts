/**
 * Stored reference data held in memory (the sanctions lists, the CASP directory) and kept
 * confirmed current, so that no answer rests on a copy unconfirmed for longer than `refreshMs`.
 * Once half of that has passed since the copy was last confirmed, a caller starts a check of the
 * stored version (one small query) in the background, so under traffic nobody waits; a caller that
 * finds it unconfirmed for the whole interval (after an idle spell, or while a check is slow) waits
 * for the check, and for the load of a newer version (an import through another instance or the
 * CLI). Checks used to be started without waiting for them: the first answer after an idle spell
 * came from the old copy.
 */
export function createConfirmedSnapshot<T>(deps: {
  /** Reads the whole stored data, consistent with its version. */
  load: () => Promise<T>;
  /** The stored version alone: cheap enough to ask every few seconds. */
  storedVersion: () => Promise<string | number>;
  versionOf: (held: T) => string | number;
  /** Whether `next` may replace what is held (default: always): a slow load must not undo an import. */
  replaces?: (next: T, held: T) => boolean;
  refreshMs: number;
  /** Milliseconds on a monotonic clock: a wall clock stepped back (NTP) would stop every check. */
  now?: () => number;
  /** A failed check: the held copy keeps serving, and the next caller past the interval tries again. */
  onError?: (err: unknown) => void;
}) {
  const now = deps.now ?? (() => performance.now());
  let held: T | undefined;
  let loading: Promise<T> | undefined;
  let checking: Promise<void> | undefined;
  /** When the check that confirmed `held` as the stored data began (a load counts as one). */
  let verifiedAt = 0;

  /** Holds `next` (unless it is older than what is held), confirmed as of `confirmedAt`. */
  function adopt(next: T, confirmedAt: number): T {
    if (held === undefined || (deps.replaces?.(next, held) ?? true)) held = next;
    verifiedAt = Math.max(verifiedAt, confirmedAt);
    return held;
  }

  function reload(): Promise<T> {
    loading ??= (async () => {
      const startedAt = now();
      return adopt(await deps.load(), startedAt);
    })().finally(() => {
      loading = undefined;
    });
    return loading;
  }

  async function check(): Promise<void> {
    const startedAt = now();
    try {
      const version = await deps.storedVersion();
      if (held === undefined || version !== deps.versionOf(held)) await reload();
      else verifiedAt = Math.max(verifiedAt, startedAt);
    } catch (err) {
      deps.onError?.(err);
    } finally {
      checking = undefined;
    }
  }

  return {
    /** The held copy; the first call loads it, later ones keep it confirmed (see above). */
    async current(): Promise<T> {
      if (held === undefined) return reload();
      const age = now() - verifiedAt;
      if (!checking && age >= deps.refreshMs / 2) checking = check();
      if (checking && age >= deps.refreshMs) await checking;
      return held;
    },

    /**
     * After this process committed a change: a load already under way may predate the commit, so
     * it is let finish and the data loaded again. A process that holds nothing yet (the CLI) leaves
     * the load to its first caller.
     */
    async reloadAfterCommit(): Promise<void> {
      await loading?.catch(() => undefined);
      if (held !== undefined) await reload();
    },

    adopt,
    /** What is held, without touching the store (undefined before the first load). */
    peek: (): T | undefined => held,
    now,
  };
}
