import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoClient } from '../../src/services/demo-seed.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

describe('the demo seed and client creation', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('two instances seeding one new store at once: one creates the demo client, the other is not failed by it', async () => {
    const outcomes = await Promise.allSettled([seedDemoClient(t.deps), seedDemoClient(t.deps)]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled'],
      JSON.stringify(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))),
    );
    const keys = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : undefined)).filter(Boolean);
    assert.equal(keys.length, 1, 'one key printed');
    assert.equal(await seedDemoClient(t.deps), undefined, 'and never again');
  });

  it('the settings a client is created with are in its audit entry', async () => {
    const settings = { holiday_country: 'FR' };
    await t.deps.clients.create('created-with-settings', { actor: 'test', settings });
    const entry = await t.deps.db
      .selectFrom('operator_audit')
      .select(['action', 'detail'])
      .where('subject', '=', 'created-with-settings')
      .where('action', '=', 'client.created')
      .executeTakeFirstOrThrow();
    const detail = typeof entry.detail === 'string' ? JSON.parse(entry.detail) : entry.detail;
    assert.deepEqual(detail, { settings });
  });
});
