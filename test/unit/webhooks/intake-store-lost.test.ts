import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RULE_SETTINGS } from '../../../src/domain/rules/index.ts';
import { createWebhookIntakeService } from '../../../src/services/webhook-intake.service.ts';
import { vendorBody } from '../../helpers/webhooks.ts';

/**
 * Creations are stored in batches. A batch that fails for one of its rows is tried again one
 * delivery at a time; a batch cut off with the store is not: it may have committed.
 */
function intakeWhoseBatchFails(err: Error) {
  let singles = 0;
  const intake = createWebhookIntakeService({
    registrations: { candidates: async () => [] },
    repo: {
      createBatch: async () => {
        throw err;
      },
      inTransaction: async () => {
        singles++;
        throw new Error('stored alone');
      },
    } as never,
    clientContext: async () => ({ settings: DEFAULT_RULE_SETTINGS }) as never,
    limiter: {} as never,
    limits: { perMinute: 1, perKindPerMinute: 1, unverifiedPerMinute: 1 },
  });
  const deliver = () => {
    const body = vendorBody('txmon-a');
    return intake
      .accept('txmon-a', 'acme', { body, rawBody: Buffer.from(JSON.stringify(body)), headers: {} })
      .catch((e: Error) => e);
  };
  return { deliver, singles: () => singles };
}

describe('creation batches that fail', () => {
  it('cut off with the store: every delivery gets the batch’s error, none is stored again alone', async () => {
    const cut = new Error('Connection terminated unexpectedly');
    const { deliver, singles } = intakeWhoseBatchFails(cut);
    assert.deepEqual(await Promise.all([deliver(), deliver(), deliver()]), [cut, cut, cut]);
    assert.equal(singles(), 0);
  });

  it('rolled back for one of its rows: each delivery is tried alone', async () => {
    const { deliver, singles } = intakeWhoseBatchFails(
      Object.assign(new Error('duplicate key'), { code: '23505' }),
    );
    const outcomes = await Promise.all([deliver(), deliver()]);
    assert.ok(outcomes.every((o) => (o as Error).message === 'stored alone'));
    assert.equal(singles(), 2);
  });
});
