import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveRuleSettings } from '../../../src/domain/rules/settings.ts';
import { type ClientContext, createEvaluationService } from '../../../src/services/evaluation.service.ts';
import { DEFAULT_API_LIMITS } from '../../../src/services/rate-limit.service.ts';
import { createMemoryWindowStore, type WindowTransaction } from '../../../src/services/window-store.ts';
import type { EvaluationRecord } from '../../../src/storage/evaluations.repo.ts';

/** The service over a window store that counts its reads and records what was committed. */
function serviceWith(settings = resolveRuleSettings({}), prior = 600) {
  const reads: string[] = [];
  const committed: WindowTransaction[] = [];
  const records: EvaluationRecord[] = [];
  const ctx: ClientContext = { settings, rateLimits: { ...DEFAULT_API_LIMITS } };
  const service = createEvaluationService({
    clientContext: async () => ctx,
    evaluations: { responseOf: async () => undefined },
    window: {
      priorSum: async (_client, customer) => {
        reads.push(customer);
        return prior;
      },
      committed: (tx) => committed.push(tx),
      known: async () => undefined,
    },
    audit: { write: async (r) => void records.push(r) },
  });
  const evaluate = (amount_eur: number, id: string) =>
    service.evaluate({ keyId: 'k', clientId: 'acme' } as never, {
      client_id: 'acme',
      trigger_type: 'transaction',
      trigger_entity_id: id,
      data: { customer_id: 'c-1', amount_eur, customer_verified: true, full_cdd_complete: false },
    });
  return { evaluate, reads, committed, records };
}

const cdd002 = (r: { response: { results: Array<{ rule_id: string }> } }) =>
  r.response.results.find((x) => x.rule_id === 'MICA-CDD-002') as unknown as {
    triggered: boolean;
    conditions_met: Record<string, boolean>;
  };

describe('evaluation service: the rolling window', () => {
  it('reads the prior sum only when it can change MICA-CDD-002, and counts every transaction', async () => {
    const s = serviceWith();
    const small = await s.evaluate(500, 'tx-1');
    assert.deepEqual(s.reads, ['c-1']);
    assert.equal(cdd002(small).conditions_met.cumulative_amount_eur_gte_1000, true, '600 + 500');
    const large = await s.evaluate(1500, 'tx-2');
    assert.deepEqual(s.reads, ['c-1'], 'an amount over the threshold does not read the window');
    assert.deepEqual(cdd002(large).conditions_met, {
      amount_eur_gte_1000: true,
      cumulative_amount_eur_gte_1000: true,
      full_cdd_complete: false,
    });
    assert.deepEqual(
      s.committed.map((t) => [t.transaction_id, t.amount_eur]),
      [
        ['tx-1', 500],
        ['tx-2', 1500],
      ],
      'both still count in the window',
    );
    assert.ok(s.records.every((r) => r.customerTransaction !== undefined));
  });

  it('does not read the window when the client disabled MICA-CDD-002', async () => {
    const s = serviceWith(resolveRuleSettings({ disabled_rules: ['MICA-CDD-002'] }));
    await s.evaluate(10, 'tx-1');
    assert.deepEqual(s.reads, []);
    assert.equal(s.committed.length, 1);
  });
});

describe("evaluation service: one customer's transactions in parallel", () => {
  it('decides them one after another, so splitting an amount into parallel transfers is still caught', async () => {
    const ctx: ClientContext = { settings: resolveRuleSettings({}), rateLimits: { ...DEFAULT_API_LIMITS } };
    let writing = 0;
    let maxWriting = 0;
    const service = createEvaluationService({
      clientContext: async () => ctx,
      evaluations: { responseOf: async () => undefined },
      window: createMemoryWindowStore({ load: async () => [] }),
      // A commit that takes a while, as a group commit does under load.
      audit: {
        write: async () => {
          maxWriting = Math.max(maxWriting, ++writing);
          await sleep(3);
          writing--;
        },
      },
    });
    const send = (customer: string, i: number) =>
      service.evaluate({ keyId: 'k', clientId: 'acme' } as never, {
        client_id: 'acme',
        trigger_type: 'transaction',
        trigger_entity_id: `${customer}-tx-${i}`,
        data: { customer_id: customer, amount_eur: 200, customer_verified: true, full_cdd_complete: false },
      });
    const [split, other] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, (_, i) => send('structurer', i))),
      Promise.all(Array.from({ length: 3 }, (_, i) => send('someone-else', i))),
    ]);
    // 200, 400, 600, 800 pass; the fifth reaches 1,000 and is blocked (a blocked transfer does not
    // count), and so is every later one: 800 + 200 again.
    assert.deepEqual(
      split.map((r) => cdd002(r).triggered),
      [false, false, false, false, true, true, true, true, true, true],
    );
    assert.ok(other.every((r) => !cdd002(r).triggered));
    assert.ok(maxWriting >= 2, 'other customers were not held back');
  });
});

describe('evaluation service: a re-evaluation without its amount or customer', () => {
  function withMemoryWindow() {
    const window = createMemoryWindowStore({ load: async () => [] });
    const ctx: ClientContext = { settings: resolveRuleSettings({}), rateLimits: { ...DEFAULT_API_LIMITS } };
    let slowWrites = 0;
    const service = createEvaluationService({
      clientContext: async () => ctx,
      evaluations: { responseOf: async () => undefined },
      window,
      audit: {
        write: async () => {
          if (slowWrites-- > 0) await sleep(50);
        },
      },
    });
    const tx = (id: string, data: Record<string, unknown>) =>
      service.evaluate({ keyId: 'k', clientId: 'acme' } as never, {
        client_id: 'acme',
        trigger_type: 'transaction',
        trigger_entity_id: id,
        data: { customer_verified: true, full_cdd_complete: false, ...data },
      });
    const sum = (customer: string) => window.priorSum('acme', customer, new Date(0), 'none');
    const slow = () => {
      slowWrites = 1;
    };
    return { tx, sum, slow };
  }

  it('files the amount counted when its turn comes, not the one read before it waited', async () => {
    const s = withMemoryWindow();
    await s.tx('T', { customer_id: 'c', amount_eur: 500 });
    s.slow(); // the correction's audit write takes a while
    const correction = s.tx('T', { customer_id: 'c', amount_eur: 5000 });
    await sleep(5);
    const partial = s.tx('T', {});
    await Promise.all([correction, partial]);
    assert.equal(await s.sum('c'), 5000);
  });

  it('follows the id to the customer it moved to while waiting', async () => {
    const s = withMemoryWindow();
    await s.tx('T', { customer_id: 'c1', amount_eur: 500 });
    s.slow();
    const moved = s.tx('T', { customer_id: 'c2', amount_eur: 700 });
    await sleep(5);
    const partial = s.tx('T', { customer_verified: false });
    await Promise.all([moved, partial]);
    assert.equal(await s.sum('c1'), 0);
    assert.equal(await s.sum('c2'), 0, 'blocked by the later evaluation: not counted');
  });

  it('is judged with the rolling sum of the customer the id is counted with', async () => {
    const s = withMemoryWindow();
    await s.tx('A', { customer_id: 'c', amount_eur: 600 });
    await s.tx('T', { customer_id: 'c', amount_eur: 100 });
    const again = await s.tx('T', { amount_eur: 500 });
    assert.equal(cdd002(again).triggered, true, '600 + 500 for customer c');
  });
});
