import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';
import { fixturePath, importList, type Screening, screenPost, uniqueClient } from '../helpers/screening.ts';

describe('name screening of the POST form against the held lists (real OFAC 2021, UN, EU sample)', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let client: string;
  before(async () => {
    t = await startTestApp();
    client = uniqueClient('names');
    ({ auth } = await clientWithKey(t, client));
    await importList(t, 'un', fixturePath('un_sanctions/UN_consolidated.xml'));
    await importList(t, 'eu', fixturePath('eu_xml/eu_sample.xml'));
  });
  after(() => t.close());

  it('screens originator and beneficiary names against every held list (MICA-WAL-005)', async () => {
    await importList(t, 'ofac', fixturePath('ofac_sdn/bench_2021'), '2021-07-07');
    const wallet = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
    const named = async (originator_name?: string, beneficiary_name?: string) => {
      const res = await screenPost(t, auth, {
        wallet_address: wallet,
        blockchain: 'bitcoin',
        originator_name,
        beneficiary_name,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as Screening;
    };
    const expectMatch = async (name: string, list: string, entryId: string, exact: boolean) => {
      const s = await named(name);
      const m = s.risk_profile.sanctions_matches.find((x) => x.list === list && x.entry_id === entryId);
      assert.ok(m, `${name}: ${JSON.stringify(s.risk_profile.sanctions_matches)}`);
      assert.equal(m.matched, 'name');
      if (exact) assert.equal(m.score, 1, name);
      else assert.ok(m.score >= 0.92 && m.score < 1, `${name}: ${m.score}`);
      assert.deepEqual(s.rule_evaluation.actions, ['REVIEW'], name);
      assert.deepEqual(
        s.rule_evaluation.triggered_rules.map((r) => r.rule_id),
        ['MICA-WAL-005'],
      );
      // A name match is a potential match for review, not a sanctioned wallet.
      assert.equal(s.risk_profile.sanctioned_exposure, 0);
    };
    await expectMatch('LIFSHITS, Artem Mikhaylovich', 'ofac', '29702', true);
    await expectMatch('artem mikhaylovich lifshits', 'ofac', '29702', true);
    await expectMatch('Artem Mikhaylovich Lifshitz', 'ofac', '29702', false);
    await expectMatch('Francois Yangouvonda Bozize', 'un', 'CFi.001', true);
    await expectMatch('Jerome Kakwavu Bukande', 'un', 'CDi.005', true);
    await expectMatch('Jana Prikladova', 'eu', 'EU.9001.01', true);
    await expectMatch('Jana Přikladová', 'eu', 'EU.9001.01', true);

    for (const common of ['John Smith', 'Maria Garcia', 'Anna Schmidt', 'Peter Müller']) {
      const s = await named(common, 'Jane Doe');
      assert.deepEqual(s.risk_profile.sanctions_matches, [], common);
      assert.deepEqual(s.rule_evaluation.actions, ['ALLOW'], common);
    }
    // Either party can match; the audit record carries the score.
    const both = await named('John Smith', 'Mikhaylovich LIFSHITS Artem');
    assert.deepEqual(both.rule_evaluation.actions, ['REVIEW']);
    const row = await t.deps.db
      .selectFrom('evaluations')
      .select(['request'])
      .where('client_id', '=', client)
      .where('trigger_entity_id', '=', wallet)
      .orderBy('evaluated_at', 'desc')
      .executeTakeFirstOrThrow();
    const data = (row.request as { data: Record<string, unknown> }).data;
    assert.ok((data.name_match_score as number) >= 0.92);
    assert.equal(data.beneficiary_name, 'Mikhaylovich LIFSHITS Artem');
  });
});
