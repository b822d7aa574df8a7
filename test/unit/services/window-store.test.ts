import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  createMemoryWindowStore,
  KEEP_MS,
  type WindowTransaction,
} from '../../../src/services/window-store.ts';

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 15, 9, 30);

/** The rolling sum as MICA-CDD-002 defines it, worked out from scratch over the latest version of each transaction. */
function referenceSum(
  latest: Map<string, WindowTransaction>,
  clientId: string,
  customerId: string,
  since: number,
  exclude: string,
): number {
  let sum = 0;
  for (const tx of latest.values())
    if (
      tx.client_id === clientId &&
      tx.customer_id === customerId &&
      tx.evaluated_at.getTime() > since &&
      !tx.blocked &&
      tx.transaction_id !== exclude
    )
      sum += tx.amount_eur;
  return sum;
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

const commitArb = fc.record({
  kind: fc.constant('commit' as const),
  client: fc.constantFrom('c1', 'c2'),
  customer: fc.constantFrom('u1', 'u2', 'u3'),
  tx: fc.constantFrom('t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'),
  // Mostly around now, some far in the past (loaded history, or a clock moved back).
  ageMs: fc.oneof(fc.integer({ min: 0, max: 3 * DAY }), fc.integer({ min: 0, max: 370 * DAY })),
  amount: fc.oneof(
    fc.double({ min: 0, max: 1e6, noNaN: true }),
    fc.integer({ min: 0, max: 20_000 }).map((c) => c / 100),
  ),
  blocked: fc.boolean(),
});
const sumArb = fc.record({
  kind: fc.constant('sum' as const),
  client: fc.constantFrom('c1', 'c2'),
  customer: fc.constantFrom('u1', 'u2', 'u3'),
  windowMs: fc.oneof(fc.constantFrom(30 * DAY, 365 * DAY, DAY), fc.integer({ min: 0, max: 365 * DAY })),
  exclude: fc.constantFrom('t1', 't2', 't3', 'none'),
});
const tickArb = fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 40 * DAY }) });

test('memory window sums equal the sum worked out from scratch, whatever the order of commits, replacements and clock', async () => {
  await fc.assert(
    fc.asyncProperty(
      // The stored history has one row per client and transaction id (its primary key).
      fc.uniqueArray(commitArb, { maxLength: 20, selector: (c) => `${c.client}/${c.tx}` }),
      fc.array(fc.oneof(commitArb, commitArb, sumArb, sumArb, tickArb), { minLength: 1, maxLength: 80 }),
      async (history, ops) => {
        let now = START;
        const tx = (o: {
          client: string;
          customer: string;
          tx: string;
          ageMs: number;
          amount: number;
          blocked: boolean;
        }): WindowTransaction => ({
          client_id: o.client,
          customer_id: o.customer,
          transaction_id: o.tx,
          amount_eur: o.amount,
          evaluated_at: new Date(now - o.ageMs),
          blocked: o.blocked,
        });
        const latest = new Map<string, WindowTransaction>();
        const loaded = history.map(tx);
        for (const t of loaded) latest.set(`${t.client_id}/${t.transaction_id}`, t);
        let loadedSince: number | undefined;
        let nowAtLoad: number | undefined;
        const store = createMemoryWindowStore({
          load: async (since) => {
            loadedSince = since.getTime();
            nowAtLoad = now;
            return loaded;
          },
          now: () => now,
        });
        for (const o of ops) {
          if (o.kind === 'tick') now += o.ms;
          else if (o.kind === 'commit') {
            const t = tx(o);
            store.committed(t);
            latest.set(`${t.client_id}/${t.transaction_id}`, t);
          } else {
            const since = now - o.windowMs;
            const got = await store.priorSum(o.client, o.customer, new Date(since), o.exclude);
            const want = referenceSum(latest, o.client, o.customer, since, o.exclude);
            assert.ok(close(got, want), `sum ${got}, expected ${want}`);
          }
        }
        // History is loaded once, at the first sum, back as far as any window can reach.
        if (nowAtLoad !== undefined) assert.equal(loadedSince, nowAtLoad - KEEP_MS);
      },
    ),
    { numRuns: 400 },
  );
});

test('a replaced amount leaves no rounding behind in the day it left', async () => {
  const store = createMemoryWindowStore({ load: async () => [], now: () => START });
  const at = new Date(START - 1000);
  const commit = (id: string, amount: number) =>
    store.committed({
      client_id: 'c',
      customer_id: 'u',
      transaction_id: id,
      amount_eur: amount,
      evaluated_at: at,
      blocked: false,
    });
  commit('a', 0.1);
  commit('b', 0.2);
  commit('c', 1e16);
  commit('c', 0); // 0.1 + 0.2 + 1e16 - 1e16 would not give back 0.1 + 0.2
  assert.equal(await store.priorSum('c', 'u', new Date(START - 30 * DAY), 'none'), 0.1 + 0.2);
  commit('a', 5);
  commit('b', 7);
  assert.equal(await store.priorSum('c', 'u', new Date(START - 30 * DAY), 'b'), 5 + 0);
});
