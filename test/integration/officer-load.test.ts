import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/storage/db.ts';
import { type CasesApi, startCasesApi } from '../helpers/cases-api.ts';
import { TEST_DATABASE_URL } from '../helpers/harness.ts';

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

    // An officer removed hands its open cases to the others; added again, it starts from none.
    await api.t.deps.clients.removeOfficer('acme', 'olga', 'test');
    await api.t.deps.clients.addOfficer('acme', 'olga', 'test');
    assert.deepEqual(await kept(), await real());
    assert.equal((await kept()).olga, 0);

    // The next case goes to whoever has fewer open cases now.
    const k2 = await kept();
    const expected = k2.olga! < k2.bruno! ? 'olga' : k2.bruno! < k2.olga! ? 'bruno' : 'bruno';
    const next = await api.newCase();
    assert.equal((await as(acme).get(`/api/cases/${next}`)).json().assignee, expected);
    assert.deepEqual(await kept(), await real());
  });

  it("removing an officer hands its open cases to the least-loaded others, each move in the case's history", async () => {
    const { as, acme, t } = api;
    await t.deps.clients.addOfficer('acme', 'petra', 'test');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await api.newCase());
    const assignee = async (id: string) =>
      (await as(acme).get(`/api/cases/${id}`)).json().assignee as string | null;
    const petras: string[] = [];
    for (const id of ids) if ((await assignee(id)) === 'petra') petras.push(id);
    assert.ok(petras.length >= 2, 'petra has open cases');
    // One of them closed: it stays hers (closed cases keep who worked them).
    const closed = petras.pop()!;
    await as(acme).post(`/api/cases/${closed}/transition`, { to: 'closed', resolution: 'no_action' });
    const before = await kept();

    const out = await t.deps.clients.removeOfficer('acme', 'petra', 'operator');
    assert.deepEqual(out.officers, ['bruno', 'olga']);
    assert.deepEqual(
      out.reassigned.map((r) => r.case_number).sort(),
      (
        await Promise.all(
          petras.map(async (id) => (await as(acme).get(`/api/cases/${id}`)).json().case_number),
        )
      ).sort(),
    );
    for (const id of petras) {
      const c = (await as(acme).get(`/api/cases/${id}`)).json();
      assert.ok(['bruno', 'olga'].includes(c.assignee), c.assignee);
      const last = c.history.at(-1);
      assert.equal(last.note, `assigned to ${c.assignee} (was petra): officer petra removed`);
      assert.equal(last.actor, 'operator');
      assert.equal(last.from, c.status);
    }
    assert.equal(await assignee(closed), 'petra');
    // Spread as new cases are: the least loaded first, so the two end within one of each other.
    const after = await kept();
    assert.deepEqual(after, await real());
    assert.equal(after.bruno! + after.olga!, before.bruno! + before.olga! + petras.length);
    assert.ok(Math.abs(after.bruno! - after.olga!) <= Math.max(1, Math.abs(before.bruno! - before.olga!)));
    // Audited with what moved.
    const audit = await t.deps.db
      .selectFrom('operator_audit')
      .selectAll()
      .where('action', '=', 'officer.removed')
      .where('subject', '=', 'petra')
      .executeTakeFirstOrThrow();
    assert.equal((audit.detail as { reassigned: unknown[] }).reassigned.length, petras.length);
  });

  it('with no officer left, the open cases are unassigned, saying so', async () => {
    const { as, acme, t } = api;
    const id = await api.newCase();
    for (const o of (await t.deps.clients.officers('acme')).officers) {
      if (o === (await as(acme).get(`/api/cases/${id}`)).json().assignee) continue;
      await t.deps.clients.removeOfficer('acme', o, 'operator');
    }
    const holder = (await as(acme).get(`/api/cases/${id}`)).json().assignee as string;
    await t.deps.clients.removeOfficer('acme', holder, 'operator');
    const c = (await as(acme).get(`/api/cases/${id}`)).json();
    assert.equal(c.assignee, null);
    assert.equal(c.history.at(-1).note, `unassigned (was ${holder}): officer ${holder} removed, none left`);
    assert.deepEqual(await real(), {});
  });
});

