import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

// Found by fuzzing every endpoint: query strings and cursors are the caller's text too. Each of
// these reached a query and answered 500 before.

const cursor = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');
const UUID = '3f4272f1-9ca0-41d9-be3d-d706c892e76e';

describe('hostile query strings and cursors are a 400, never a 500', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  before(async () => {
    t = await startTestApp();
    ({ auth } = await clientWithKey(t, 'acme'));
  });
  after(() => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: auth });

  async function expect400(url: string, field: string) {
    const res = await get(url);
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    const body = res.json();
    const details = body.error?.details ?? body.details;
    assert.ok(
      details?.field === field || details?.errors?.some((e: string) => e.startsWith(`${field}:`)),
      `${url}: ${res.body}`,
    );
  }

  it('a filter the endpoint does not know: a misspelt one would return every row as if filtered', async () => {
    for (const [url, field] of [
      ['/api/mica/audit/evaluations?customer=c-1', 'customer'],
      ['/api/mica/audit/evaluations?customer=c-1&format=csv', 'customer'],
      ['/api/mica/audit/actions?action=create_case&format=json', 'action'],
      ['/api/mica/audit/transitions?case=CASE-2026-000001', 'case'],
      ['/api/alerts?state=open', 'state'],
      ['/api/cases?severity=critical', 'severity'],
      ['/api/console/cases?assigned=alice', 'assigned'],
      ['/api/mica/rules/stats?day=7', 'day'],
    ] as const)
      await expect400(url, field);
  });

  it('an empty filter: from an empty variable it would filter nothing and answer every row', async () => {
    for (const [url, field] of [
      ['/api/mica/audit/evaluations?customer_id=', 'customer_id'],
      ['/api/mica/audit/evaluations?transaction_id=&format=json', 'transaction_id'],
      ['/api/mica/audit/evaluations?rule_id=&format=csv', 'rule_id'],
      ['/api/mica/audit/evaluations?evaluation_id=', 'evaluation_id'],
      ['/api/mica/audit/evaluations?from=', 'from'],
      ['/api/mica/audit/evaluations?to=&format=csv', 'to'],
      ['/api/mica/audit/evaluations?cursor=', 'cursor'],
      ['/api/mica/audit/actions?customer_id=&format=json', 'customer_id'],
      ['/api/mica/audit/actions?action_type=', 'action_type'],
      ['/api/mica/audit/transitions?from=', 'from'],
    ] as const)
      await expect400(url, field);
  });

  it('a time that rounds up past the last storable millisecond', async () => {
    for (const [url, field] of [
      ['/api/mica/audit/evaluations?from=9999-12-31T23:59:59.9999Z', 'from'],
      ['/api/mica/audit/evaluations?to=9999-12-31T23:59:59.9991Z&format=csv', 'to'],
      ['/api/mica/audit/actions?to=9999-12-31T23:59:59.99999Z', 'to'],
      ['/api/mica/audit/transitions?from=9999-12-31T23:59:59.9999Z', 'from'],
    ] as const)
      await expect400(url, field);
    // The last millisecond itself is a bound like any other.
    assert.equal((await get('/api/mica/audit/evaluations?to=9999-12-31T23:59:59.999Z')).statusCode, 200);
  });

  it('a NUL in a filter', async () => {
    for (const [url, field] of [
      ['/api/mica/audit/evaluations?customer_id=%00', 'customer_id'],
      ['/api/mica/audit/evaluations?rule_id=a%00b', 'rule_id'],
      ['/api/mica/audit/evaluations?transaction_id=a%00&format=csv', 'transaction_id'],
      ['/api/mica/audit/actions?action_type=%00', 'action_type'],
      ['/api/mica/audit/transitions?case_id=%00', 'case_id'],
      ['/api/alerts?status=%00', 'status'],
    ] as const)
      await expect400(url, field);
  });

  it('numbers that overflow to Infinity', async () => {
    for (const [url, field] of [
      ['/api/alerts?limit=1e309', 'limit'],
      ['/api/cases?limit=-1e309', 'limit'],
      ['/api/console/cases?limit=Infinity', 'limit'],
      ['/api/mica/rules/stats?days=1e309', 'days'],
      ['/api/mica/audit/evaluations?limit=1e400', 'limit'],
    ] as const)
      await expect400(url, field);
  });

  it('cursors with impossible times, huge counters or text the database refuses', async () => {
    const bad = {
      '/api/alerts': [
        ['+275760-09-13T00:00:00Z', UUID],
        ['2026-02-30T00:00:00Z', UUID],
        ['1', UUID],
      ],
      '/api/cases': [['2026-01-01T00:00:00.000Z', `${UUID}\u0000`]],
      '/api/console/cases': [['0000-01-01T00:00:00Z', UUID]],
      '/api/mica/audit/evaluations': [
        { at: '2026-02-30 00:00:00+00', id: UUID, pos: 1 },
        { at: '2026-01-01T00:00:00Z', id: UUID, pos: 1e308 },
        { at: '2026-01-01T00:00:00Z', id: 'a\u0000', pos: 1 },
        // Offsets beyond what PostgreSQL takes (±15:59).
        { at: '2026-11-27T03:00:00+16:00', id: UUID, pos: 0 },
        { at: '2026-11-27T03:00:00-00:60', id: UUID, pos: 0 },
      ],
      '/api/mica/audit/actions': [
        { at: '2026-01-01T00:00:00Z', id: UUID, rule: 2 ** 63, action: 1 },
        { at: '2026-11-27T03:00:00+99:99', id: UUID, rule: 0, action: 0 },
      ],
      '/api/mica/audit/transitions': [{ at: '1', kind: 'case', id: UUID, ord: 1 }],
    };
    for (const [path, cursors] of Object.entries(bad))
      for (const c of cursors) await expect400(`${path}?cursor=${cursor(c)}`, 'cursor');
    // The cursors the API hands out still work, at full precision.
    for (let i = 0; i < 3; i++)
      await t.app.inject({
        method: 'POST',
        url: '/api/mica/evaluate',
        headers: auth,
        payload: { client_id: 'acme', trigger_type: 'transaction', data: { customer_verified: false } },
      });
    const first = (await get('/api/mica/audit/evaluations?limit=2')).json();
    const next = await get(`/api/mica/audit/evaluations?limit=2&cursor=${first.next_cursor}`);
    assert.equal(next.statusCode, 200, next.body);
    const actions = (await get('/api/mica/audit/actions?limit=1')).json();
    assert.equal(
      (await get(`/api/mica/audit/actions?limit=1&cursor=${actions.next_cursor}`)).statusCode,
      200,
    );
  });
});
