import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { up as boundWindow } from '../../src/storage/migrations/015-window-days-bound.ts';
import { up as assignedCodesOnly } from '../../src/storage/migrations/016-high-risk-codes-assigned.ts';
import { up as asciiCodes } from '../../src/storage/migrations/028-country-code-look-alikes.ts';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

/**
 * MICA-CDD-002's window is at most 365 days (the embedded store holds a year of transactions for
 * the sums). A client whose stored settings asked for more, from before the bound, keeps working:
 * migration 015 gives it the longest window there is.
 */
describe('settings bounds, and stored settings from before them', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('settings asking for more are refused', async () => {
    await t.deps.clients.create('wide', { actor: 'test' });
    await assert.rejects(
      t.deps.clients.setSettings('wide', { thresholds: { cumulative_window_days: 400 } }, 'test'),
      /cumulative_window_days: must be an integer between 1 and 365/,
    );
  });

  it('stored settings from before the bound are brought within it, others left alone', async () => {
    const { auth } = await clientWithKey(t, 'old');
    await t.deps.clients.create('other', { actor: 'test' });
    await sql`UPDATE clients SET settings = ${JSON.stringify({ thresholds: { cumulative_window_days: 730, cdd_amount_eur: 500 }, holiday_country: 'DE' })}::jsonb WHERE client_id = 'old'`.execute(
      t.deps.db,
    );
    await sql`UPDATE clients SET settings = ${JSON.stringify({ thresholds: { cumulative_window_days: 90 } })}::jsonb WHERE client_id = 'other'`.execute(
      t.deps.db,
    );
    await boundWindow(t.deps.db as never);
    const rows = await sql<{
      client_id: string;
      settings: unknown;
    }>`SELECT client_id, settings FROM clients WHERE client_id IN ('old', 'other') ORDER BY client_id`.execute(
      t.deps.db,
    );
    assert.deepEqual(
      rows.rows.map((r) => [
        r.client_id,
        typeof r.settings === 'string' ? JSON.parse(r.settings) : r.settings,
      ]),
      [
        ['old', { thresholds: { cumulative_window_days: 365, cdd_amount_eur: 500 }, holiday_country: 'DE' }],
        ['other', { thresholds: { cumulative_window_days: 90 } }],
      ],
    );
    // And the client evaluates with them.
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: { client_id: 'old', trigger_type: 'transaction', data: { customer_id: 'c1', amount_eur: 10 } },
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  it('a stored high-risk list keeps only assigned country codes (migration 016)', async () => {
    const { auth } = await clientWithKey(t, 'codes');
    const list = { source: 'own', date: '2026-01-01', codes: ['IR', 'XX', 'kp', 'XK', 'ZZ'] };
    await sql`UPDATE clients SET settings = ${JSON.stringify({ high_risk_countries: list })}::jsonb WHERE client_id = 'codes'`.execute(
      t.deps.db,
    );
    await assert.rejects(
      t.deps.clients.setSettings('other', { high_risk_countries: list }, 'test'),
      /high_risk_countries\.codes: not ISO 3166-1 alpha-2 codes: \["XX","ZZ"\]/,
    );
    await assignedCodesOnly(t.deps.db as never);
    const row = await sql<{
      settings: unknown;
    }>`SELECT settings FROM clients WHERE client_id = 'codes'`.execute(t.deps.db);
    const settings = row.rows[0]!.settings;
    assert.deepEqual((typeof settings === 'string' ? JSON.parse(settings) : settings).high_risk_countries, {
      ...list,
      codes: ['IR', 'kp', 'XK'],
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: { client_id: 'codes', trigger_type: 'transaction', data: { customer_country: 'XK' } },
    });
    assert.equal(res.statusCode, 200, res.body);
    const cdd006 = res.json().results.find((r: { rule_id: string }) => r.rule_id === 'MICA-CDD-006');
    assert.equal(cdd006.triggered, true);
  });

  it('stored look-alike country codes become the codes they were read as (migration 028), and load', async () => {
    const { auth } = await clientWithKey(t, 'lookalike');
    const stored = {
      holiday_country: 'ſe',
      high_risk_countries: { source: 'own', date: '2026-01-01', codes: ['ſy', 'IR', 'ır'] },
    };
    await sql`UPDATE clients SET settings = ${JSON.stringify(stored)}::jsonb WHERE client_id = 'lookalike'`.execute(
      t.deps.db,
    );
    await asciiCodes(t.deps.db as never);
    const row = await sql<{
      settings: unknown;
    }>`SELECT settings FROM clients WHERE client_id = 'lookalike'`.execute(t.deps.db);
    const settings = row.rows[0]!.settings;
    assert.deepEqual(typeof settings === 'string' ? JSON.parse(settings) : settings, {
      holiday_country: 'SE',
      high_risk_countries: { source: 'own', date: '2026-01-01', codes: ['SY', 'IR', 'IR'] },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: { client_id: 'lookalike', trigger_type: 'transaction', data: { customer_country: 'SY' } },
    });
    assert.equal(res.statusCode, 200, res.body);
    const cdd006 = res.json().results.find((r: { rule_id: string }) => r.rule_id === 'MICA-CDD-006');
    assert.equal(cdd006.triggered, true);
  });
});
