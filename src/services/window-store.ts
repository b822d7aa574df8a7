import { MAX_CUMULATIVE_WINDOW_DAYS } from '../domain/rules/settings.ts';
import type { WindowLookup } from '../storage/evaluations.repo.ts';
import { createGroupCommit } from '../storage/group-commit.ts';

/** A transaction as counted in its customer's rolling window (MICA-CDD-002). */
export interface WindowTransaction {
  client_id: string;
  transaction_id: string;
  customer_id: string;
  amount_eur: number;
  evaluated_at: Date;
  blocked: boolean;
}

/** Where the rolling sums come from: the database, or (single-writer store) memory. */
export interface WindowStore {
  /** Sum of the customer's non-blocked transactions after `since`, leaving out one transaction id. */
  priorSum(clientId: string, customerId: string, since: Date, excludeTransactionId: string): Promise<number>;
  /** Told of a committed transaction, so the next sum counts it. */
  committed(tx: WindowTransaction): void;
  /** The customer and amount a transaction id is counted with, if it is within any window. */
  known(clientId: string, transactionId: string): Promise<KnownTransaction | undefined>;
}

/** What the window holds of one transaction id. */
export interface KnownTransaction {
  customer_id: string;
  amount_eur: number;
}

/**
 * Sums in the database: right for several instances sharing one PostgreSQL. Lookups go to the
 * database together, as a group commit does writes: one query at a time, and the lookups that
 * arrive while it runs go in the next one (no added wait when idle). Under load that is one round
 * trip for many requests instead of one each.
 */
