import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type CasesApi, startCasesApi } from '../helpers/cases-api.ts';

/**
 * Case assignment reads each officer's open-case count from compliance_officers.open_cases, which
 * triggers on cases keep up to date (migration 008). Whatever happens to cases, the kept count must
 * equal the real count.
 */
describe('officer open-case counts', () => {
  let api: CasesApi;
  before(async () => {
    api = await startCasesApi();
  });
  after(() => api.t.close());

  async function kept() {
    const rows = await sql<{ officer: string; open_cases: number }>`
      SELECT officer, open_cases FROM compliance_officers WHERE client_id = 'acme' ORDER BY officer`.execute(
      api.t.deps.db,
    );
    return Object.fromEntries(rows.rows.map((r) => [r.officer, Number(r.open_cases)]));
  }
  async function real() {
    const rows = await sql<{ officer: string; n: number }>`
      SELECT o.officer, count(c.id)::int AS n FROM compliance_officers o
        LEFT JOIN cases c ON c.client_id = o.client_id AND c.assignee = o.officer AND c.status <> 'closed'
       WHERE o.client_id = 'acme' GROUP BY o.officer ORDER BY o.officer`.execute(api.t.deps.db);
    return Object.fromEntries(rows.rows.map((r) => [r.officer, Number(r.n)]));
  }

  it('follows new cases, reassignment, closing, officers removed and added again', async () => {
    const { as, acme } = api;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await api.newCase());
    assert.deepEqual(await kept(), await real());
    const k = await kept();
    assert.equal(k.olga! + k.bruno!, 5);
    assert.ok(Math.abs(k.olga! - k.bruno!) <= 1, 'least-loaded assignment alternates');

    const first = ids[0]!;
    const before = (await as(acme).get(`/api/cases/${first}`)).json().assignee as string;
    const other = before === 'olga' ? 'bruno' : 'olga';
    assert.equal((await as(acme).post(`/api/cases/${first}/assign`, { officer: other })).statusCode, 200);
    assert.deepEqual(await kept(), await real());

    const close = await as(acme).post(`/api/cases/${ids[1]}/transition`, {
      to: 'closed',
      resolution: 'no_action',
      note: 'checked',
    });
    assert.equal(close.statusCode, 200, close.body);
    assert.deepEqual(await kept(), await real());

    // An officer removed and added again starts from the open cases still assigned to that name.
    await api.t.deps.clients.removeOfficer('acme', 'olga', 'test');
    await api.t.deps.clients.addOfficer('acme', 'olga', 'test');
    assert.deepEqual(await kept(), await real());

    // The next case goes to whoever has fewer open cases now.
    const k2 = await kept();
    const expected = k2.olga! < k2.bruno! ? 'olga' : k2.bruno! < k2.olga! ? 'bruno' : 'bruno';
    const next = await api.newCase();
    assert.equal((await as(acme).get(`/api/cases/${next}`)).json().assignee, expected);
    assert.deepEqual(await kept(), await real());
  });
});