/**
 * An officer's removal racing with the case moves of other connections (PostgreSQL: the embedded
 * store runs one transaction at a time). A second connection holds the other officers' rows, so
 * that the removal stalls after deleting the officer, handing its first case on (the open-case
 * count's trigger updates the receiving officer's row), while a case is opened or assigned to the
 * officer being removed.
 */
describe('officer removal racing with new cases, assignments and other removals (PostgreSQL)', {
  skip: !TEST_DATABASE_URL,
}, () => {
  let api: CasesApi;
  before(async () => {
    api = await startCasesApi();
  });
  after(() => api.t.close());

  async function officersAndAssignees() {
    const db = api.t.deps.db;
    const officers = (
      await sql<{
        officer: string;
      }>`SELECT officer FROM compliance_officers WHERE client_id = 'acme'`.execute(db)
    ).rows.map((r) => r.officer);
    const open = await db
      .selectFrom('cases')
      .select(['case_number', 'assignee'])
      .where('client_id', '=', 'acme')
      .where('status', '<>', 'closed')
      .execute();
    return { officers, orphans: open.filter((c) => c.assignee !== null && !officers.includes(c.assignee)) };
  }

  /** Runs `during` while the removal of `officer` is stalled after its DELETE (see above). */
  async function whileRemoving(officer: string, others: string[], during: () => Promise<unknown>) {
    const holder = await openDatabase({ databaseUrl: TEST_DATABASE_URL!, poolSize: 1 });
    try {
      const { removal, other } = await holder.db.transaction().execute(async (trx) => {
        await sql`SELECT officer FROM compliance_officers
                   WHERE client_id = 'acme' AND officer IN (${sql.join(others)}) FOR NO KEY UPDATE`.execute(
          trx,
        );
        const removal = api.t.deps.clients.removeOfficer('acme', officer, 'test');
        await new Promise((r) => setTimeout(r, 300));
        const other = during();
        await new Promise((r) => setTimeout(r, 300));
        return { removal, other };
      });
      await removal;
      return await other;
    } finally {
      await holder.close();
    }
  }

  /** Ivan the least loaded officer, with one open case: the next case is his unless his removal keeps it from him. */
  async function ivanLeastLoaded() {
    const { as, acme } = api;
    await api.t.deps.clients.addOfficer('acme', 'ivan', 'test');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await api.newCase());
    const to = ['ivan', 'olga', 'olga', 'bruno', 'bruno'];
    for (const [i, id] of ids.entries()) await as(acme).post(`/api/cases/${id}/assign`, { officer: to[i] });
    return ids;
  }

  it('a case opened while its would-be officer is removed goes to an officer', async () => {
    await ivanLeastLoaded();
    await whileRemoving('ivan', ['olga', 'bruno'], () => api.newCase());
    assert.deepEqual((await officersAndAssignees()).orphans, []);
  });

  it('a case assigned to the officer while it is removed stays with an officer, and no request fails', async () => {
    const ids = await ivanLeastLoaded();
    const res = (await whileRemoving('ivan', ['olga', 'bruno'], () =>
      api.as(api.acme).post(`/api/cases/${ids[1]}/assign`, { officer: 'ivan' }),
    )) as { statusCode: number; body: string };
    assert.ok([200, 400].includes(res.statusCode), res.body);
    assert.deepEqual((await officersAndAssignees()).orphans, []);
  });

  it('two officers removed at once leave no case with either', async () => {
    const { as, acme, t } = api;
    for (let round = 0; round < 3; round++) {
      const [a, b] = [`anna${round}`, `bert${round}`];
      await t.deps.clients.addOfficer('acme', a, 'test');
      await t.deps.clients.addOfficer('acme', b, 'test');
      for (let i = 0; i < 4; i++)
        await as(acme).post(`/api/cases/${await api.newCase()}/assign`, { officer: a });
      const removed = await Promise.allSettled([
        t.deps.clients.removeOfficer('acme', a, 'test'),
        t.deps.clients.removeOfficer('acme', b, 'test'),
      ]);
      assert.deepEqual(
        removed.map((r) => r.status),
        ['fulfilled', 'fulfilled'],
        JSON.stringify(removed),
      );
      assert.deepEqual((await officersAndAssignees()).orphans, [], `round ${round}`);
    }
  });
});
