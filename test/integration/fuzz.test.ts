import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

const TRIGGERS = ['transaction', 'wallet_screen', 'travel_rule', 'periodic', 'manual', 'other'];
const FIELDS = [
  'amount_eur',
  'customer_verified',
  'customer_id',
  'customer_country',
  'full_cdd_complete',
  'wallet_address',
  'blockchain',
  'transfer_id',
  'direction',
  'data_completeness',
  'rule_ids',
  'str_detected_at',
  'days_since_last_review',
  'self_hosted_wallet',
];

describe('property: no request body ever yields a 5xx', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  before(async () => {
    t = await startTestApp();
    ({ auth } = await clientWithKey(t, 'acme'));
  });
  after(() => t.close());

  const check = async (payload: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: { ...auth, 'content-type': 'application/json' },
      payload,
    });
    assert.ok(res.statusCode < 500, `${res.statusCode} for ${payload.slice(0, 300)}: ${res.body}`);
    assert.ok([200, 400, 404].includes(res.statusCode), `${res.statusCode}`);
    const body = res.json();
    if (res.statusCode !== 200) assert.equal(typeof body.error.code, 'string');
  };

  it('arbitrary JSON values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), (v) => check(JSON.stringify(v) ?? 'null')),
      { numRuns: 150 },
    );
  });

  it('well-shaped envelopes with random data fields', async () => {
    const data = fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 8 });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          client_id: fc.constantFrom('acme', 'other', ''),
          trigger_type: fc.constantFrom(...TRIGGERS),
          trigger_entity_id: fc.option(fc.string(), { nil: undefined }),
          data,
        }),
        (body) => check(JSON.stringify(body)),
      ),
      { numRuns: 300 },
    );
  });

  it('arbitrary strings as the body', async () => {
    await fc.assert(fc.asyncProperty(fc.string({ maxLength: 200 }), check), { numRuns: 100 });
  });

  it('deeply nested JSON', async () => {
    await check(
      `{"client_id":"acme","trigger_type":"manual","data":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
    );
  });
});
