import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveRuleSettings } from '../../../src/domain/rules/settings.ts';
import { type ClientContext, createEvaluationService } from '../../../src/services/evaluation.service.ts';
import { DEFAULT_API_LIMITS } from '../../../src/services/rate-limit.service.ts';
import type { WindowTransaction } from '../../../src/services/window-store.ts';
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
