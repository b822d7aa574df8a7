import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allowedTransitions, statusesOf } from '../../src/domain/cases/state-machines.ts';
import { CASE_KEYS, type CasesApi, startCasesApi } from '../helpers/cases-api.ts';

describe('cases API', () => {
  let t: CasesApi['t'];
  let acme: CasesApi['acme'];
  let as: CasesApi['as'];
  let newCase: CasesApi['newCase'];
  before(async () => {
    ({ t, acme, as, newCase } = await startCasesApi());
  });
  after(() => t.close());
  const CLOSE = { case: 'no_action' } as const;

  it('lists cases by due date with filters and pagination; detail by id or number', async () => {
    await newCase();
    await newCase();
    const evaluated = await as(acme).post('/api/mica/evaluate', {
      client_id: 'acme',
      trigger_type: 'transaction',
      trigger_entity_id: 'tx-big',
      data: { customer_id: 'c-9', customer_verified: true, full_cdd_complete: true, amount_eur: 25_000 },
    });
    const evaluationId = evaluated.json().evaluation_id;
    const all = (await as(acme).get('/api/cases?limit=200')).json();
    assert.deepEqual(Object.keys(all.items[0]), CASE_KEYS);
    const dues = all.items.map((c: { due_at: string }) => c.due_at);
    assert.deepEqual(dues, [...dues].sort());
    const fromEval = all.items.find((c: { evaluation_id: string }) => c.evaluation_id === evaluationId);
    assert.deepEqual(fromEval.rule_ids, ['MICA-RPT-004']);
    const byNumber = (await as(acme).get(`/api/cases/${fromEval.case_number}`)).json();
    assert.equal(byNumber.id, fromEval.id);
    assert.equal(byNumber.history[0].to, 'open');

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { id: string }[]; next_cursor: string | null } = (
        await as(acme).get(`/api/cases?limit=3${cursor ? `&cursor=${cursor}` : ''}`)
      ).json();
      pages.push(...page.items.map((c: { id: string }) => c.id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(
      pages,
      all.items.map((c: { id: string }) => c.id),
    );
    const olga = (await as(acme).get('/api/cases?assignee=olga')).json();
    assert.ok(olga.items.length > 0 && olga.items.every((c: { assignee: string }) => c.assignee === 'olga'));
    const open = (await as(acme).get('/api/cases?status=open')).json();
    assert.ok(open.items.every((c: { status: string }) => c.status === 'open'));
  });

  it('every case edge; closing needs a resolution', async () => {
    const path: Record<string, string[]> = {
      open: [],
      investigating: ['investigating'],
      pending_filing: ['investigating', 'pending_filing'],
      closed: ['closed'],
    };
    for (const from of statusesOf('case')) {
      for (const to of statusesOf('case')) {
        const id = await newCase();
        for (const step of path[from]!)
          await as(acme).post(
            `/api/cases/${id}/transition`,
            step === 'closed' ? { to: step, resolution: 'no_action' } : { to: step },
          );
        const res = await as(acme).post(
          `/api/cases/${id}/transition`,
          to === 'closed' ? { to, resolution: CLOSE.case } : { to },
        );
        const allowed = allowedTransitions('case', from);
        if (allowed.includes(to as never)) assert.equal(res.statusCode, 200, `${from} → ${to}: ${res.body}`);
        else {
          assert.equal(res.statusCode, 409, `${from} → ${to}`);
          assert.deepEqual(res.json().error.details.allowed, allowed);
        }
      }
    }
    const id = await newCase();
    const missing = await as(acme).post(`/api/cases/${id}/transition`, { to: 'closed' });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error.details.field, 'resolution');
    const nul = await as(acme).post(`/api/cases/${id}/transition`, { to: 'investigating', note: 'a\u0000b' });
    assert.equal(nul.statusCode, 400, 'a note the database cannot store');
    assert.equal((await as(acme).get('/api/cases?assignee=%00')).statusCode, 400);
    assert.equal((await as(acme).post(`/api/cases/${id}/assign`, { officer: '\ud800' })).statusCode, 400);
    const filed = await as(acme).post(`/api/cases/${id}/transition`, {
      to: 'closed',
      resolution: 'str_filed',
    });
    assert.equal(filed.json().resolution, 'str_filed');
  });

  it("assignment: to one of the client's officers only, recorded in history; not on a closed case", async () => {
    const id = await newCase();
    // To the officer it does not have yet (a new case is assigned to someone already).
    const current = (await as(acme).get(`/api/cases/${id}`)).json().assignee;
    const officer = current === 'bruno' ? 'olga' : 'bruno';
    const res = await as(acme).post(`/api/cases/${id}/assign`, { officer });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().assignee, officer);
    assert.match(res.json().history.at(-1).note, new RegExp(`assigned to ${officer}`));
    // Assigned again to the same officer: nothing changes, no entry that says nothing.
    const again = await as(acme).post(`/api/cases/${id}/assign`, { officer });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().history.length, res.json().history.length);
    const stranger = await as(acme).post(`/api/cases/${id}/assign`, { officer: 'mallory' });
    assert.equal(stranger.statusCode, 400);
    assert.equal(stranger.json().error.details.field, 'officer');
    await as(acme).post(`/api/cases/${id}/transition`, { to: 'closed', resolution: 'no_action' });
    assert.equal((await as(acme).post(`/api/cases/${id}/assign`, { officer: 'olga' })).statusCode, 409);
  });
});
