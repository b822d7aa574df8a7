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
}

/**
 * Sums in the database: right for several instances sharing one PostgreSQL. Lookups go to the
 * database together, as a group commit does writes: one query at a time, and the lookups that
 * arrive while it runs go in the next one (no added wait when idle). Under load that is one round
 * trip for many requests instead of one each.
 */
export function createDbWindowStore(deps: {
  windowSums: (lookups: WindowLookup[]) => Promise<number[]>;
}): WindowStore {
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
  };
}

/** Longest window a client can configure, plus a day: older entries are dropped from memory. */
const KEEP_MS = 366 * 86_400_000;

/**
 * Sums in memory, loaded once from the database and then kept up to date by this process. Only
 * for a store that this process alone writes (the embedded store admits one process), where it
 * takes the per-request read off the single database connection.
 */
export function createMemoryWindowStore(deps: {
  load: (since: Date) => Promise<WindowTransaction[]>;
}): WindowStore {
  const byCustomer = new Map<string, Map<string, { amount: number; at: number; blocked: boolean }>>();
  const customerOfTx = new Map<string, string>();
  let loading: Promise<void> | undefined;

  function apply(tx: WindowTransaction): void {
    const txKey = `${tx.client_id}\u0000${tx.transaction_id}`;
    const custKey = `${tx.client_id}\u0000${tx.customer_id}`;
    const previous = customerOfTx.get(txKey);
    if (previous && previous !== custKey) byCustomer.get(previous)?.delete(tx.transaction_id);
    customerOfTx.set(txKey, custKey);
    let txs = byCustomer.get(custKey);
    if (!txs) {
      txs = new Map();
      byCustomer.set(custKey, txs);
    }
    txs.set(tx.transaction_id, { amount: tx.amount_eur, at: tx.evaluated_at.getTime(), blocked: tx.blocked });
  }

  function ready(): Promise<void> {
    loading ??= deps.load(new Date(Date.now() - KEEP_MS)).then((rows) => {
      for (const r of rows) apply(r);
    });
    return loading;
  }

  return {
    async priorSum(clientId, customerId, since, exclude) {
      await ready();
      const txs = byCustomer.get(`${clientId}\u0000${customerId}`);
      if (!txs) return 0;
      const sinceMs = since.getTime();
      const expired = Date.now() - KEEP_MS;
      let sum = 0;
      for (const [id, t] of txs) {
        if (t.at < expired) {
          txs.delete(id);
          customerOfTx.delete(`${clientId}\u0000${id}`);
        } else if (t.at > sinceMs && !t.blocked && id !== exclude) sum += t.amount;
      }
      return sum;
    },
    committed(tx) {
      apply(tx);
    },
  };
}
