// Per-vendor circuit breaker with the spec's semantics (service-spec "Limits", CONTRACT §7):
// CLOSED → OPEN after `failureThreshold` consecutive failures; OPEN fails fast; as soon as
// `recoveryMs` have passed since it opened it reads HALF_OPEN and lets one test request through
// per `recoveryMs`: success → CLOSED, failure → OPEN again. A failed call counts once.
//
// The state lives in a store: in process memory, or in Redis so that several instances share it
// (breaker-redis.ts runs the same transitions as Lua scripts). The store is only ever given whole
// transitions, so a transition is atomic wherever the state lives.

export type BreakerState = 'CLOSED' | 'OPEN' | 'HALF_OPEN';
/** What a finished call means to the breaker; `neutral`: the vendor answered but refused (a 4xx). */
export type CallOutcome = 'success' | 'failure' | 'neutral';

export interface BreakerOptions {
  failureThreshold: number;
  recoveryMs: number;
}

/** The stored state of one breaker (times in epoch milliseconds, 0 = never). */
export interface BreakerRecord {
  open: boolean;
  failures: number;
  successes: number;
  lastFailure: number;
  openedAt: number;
  trialAt: number;
}

/** What the status endpoint shows. */
export interface BreakerStatus {
  state: BreakerState;
  failures: number;
  successes: number;
  last_failure: string | null;
}

export type Admission = { ok: true; trials: boolean[] } | { ok: false; index: number; state: BreakerState };

/** Where breaker records live; every method applies whole transitions atomically. */
export interface BreakerStore {
  /** Admits a call to every key, or to none: the first key that refuses is reported. */
  admitAll(keys: string[], now: number, opts: BreakerOptions): Promise<Admission>;
  settle(key: string, outcome: CallOutcome, trial: boolean, now: number, opts: BreakerOptions): Promise<void>;
  read(keys: string[]): Promise<BreakerRecord[]>;
  close(): Promise<void>;
}

export const newRecord = (): BreakerRecord => ({
  open: false,
  failures: 0,
  successes: 0,
  lastFailure: 0,
  openedAt: 0,
  trialAt: 0,
});

/** The state a breaker reads at `now`: HALF_OPEN as soon as the recovery time has passed. */
export function stateAt(r: BreakerRecord, now: number, opts: BreakerOptions): BreakerState {
  if (!r.open) return 'CLOSED';
  return now - r.openedAt >= opts.recoveryMs ? 'HALF_OPEN' : 'OPEN';
}

/** Whether a call may go now, and whether it is the half-open test request. */
export function admit(
  r: BreakerRecord,
  now: number,
  opts: BreakerOptions,
): { allowed: true; trial: boolean } | { allowed: false; state: BreakerState } {
  const state = stateAt(r, now, opts);
  if (state === 'CLOSED') return { allowed: true, trial: false };
  if (state === 'OPEN') return { allowed: false, state };
  // One test request per recovery period; a test that never reported back frees the slot then.
  if (r.trialAt > 0 && now - r.trialAt < opts.recoveryMs) return { allowed: false, state };
  return { allowed: true, trial: true };
}

/** The record after a call finished. Late results of calls admitted before opening only count. */
export function settle(
  r: BreakerRecord,
  outcome: CallOutcome,
  trial: boolean,
  now: number,
  opts: BreakerOptions,
): BreakerRecord {
  const n = { ...r };
  if (outcome === 'success') {
    n.successes++;
    if (!r.open) n.failures = 0;
    else if (trial) Object.assign(n, { open: false, failures: 0, trialAt: 0 });
  } else if (outcome === 'failure') {
    n.failures++;
    n.lastFailure = now;
    if (!r.open && n.failures >= opts.failureThreshold)
      Object.assign(n, { open: true, openedAt: now, trialAt: 0 });
    else if (r.open && trial) n.openedAt = now;
  }
  return n;
}

/** Breaker records in process memory: one instance's own view. */
export function createMemoryBreakerStore(): BreakerStore {
  const records = new Map<string, BreakerRecord>();
  const get = (key: string) => records.get(key) ?? newRecord();
  return {
    async admitAll(keys, now, opts) {
      const trials: boolean[] = [];
      for (const [index, key] of keys.entries()) {
        const a = admit(get(key), now, opts);
        if (!a.allowed) return { ok: false, index, state: a.state };
        trials.push(a.trial);
      }
      keys.forEach((key, i) => {
        if (trials[i]) records.set(key, { ...get(key), trialAt: now });
      });
      return { ok: true, trials };
    },
    async settle(key, outcome, trial, now, opts) {
      records.set(key, settle(get(key), outcome, trial, now, opts));
    },
    async read(keys) {
      return keys.map(get);
    },
    async close() {},
  };
}

/** A call admitted through a breaker; settle it exactly once. */
export interface Permit<N extends string = string> {
  name: N;
  trial: boolean;
}

/** Thrown when a breaker refuses a call (the vendor is not called). */
export class BreakerOpenError extends Error {
  constructor(
    readonly vendor: string,
    readonly state: BreakerState,
  ) {
    super(`${vendor} circuit breaker is ${state}`);
  }
}

/** The breakers of a set of named vendors over one store. */
export function createBreakers<N extends string>(deps: {
  names: readonly N[];
  /** Store key of a vendor's breaker. */
  keyOf: (name: N) => string;
  store: BreakerStore;
  options: BreakerOptions;
  now?: () => number;
  onError?: (err: unknown) => void;
}) {
  const now = deps.now ?? Date.now;
  return {
    options: deps.options,
    /** Admits one call to each named vendor, or throws BreakerOpenError naming the first that refuses. */
    async admit(names: readonly N[]): Promise<Permit<N>[]> {
      if (names.length === 0) return [];
      const result = await deps.store.admitAll(names.map(deps.keyOf), now(), deps.options);
      if (!result.ok) throw new BreakerOpenError(names[result.index]!, result.state);
      return names.map((name, i) => ({ name, trial: result.trials[i] === true }));
    },
    /** Records how an admitted call ended; a store failure is reported, never thrown at the caller. */
    async settle(permit: Permit<N>, outcome: CallOutcome): Promise<void> {
      try {
        await deps.store.settle(deps.keyOf(permit.name), outcome, permit.trial, now(), deps.options);
      } catch (err) {
        deps.onError?.(err);
      }
    },
    /** The current state and counters of every breaker. */
    async status(): Promise<Record<N, BreakerStatus>> {
      const records = await deps.store.read(deps.names.map(deps.keyOf));
      const at = now();
      const out = {} as Record<N, BreakerStatus>;
      deps.names.forEach((name, i) => {
        const r = records[i] ?? newRecord();
        out[name] = {
          state: stateAt(r, at, deps.options),
          failures: r.failures,
          successes: r.successes,
          last_failure: r.lastFailure > 0 ? new Date(r.lastFailure).toISOString() : null,
        };
      });
      return out;
    },
    close: () => deps.store.close(),
  };
}
export type Breakers<N extends string = string> = ReturnType<typeof createBreakers<N>>;
