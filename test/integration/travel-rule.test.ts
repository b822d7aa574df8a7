import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';
import {
  BTC,
  BTC_2,
  completeBody,
  fixturePath,
  importTestDirectory,
  UNLISTED_LEI,
  uniqueClientId,
} from '../helpers/travel-rule.ts';

const URL = '/api/mica/travel-rule-validation';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const IVMS_PAYLOAD = JSON.parse(readFileSync(fixturePath('ivms101/identity_payload.json'), 'utf8'));

interface TravelBody {
  validation_result: {
    transfer_id: string;
    data_completeness: string;
    required_fields: string[];
    self_hosted: boolean;
    counterparty_verified: boolean;
  };
  rule_evaluation: {
    rules_triggered: number;
    should_alert: boolean;
    should_block: boolean;
    actions: string[];
    triggered_rules: Array<{ rule_id: string; triggered: boolean; result: string }>;
  };
}

describe('POST /api/mica/travel-rule-validation', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let clientId: string;
  before(async () => {
    t = await startTestApp();
    clientId = uniqueClientId('acme');
    ({ auth } = await clientWithKey(t, clientId));
    await importTestDirectory(t);
  });
  after(() => t.close());

  const send = (payload: unknown, headers: Record<string, string> = auth) =>
    t.app.inject({ method: 'POST', url: URL, headers, payload: payload as object });
  async function validate(payload: unknown): Promise<TravelBody> {
    const res = await send(payload);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as TravelBody;
  }
  const ruleIds = (b: TravelBody) => b.rule_evaluation.triggered_rules.map((r) => r.rule_id);

  it('a complete transfer to a verified CASP: exactly the spec fields, ALLOW', async () => {
    const res = await send(completeBody('tr-complete'));
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.deepEqual(res.json(), {
      validation_result: {
        transfer_id: 'tr-complete',
        data_completeness: 'complete',
        required_fields: [],
        self_hosted: false,
        counterparty_verified: true,
      },
      rule_evaluation: {
        rules_triggered: 0,
        should_alert: false,
        should_block: false,
        actions: ['ALLOW'],
        triggered_rules: [],
      },
    });
  });

  it('partial data: dotted paths of what is missing, MICA-TR-001 blocks', async () => {
    const body = completeBody('tr-partial');
    body.originator = { name: 'Jane Howard' } as never;
    body.beneficiary = { ...body.beneficiary, wallet_address: '   ' };
    const b = await validate(body);
    assert.equal(b.validation_result.data_completeness, 'partial');
    assert.deepEqual(b.validation_result.required_fields, [
      'originator.wallet_address',
      'originator.geographic_address',
      'beneficiary.wallet_address',
    ]);
    assert.deepEqual(ruleIds(b), ['MICA-TR-001']);
    assert.equal(b.rule_evaluation.should_block, true);
    assert.deepEqual(b.rule_evaluation.actions, ['BLOCK']);
    assert.deepEqual(b.rule_evaluation.triggered_rules[0], {
      rule_id: 'MICA-TR-001',
      rule_name: 'Travel Rule Data Completeness',
      triggered: true,
      result: 'block',
      conditions_met: { data_complete: false },
      actions_to_execute: ['block_transaction', 'request_travel_rule_data'],
      severity: 'high',
    });
  });

  it('no names at all is missing; a national id stands in for the geographic address', async () => {
    const missing = await validate({ transfer_id: 'tr-missing', direction: 'inbound', amount_eur: 10 });
    assert.equal(missing.validation_result.data_completeness, 'missing');
    assert.deepEqual(missing.validation_result.required_fields, [
      'originator.name',
      'originator.wallet_address',
      'originator.geographic_address',
      'beneficiary.name',
      'beneficiary.wallet_address',
    ]);
    // No CASP named: self-hosted, and nothing to verify.
    assert.equal(missing.validation_result.self_hosted, true);
    assert.deepEqual(missing.rule_evaluation.actions, ['BLOCK']);

    const body = completeBody('tr-natid');
    body.originator = { ...body.originator, geographic_address: '' };
    const b = await validate(body);
    assert.equal(b.validation_result.data_completeness, 'complete');
  });

  it('self-hosted above EUR 1,000 without ownership proof: MICA-CDD-003 blocks', async () => {
    const body = completeBody('tr-self', { amount_eur: 1000.01 });
    body.beneficiary = { name: 'Lawrence Clark', wallet_address: BTC_2 } as never;
    const b = await validate(body);
    assert.equal(b.validation_result.self_hosted, true);
    assert.equal(b.validation_result.counterparty_verified, false);
    assert.deepEqual(ruleIds(b), ['MICA-CDD-003']);
    assert.deepEqual(b.rule_evaluation.actions, ['BLOCK']);

    const proven = await validate({ ...body, transfer_id: 'tr-self-proven', ownership_verified: true });
    assert.deepEqual(ruleIds(proven), []);
    assert.deepEqual(proven.rule_evaluation.actions, ['ALLOW']);

    const small = await validate({ ...body, transfer_id: 'tr-self-1000', amount_eur: 1000 });
    assert.deepEqual(small.rule_evaluation.actions, ['ALLOW']);
  });

  it('a named counterparty that is not in the directory, or named otherwise, is REVIEW', async () => {
    const unlisted = completeBody('tr-unlisted');
    unlisted.beneficiary = { ...unlisted.beneficiary, casp_name: 'MF Consulting', casp_lei: UNLISTED_LEI };
    const a = await validate(unlisted);
    assert.equal(a.validation_result.counterparty_verified, false);
    assert.equal(a.validation_result.self_hosted, false);
    assert.deepEqual(a.rule_evaluation.actions, ['REVIEW']);

    const renamed = completeBody('tr-renamed');
    renamed.beneficiary = { ...renamed.beneficiary, casp_name: 'Citigroup Inc.' };
    assert.deepEqual((await validate(renamed)).rule_evaluation.actions, ['REVIEW']);

    const nameOnly = completeBody('tr-name-only');
    nameOnly.beneficiary = { name: 'L. Clark', wallet_address: BTC_2, casp_name: 'Citigroup Inc.' } as never;
    const c = await validate(nameOnly);
    assert.equal(c.validation_result.counterparty_verified, false);
    assert.deepEqual(c.rule_evaluation.actions, ['REVIEW']);
  });

  it('a large transfer alerts (MICA-RPT-004): REVIEW, after BLOCK when both apply', async () => {
    const large = await validate(completeBody('tr-large', { amount_eur: 10_000 }));
    assert.deepEqual(ruleIds(large), ['MICA-RPT-004']);
    assert.equal(large.rule_evaluation.should_alert, true);
    assert.deepEqual(large.rule_evaluation.actions, ['REVIEW']);
    // The alert names the transfer as its transaction, as a transaction's alert does.
    const alert = await t.deps.db
      .selectFrom('alerts')
      .select(['transaction_id', 'event'])
      .where('client_id', '=', clientId)
      .where('transaction_id', '=', 'tr-large')
      .executeTakeFirstOrThrow();
    assert.deepEqual(alert, { transaction_id: 'tr-large', event: 'travel_rule' });

    const both = completeBody('tr-large-partial', { amount_eur: 25_000 });
    both.originator = { name: 'Jane Howard' } as never;
    const b = await validate(both);
    assert.deepEqual(ruleIds(b), ['MICA-RPT-004', 'MICA-TR-001']);
    assert.deepEqual(b.rule_evaluation.actions, ['BLOCK', 'REVIEW']);
  });

  it('accepts the IVMS101 form; the beneficiary VASP LEIX is verified against the directory', async () => {
    const body = {
      transfer_id: 'tr-ivms',
      direction: 'outbound',
      amount_eur: 2500,
      ivms101: {
        originator: IVMS_PAYLOAD.originator,
        beneficiary: IVMS_PAYLOAD.beneficiary,
        beneficiaryVASP: IVMS_PAYLOAD.beneficiaryVASP,
      },
    };
    // The example's VASP is identified by a TXID: named, but without an LEI it cannot be verified.
    const named = await validate(body);
    assert.equal(named.validation_result.data_completeness, 'complete');
    assert.equal(named.validation_result.self_hosted, false);
    assert.equal(named.validation_result.counterparty_verified, false);
    assert.deepEqual(named.rule_evaluation.actions, ['REVIEW']);

    const leix = structuredClone(body);
    leix.transfer_id = 'tr-ivms-leix';
    leix.ivms101.beneficiaryVASP.beneficiaryVASP.legalPerson.nationalIdentification = {
      nationalIdentifier: '213800KUD8LAJWSQ9D15',
      nationalIdentifierType: 'LEIX',
    };
    const verified = await validate(leix);
    assert.equal(verified.validation_result.counterparty_verified, true);
    assert.deepEqual(verified.rule_evaluation.actions, ['ALLOW']);

    // The whole example payload (with originatingVASP) is accepted too.
    const whole = await validate({ ...body, transfer_id: 'tr-ivms-whole', ivms101: IVMS_PAYLOAD });
    assert.equal(whole.validation_result.data_completeness, 'complete');
  });

  it('audits the evaluation in mica_rule_evaluations with trigger_type travel_rule', async () => {
    const body = completeBody('tr-audit', { amount_crypto: 0.05 });
    body.beneficiary = { name: 'Lawrence Clark', wallet_address: BTC, customer_id: 'cust-9' } as never;
    body.amount_eur = 1500;
    await validate(body);
    const rows = await t.deps.db
      .selectFrom('mica_rule_evaluations')
      .selectAll()
      .where('client_id', '=', clientId)
      .where('trigger_entity_id', '=', 'tr-audit')
      .orderBy('rule_position')
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.rule_id, r.trigger_type, r.trigger_entity_type, r.result]),
      [
        ['MICA-CDD-003', 'travel_rule', 'transfer', 'block'],
        ['MICA-RPT-004', 'travel_rule', 'transfer', 'pass'],
        ['MICA-TR-001', 'travel_rule', 'transfer', 'pass'],
      ],
    );
    assert.equal(rows[0]?.transaction_blocked, true);
    /** The data kept in the audit record of a transfer's evaluation. */
    const storedData = async (transferId: string) => {
      const stored = await t.deps.db
        .selectFrom('evaluations')
        .select('request')
        .where('client_id', '=', clientId)
        .where('trigger_entity_id', '=', transferId)
        .executeTakeFirstOrThrow();
      return (stored.request as { data: Record<string, unknown> }).data;
    };
    const data = await storedData('tr-audit');
    assert.equal(data.transfer_type, 'internal');
    assert.equal(data.amount_crypto, 0.05);
    assert.equal(data.data_completeness, 'complete');
    assert.equal(data.self_hosted_wallet, true);
    assert.equal(data.ownership_verified, false);
    assert.equal(data.beneficiary_customer_id, 'cust-9');
    // What completeness was judged on is kept: the originator's address and id, and what was missing.
    assert.equal(data.originator_geographic_address, '28 Greystone Street, Collierville, TN 38017, US');
    assert.equal(data.originator_national_id, '112502920');
    assert.deepEqual(data.required_fields, []);
    const partial = completeBody('tr-audit-partial');
    partial.originator = { name: 'Jane Howard', wallet_address: BTC } as never;
    await validate(partial);
    const partialData = await storedData('tr-audit-partial');
    assert.equal(partialData.data_completeness, 'partial');
    assert.deepEqual(partialData.required_fields, ['originator.geographic_address']);
  });

  it('names the audited evaluation in X-Evaluation-Id; a cached answer names the same one', async () => {
    const body = completeBody('tr-evaluation-id', { amount_eur: 1500 });
    const first = await send(body);
    assert.equal(first.statusCode, 200, first.body);
    const id = String(first.headers['x-evaluation-id']);
    assert.match(id, UUID);
    const stored = await t.deps.db
      .selectFrom('evaluations')
      .select(['evaluation_id', 'trigger_type', 'trigger_entity_id'])
      .where('client_id', '=', clientId)
      .where('trigger_entity_id', '=', 'tr-evaluation-id')
      .execute();
    assert.deepEqual(stored, [
      { evaluation_id: id, trigger_type: 'travel_rule', trigger_entity_id: 'tr-evaluation-id' },
    ]);
    // The record behind the answer, for the caller's client only (CONTRACT §9).
    const record = await t.app.inject({ method: 'GET', url: `/api/mica/evaluations/${id}`, headers: auth });
    assert.equal(record.statusCode, 200, record.body);
    assert.equal(record.json().evaluation_id, id);
    assert.equal(record.json().should_block, first.json().rule_evaluation.should_block);
    const other = await clientWithKey(t, uniqueClientId('other'));
    const foreign = await t.app.inject({
      method: 'GET',
      url: `/api/mica/evaluations/${id}`,
      headers: other.auth,
    });
    assert.equal(foreign.statusCode, 404, foreign.body);

    // Served from the cache: the same bytes, backed by the same evaluation (no new one was written).
    const second = await send(body);
    assert.equal(second.body, first.body);
    assert.equal(second.headers['x-evaluation-id'], id);
    // A changed body is another evaluation, and says so.
    const changed = await send({ ...body, amount_eur: 1600 });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.match(String(changed.headers['x-evaluation-id']), UUID);
    assert.notEqual(changed.headers['x-evaluation-id'], id);
    // A refused request decided nothing: no header.
    const refused = await send({ ...body, amount_eur: -1 });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.headers['x-evaluation-id'], undefined);
  });

  it('the same transfer sent eight times at once is validated once (one evaluation, one case)', async () => {
    const body = completeBody('tr-burst', { amount_eur: 20_000 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(body)));
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      Array(8).fill(200),
    );
    assert.equal(new Set(answers.map((a) => a.body)).size, 1, 'one answer for all');
    const evaluations = await t.deps.db
      .selectFrom('evaluations')
      .select('evaluation_id')
      .where('client_id', '=', clientId)
      .where('trigger_entity_id', '=', 'tr-burst')
      .execute();
    assert.equal(evaluations.length, 1);
    // Every caller is named the one evaluation, those who shared its answer too.
    assert.deepEqual(
      answers.map((a) => a.headers['x-evaluation-id']),
      Array(8).fill(evaluations[0]!.evaluation_id),
    );
    const cases = await t.deps.db
      .selectFrom('cases')
      .select('id')
      .where('client_id', '=', clientId)
      .where('evaluation_id', '=', evaluations[0]!.evaluation_id)
      .execute();
    assert.equal(cases.length, 1);
  });

  it('/evaluate with trigger_type travel_rule still takes the caller’s own data_completeness', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: auth,
      payload: {
        client_id: clientId,
        trigger_type: 'travel_rule',
        trigger_entity_id: 'tr-eval',
        data: {
          transfer_id: 'tr-eval',
          direction: 'outbound',
          amount_eur: 500,
          amount_crypto: 0.01,
          transfer_type: 'external',
          data_completeness: 'partial',
          self_hosted_wallet: false,
        },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.rules_evaluated, 3);
    assert.deepEqual(
      body.results
        .filter((r: { triggered: boolean }) => r.triggered)
        .map((r: { rule_id: string }) => r.rule_id),
      ['MICA-TR-001'],
    );
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.ok(doc.paths['/api/mica/travel-rule-validation']?.post);
    const ok = doc.paths['/api/mica/travel-rule-validation'].post.responses['200'];
    assert.deepEqual(ok.headers['X-Evaluation-Id'], { $ref: '#/components/headers/EvaluationId' });
    assert.equal(doc.components.headers.EvaluationId.schema.format, 'uuid');
    assert.equal(
      doc.paths['/api/mica/travel-rule-validation'].post.responses['400'].headers['X-Evaluation-Id'],
      undefined,
    );
    assert.ok(doc.paths['/api/mica/cache/stats']?.get);
    assert.ok(doc.paths['/api/mica/cache/invalidate']?.post);
  });
});