export function createDbWindowStore(deps: {
  windowSums: (lookups: WindowLookup[]) => Promise<number[]>;
  windowTransaction: (
    clientId: string,
    transactionId: string,
    since: Date,
  ) => Promise<KnownTransaction | undefined>;
  now?: () => number;
}): WindowStore {
  const now = deps.now ?? Date.now;
  type Pending = { lookup: WindowLookup; resolve: (n: number) => void; reject: (e: unknown) => void };
  const group = createGroupCommit<Pending>({
    maxBatch: 512,
    maxInFlight: 1,
    flush: async (batch) => {
      try {
        const sums = await deps.windowSums(batch.map((p) => p.lookup));
        batch.forEach((p, i) => {
          p.resolve(sums[i]!);
        });
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    },
  });
  return {
    priorSum(clientId, customerId, since, exclude) {
      return new Promise((resolve, reject) => {
        group.add({
          lookup: { client_id: clientId, customer_id: customerId, since, exclude },
          resolve,
          reject,
        });
      });
    },
    committed: () => {},
    // Within the span the memory store keeps, so both stores know the same transactions.
    known: (clientId, transactionId) =>
      deps.windowTransaction(clientId, transactionId, new Date(now() - KEEP_MS)),
  };
}

/** Longest window a client can configure, plus a day: older entries are dropped from memory. */
export const KEEP_MS = (MAX_CUMULATIVE_WINDOW_DAYS + 1) * 86_400_000;
const DAY_MS = 86_400_000;

/** A transaction as held in memory, with where it is filed: its customer and its UTC day. */
interface Entry {
  readonly id: string;
  readonly custKey: string;
  readonly day: number;
  readonly amount: number;
  readonly at: number;
  readonly blocked: boolean;
}
/** One UTC day of a customer: its transactions, and the sum of those not blocked. */
interface Day {
  readonly entries: Map<string, Entry>;
  sum: number;
}

/** The day's sum, added in the order the transactions were filed (as appending does). */
function sumOf(day: Day, leaveOut?: string): number {
  let sum = 0;
  for (const e of day.entries.values()) if (!e.blocked && e.id !== leaveOut) sum += e.amount;
  return sum;
}

/**
 * Sums in memory, loaded once from the database and then kept up to date by this process. Only
 * for a store that this process alone writes (the embedded store admits one process), where it
 * takes the per-request read off the single database connection.
 *
 * Each customer's transactions are filed by UTC day with the day's sum kept, so a sum reads one
 * figure per day of the window plus the transactions of the day it starts in, however many
 * transactions the customer has (a year of an active customer's history was read in full before,
 * on every evaluation). A day's sum is recomputed, not adjusted, when a transaction leaves it, so
 * replacing amounts never accumulates rounding.
 */
export function createMemoryWindowStore(deps: {
  load: (since: Date) => Promise<WindowTransaction[]>;
  now?: () => number;
}): WindowStore {
  const now = deps.now ?? Date.now;
  const byCustomer = new Map<string, Map<number, Day>>();
  const byTransaction = new Map<string, Entry>();
  let loading: Promise<void> | undefined;

  function unfile(e: Entry): void {
    const days = byCustomer.get(e.custKey);
    const day = days?.get(e.day);
    if (!day?.entries.delete(e.id)) return;
    if (day.entries.size === 0) days!.delete(e.day);
    else day.sum = sumOf(day);
  }

  function apply(tx: WindowTransaction): void {
    const txKey = `${tx.client_id}\u0000${tx.transaction_id}`;
    const custKey = `${tx.client_id}\u0000${tx.customer_id}`;
    const at = tx.evaluated_at.getTime();
    const entry: Entry = {
      id: tx.transaction_id,
      custKey,
      day: Math.floor(at / DAY_MS),
      amount: tx.amount_eur,
      at,
      blocked: tx.blocked,
    };
    // A re-evaluated transaction replaces its earlier amount (and may have moved customer or day).
    const previous = byTransaction.get(txKey);
    if (previous) unfile(previous);
    byTransaction.set(txKey, entry);
    let days = byCustomer.get(custKey);
    if (!days) {
      days = new Map();
      byCustomer.set(custKey, days);
    }
    let day = days.get(entry.day);
    if (!day) {
      day = { entries: new Map(), sum: 0 };
      days.set(entry.day, day);
    }
    day.entries.set(entry.id, entry);
    // Filed last, so adding it gives what recomputing the day would (its earlier version is unfiled).
    if (!entry.blocked) day.sum += entry.amount;
  }

  /** Drops the customer's days that no window can reach any more. */
  function expire(clientId: string, days: Map<number, Day>): void {
    const oldest = Math.floor((now() - KEEP_MS) / DAY_MS);
    for (const [n, day] of days) {
      if (n >= oldest) continue;
      for (const id of day.entries.keys()) byTransaction.delete(`${clientId}\u0000${id}`);
      days.delete(n);
    }
  }

  function ready(): Promise<void> {
    loading ??= deps.load(new Date(now() - KEEP_MS)).then((rows) => {
      // A transaction committed by this process while the history loaded is newer than its row there.
      for (const r of rows) if (!byTransaction.has(`${r.client_id}\u0000${r.transaction_id}`)) apply(r);
    });
    return loading;
  }

  return {
    async priorSum(clientId, customerId, since, exclude) {
      await ready();
      const custKey = `${clientId}\u0000${customerId}`;
      const days = byCustomer.get(custKey);
      if (!days) return 0;
      expire(clientId, days);
      const sinceMs = since.getTime();
      const sinceDay = Math.floor(sinceMs / DAY_MS);
      const left = byTransaction.get(`${clientId}\u0000${exclude}`);
      const leftDay = left?.custKey === custKey ? left.day : undefined;
      let sum = 0;
      for (const [n, day] of days) {
        if (n < sinceDay) continue;
        if (n === sinceDay) {
          for (const e of day.entries.values())
            if (e.at > sinceMs && !e.blocked && e.id !== exclude) sum += e.amount;
        } else sum += n === leftDay ? sumOf(day, exclude) : day.sum;
      }
      return sum;
    },
    committed(tx) {
      apply(tx);
    },
    async known(clientId, transactionId) {
      await ready();
      const e = byTransaction.get(`${clientId}\u0000${transactionId}`);
      if (!e || e.at <= now() - KEEP_MS) return undefined;
      return { customer_id: e.custKey.slice(clientId.length + 1), amount_eur: e.amount };
    },
  };
}
