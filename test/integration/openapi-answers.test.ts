import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { COUNTRY_FORMAT, countryCodeOf } from '../../src/domain/country-codes.ts';
import { DATE_OR_TIME_FORMAT, isDateOrZonedDateTime } from '../../src/domain/rules/facts.ts';
import { parseTravelRuleRequest } from '../../src/domain/travel-rule/request.ts';
import { normaliseWebhook } from '../../src/domain/webhooks/payload.ts';
import { ENTITY_TYPES, TRIGGER_TYPES } from '../../src/http/schemas/evaluate.schema.ts';
import { clientWithKey, type TestApp } from '../helpers/harness.ts';
import { seededRandom } from '../helpers/seeded-random.ts';
import {
  BTC,
  completeBody,
  fixturePath,
  importTestDirectory,
  uniqueClientId,
} from '../helpers/travel-rule.ts';
import { register, signed, startWebhookApp, vendorBody } from '../helpers/webhooks.ts';

// Real answers checked against GET /openapi.json with a generic JSON Schema 2020-12 validator, as a
// client generating code from the document would: every answer's status, body and headers are
// documented, the rate-limit headers exactly where they are sent, and the request schemas accept
// what the service accepts and refuse what it refuses for its shape.

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ??
  addFormatsImport) as unknown as (ajv: Ajv2020) => void;

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON walked by path, untyped by nature.
type Json = Record<string, any>;
const LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const IVMS: Json = JSON.parse(readFileSync(fixturePath('ivms101/identity_payload.json'), 'utf8'));
const TODAY = new Date().toISOString().slice(0, 10);

/** A deep copy of `doc` with the value at a dotted path set, or deleted when undefined. */
function edited<T>(doc: T, path: string, value?: unknown): T {
  const copy = structuredClone(doc);
  const keys = path.split('.');
  let node = copy as Json;
  for (const key of keys.slice(0, -1)) node = node[key];
  const last = keys[keys.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

/** Every element of a JSON document, as its parent and key. */
function elementsOf(node: Json, out: [Json, string][] = []): [Json, string][] {
  for (const [key, value] of Object.entries(node)) {
    out.push([node, key]);
    if (value !== null && typeof value === 'object') elementsOf(value, out);
  }
  return out;
}

describe('real answers against the OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  let auth: Record<string, string>;
  let clientId: string;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addFormat(COUNTRY_FORMAT, { type: 'string', validate: (s: string) => countryCodeOf(s) !== undefined });
  ajv.addFormat(DATE_OR_TIME_FORMAT, { type: 'string', validate: isDateOrZonedDateTime });
  const compiled = new Map<object, ValidateFunction>();
  // A schema of the document refers to the document's components (#/components/schemas/…): each is
  // compiled with them beside it, as a generator resolves them.
  const valid = (schema: object, value: unknown): boolean => {
    const v = compiled.get(schema) ?? ajv.compile({ components: doc.components, allOf: [schema] });
    compiled.set(schema, v);
    return v(value) as boolean;
  };
  const bodySchema = (path: string, method = 'post'): object =>
    doc.paths[path][method].requestBody.content['application/json'].schema;

  /** The answer is documented: its status, its body, its headers (the rate-limit ones exactly). */
  function checkAnswer(path: string, method: string, res: LightMyRequestResponse): void {
    const where = `${method.toUpperCase()} ${path} ${res.statusCode}`;
    const documented = doc.paths[path][method].responses[String(res.statusCode)];
    assert.ok(documented, `${where} is documented`);
    const schema = documented.content?.['application/json']?.schema;
    if (schema) assert.ok(valid(schema, res.json()), `${where}: ${res.body}`);
    const headers = (documented.headers ?? {}) as Json;
    for (const name of Object.keys(headers))
      assert.ok(res.headers[name.toLowerCase()] !== undefined, `${where} carries ${name}`);
    for (const name of LIMIT_HEADERS)
      if (res.headers[name.toLowerCase()] !== undefined)
        assert.ok(headers[name], `${where} documents the ${name} it carries`);
  }

  before(async () => {
    t = await startWebhookApp();
    clientId = uniqueClientId('acme');
    ({ auth } = await clientWithKey(t, clientId));
    await importTestDirectory(t);
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  after(() => t.close());

  it('states each named schema and header once: every reference resolves, every answer is described', () => {
    const { schemas, headers } = doc.components;
    for (const name of ['NestedError', 'FlatError', 'Ivms101Person', 'Ivms101Payload', 'EvaluationResponse'])
      assert.ok(schemas[name], name);
    assert.ok(headers.ClientRateLimitLimit && headers.RetryAfter);
    // Each IVMS101 person was a full copy in five places of the travel-rule request: now referred to.
    const travelRule = JSON.stringify(doc.paths['/api/mica/travel-rule-validation']);
    assert.ok(travelRule.length < 30_000, String(travelRule.length));
    assert.ok(JSON.stringify(doc).length < 300_000, String(JSON.stringify(doc).length));
    for (const [parent, key] of elementsOf(doc)) {
      if (key !== '$ref') continue;
      const target = (parent[key] as string).replace(/^#\//, '').split('/');
      assert.ok(
        target.reduce<Json | undefined>((node, k) => node?.[k], doc),
        `${parent[key]} resolves`,
      );
    }
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const [method, op] of Object.entries(item as Json))
        for (const [status, res] of Object.entries(op.responses as Json))
          assert.notEqual((res as Json).description, 'Default Response', `${method} ${path} ${status}`);
  });

  it('the X-Actor request header is stated on the operations that record it, and on no other', () => {
    const reading: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const [method, op] of Object.entries(item as Json))
        if (((op as Json).parameters ?? []).some((p: Json) => p.$ref === '#/components/parameters/XActor'))
          reading.push(`${method} ${path}`);
    assert.deepEqual(reading.sort(), [
      'get /api/mica/wallet-screening',
      'post /api/alerts/{id}/transition',
      'post /api/cases/{id}/assign',
      'post /api/cases/{id}/transition',
      'post /api/mica/evaluate',
      'post /api/mica/travel-rule-validation',
      'post /api/mica/wallet-screening',
    ]);
    assert.equal(doc.components.parameters.XActor.in, 'header');
  });

  it('a 401 documents none of the rate-limit headers, and carries none', async () => {
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const [method, op] of Object.entries(item as Json)) {
        if (!op.security?.length || !op.responses['401']) continue;
        for (const name of LIMIT_HEADERS)
          assert.equal(op.responses['401'].headers?.[name], undefined, `${method} ${path} 401 ${name}`);
        if (path.includes('{')) continue;
        const res = await t.app.inject({
          method: method.toUpperCase() as 'GET',
          url: path,
          headers: { authorization: 'Bearer not-a-key' },
          ...(method === 'post' ? { payload: {} } : {}),
        });
        assert.equal(res.statusCode, 401, `${method} ${path}`);
        // RFC 6750 §3: the scheme wanted, and that the key sent was not accepted.
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="mica", error="invalid_token"');
        checkAnswer(path, method, res);
      }
    const bare = await t.app.inject({ method: 'GET', url: '/api/mica/rules' });
    assert.equal(bare.statusCode, 401);
    assert.equal(bare.headers['www-authenticate'], 'Bearer realm="mica"', 'no key: no error code');
    // /readyz answers its 503 without Retry-After: none is documented.
    assert.equal(doc.paths['/readyz'].get.responses['503'].headers, undefined);
  });

  it('the answers of a valid key carry the documented headers: 200, 400, 403, 404, 429', async () => {
    const evaluate = (payload: object, headers = auth) =>
      t.app.inject({ method: 'POST', url: '/api/mica/evaluate', headers, payload });
    checkAnswer(
      '/api/mica/evaluate',
      'post',
      await evaluate({ client_id: clientId, trigger_type: 'transaction', data: { amount_eur: 10 } }),
    );
    checkAnswer('/api/mica/evaluate', 'post', await evaluate({ client_id: clientId, data: {} }));
    checkAnswer(
      '/api/mica/evaluations/{evaluation_id}',
      'get',
      await t.app.inject({ method: 'GET', url: '/api/mica/evaluations/nothing', headers: auth }),
    );
    const forbidden = await t.app.inject({
      method: 'POST',
      url: '/api/mica/cache/invalidate',
      headers: auth,
      payload: {},
    });
    assert.equal(forbidden.statusCode, 403);
    checkAnswer('/api/mica/cache/invalidate', 'post', forbidden);
    const limited = await clientWithKey(t, uniqueClientId('limited'), {
      settings: { rate_limits: { per_minute: 1, burst_per_minute: 1, per_day: 100 } },
    });
    const body = { client_id: limited.clientId, trigger_type: 'transaction', data: {} };
    checkAnswer('/api/mica/evaluate', 'post', await evaluate(body, limited.auth));
    const refused = await evaluate(body, limited.auth);
    assert.equal(refused.statusCode, 429);
    checkAnswer('/api/mica/evaluate', 'post', refused);
  });

  it('a 405 matches the documented MethodNotAllowed response, in both error formats', async () => {
    const documented = doc.components.responses.MethodNotAllowed;
    assert.match(doc.info.description, /405 `METHOD_NOT_ALLOWED`/);
    for (const url of ['/api/mica/evaluate', '/api/mica/travel-rule-validation']) {
      const res = await t.app.inject({ method: 'DELETE', url, headers: auth });
      assert.equal(res.statusCode, 405);
      assert.equal(res.headers.allow, 'POST');
      assert.ok(valid(documented.content['application/json'].schema, res.json()), res.body);
      for (const name of Object.keys(documented.headers))
        assert.ok(res.headers[name.toLowerCase()] !== undefined, name);
    }
  });

  it('evaluate: the documented branches refuse exactly the entity types the service refuses', async () => {
    const schema = bodySchema('/api/mica/evaluate');
    const data: Record<string, Json> = {
      transaction: { amount_eur: 10 },
      wallet_screen: { wallet_address: BTC, blockchain: 'bitcoin' },
      travel_rule: {
        transfer_id: 'tr-doc',
        direction: 'outbound',
        amount_eur: 10,
        amount_crypto: 0.001,
        transfer_type: 'external',
        data_completeness: 'complete',
        self_hosted_wallet: false,
      },
      periodic: { days_since_last_review: 1 },
      manual: { rule_ids: ['MICA-CDD-001'] },
    };
    for (const trigger_type of TRIGGER_TYPES)
      for (const trigger_entity_type of ENTITY_TYPES) {
        const body = { client_id: clientId, trigger_type, trigger_entity_type, data: data[trigger_type] };
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/mica/evaluate',
          headers: auth,
          payload: body,
        });
        assert.ok([200, 400].includes(res.statusCode), res.body);
        assert.equal(
          valid(schema, body),
          res.statusCode === 200,
          `${trigger_type}/${trigger_entity_type}: ${res.body}`,
        );
        checkAnswer('/api/mica/evaluate', 'post', res);
      }
    // The README's example: the message is the service's own, not the schema's.
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: auth,
      payload: { client_id: clientId, trigger_type: 'transaction', trigger_entity_type: 'wallet', data: {} },
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json().error.details.errors, [
      'trigger_entity_type: Must be one of: transaction (for trigger_type transaction)',
    ]);
  });

  it('webhooks: the documented body takes the nulls the intake takes, and bounds integer ids', async () => {
    await register(t, 'txmon-a', clientId, 'doc-secret');
    const schema = bodySchema('/api/webhooks/txmon-a');
    const deliver = async (body: Json) => {
      const res = await t.app.inject(signed('txmon-a', 'doc-secret', body));
      checkAnswer('/api/webhooks/txmon-a', 'post', res);
      return res;
    };
    const accepted = [
      vendorBody('txmon-a', { data: { severity: null, transaction_id: null } }),
      vendorBody('txmon-a', { data: { customer_id: null, risk_score: null, reason: null } }),
      { ...vendorBody('txmon-a'), created_at: null },
      { ...vendorBody('txmon-a'), created_at: '2026-03-01T10:15+0100' },
      { ...vendorBody('txmon-a'), id: Number.MAX_SAFE_INTEGER - Math.floor(Math.random() * 1e9) },
    ];
    for (const body of accepted) {
      assert.ok(valid(schema, body), JSON.stringify(body));
      assert.equal((await deliver(body)).statusCode, 200, JSON.stringify(body));
    }
    const tooLarge = `{"id":9007199254740993,"event":"alert.created","data":{"alert_id":"a-big"}}`;
    assert.equal(valid(schema, JSON.parse(tooLarge)), false);
    const res = await t.app.inject(signed('txmon-a', 'doc-secret', tooLarge));
    assert.equal(res.statusCode, 400);
    assert.match(res.json().error.message, /Number too large to be exact .*send the id as a string/);
    checkAnswer('/api/webhooks/txmon-a', 'post', res);
    // A forged delivery's 401 carries the source's rate-limit headers, as documented.
    const forged = await t.app.inject(signed('txmon-a', 'wrong-secret', vendorBody('txmon-a')));
    assert.equal(forged.statusCode, 401);
    assert.ok(forged.headers['x-ratelimit-limit'] !== undefined);
    checkAnswer('/api/webhooks/txmon-a', 'post', forged);
    // The intake and the document agree on the shapes JSON Schema can state.
    const base = vendorBody('txmon-a');
    for (const [path, value] of [
      ['id', ''],
      ['id', '  '],
      ['id', null],
      ['id', 1.5],
      ['id', -42],
      ['id', 'x'.repeat(257)],
      ['event', 'alert.deleted'],
      ['created_at', '2026-03-01'],
      ['created_at', '2026-03-01T10:15:00'],
      ['data', null],
      ['data.alert_id', null],
      ['data.alert_id', 7],
      ['data.severity', 'urgent'],
      ['data.risk_score', 101],
      ['data.risk_score', 0],
      ['data.reason', 5],
      ['data.transaction_id', ''],
    ] as const) {
      const body = edited(base, path, value);
      assert.equal(
        valid(schema, body),
        normaliseWebhook('txmon-a', body).ok,
        `${path}=${JSON.stringify(value)}`,
      );
    }
  });

  it('travel rule: null and blank parties and fields count as absent in the document too', async () => {
    const schema = bodySchema('/api/mica/travel-rule-validation');
    const send = async (body: Json) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/mica/travel-rule-validation',
        headers: auth,
        payload: body,
      });
      checkAnswer('/api/mica/travel-rule-validation', 'post', res);
      return res;
    };
    const noOriginator = await send({ ...completeBody('tr-doc-1'), originator: null });
    assert.equal(noOriginator.statusCode, 200);
    assert.equal(noOriginator.json().validation_result.data_completeness, 'partial');
    assert.ok(valid(schema, { ...completeBody('tr-doc-1'), originator: null }));
    const blankLei = edited(completeBody('tr-doc-2'), 'beneficiary.casp_lei', '');
    assert.equal((await send(blankLei)).statusCode, 200);
    assert.ok(valid(schema, blankLei));
    const refused = await send(edited(completeBody('tr-doc-3'), 'beneficiary.casp_lei', 'nope'));
    assert.equal(refused.statusCode, 400);
    // The plain form: the document accepts exactly what the domain accepts, where a schema can say it.
    const plain = completeBody('tr-doc-4');
    for (const [path, value] of [
      ['originator', ''],
      ['originator', 'x'],
      ['originator.name', null],
      ['originator.name', '   '],
      ['originator.name', 5],
      ['originator.name', 'x'.repeat(1025)],
      ['originator.date_of_birth', '1990-02-30'],
      ['originator.date_of_birth', '1990-02-28'],
      ['originator.customer_id', 'c'.repeat(257)],
      ['beneficiary', null],
      ['beneficiary.casp_lei', '   '],
      ['beneficiary.casp_lei', null],
      ['transfer_id', ' '],
      ['transfer_id', 't'.repeat(257)],
      ['direction', ''],
      ['amount_eur', null],
      ['amount_eur', -1],
      ['amount_crypto', null],
      ['amount_crypto', '1'],
      ['blockchain', ''],
      ['blockchain', null],
      ['blockchain', 'dogecoin'],
      ['ownership_verified', null],
      ['ownership_verified', 'yes'],
      ['ivms101', null],
    ] as const) {
      const body = edited(plain, path, value);
      const expected = parseTravelRuleRequest(body, { today: TODAY }).ok;
      assert.equal(valid(schema, body), expected, `${path}=${JSON.stringify(value)}`);
    }
  });

  it('travel rule, IVMS101: the documented structure accepts what the service accepts, refuses what it refuses', async () => {
    const schema = bodySchema('/api/mica/travel-rule-validation');
    const header = { transfer_id: 'tr-ivms-doc', direction: 'outbound', amount_eur: 2500 };
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/mica/travel-rule-validation',
      headers: auth,
      payload: { ...header, ivms101: IVMS },
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.ok(valid(schema, { ...header, ivms101: IVMS }));
    checkAnswer('/api/mica/travel-rule-validation', 'post', ok);
    const noPersons = { ...header, ivms101: edited(IVMS, 'originator.originatorPersons', []) };
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/mica/travel-rule-validation',
      headers: auth,
      payload: noPersons,
    });
    assert.equal(refused.statusCode, 400);
    assert.equal(valid(schema, noPersons), false);
    checkAnswer('/api/mica/travel-rule-validation', 'post', refused);

    const O = 'originator.originatorPersons.0';
    const N = `${O}.naturalPerson`;
    const A = `${N}.geographicAddress.0`;
    const OV = 'originatingVASP.originatingVASP.legalPerson';
    const BV = 'beneficiaryVASP.beneficiaryVASP.legalPerson';
    const legal = IVMS.originatingVASP.originatingVASP;
    const cases: [string, unknown][] = [
      ['originator', null],
      ['originator', undefined],
      ['originator.originatorPersons', undefined],
      ['originator.originatorPersons', null],
      ['originator.originatorPersons', Array.from({ length: 101 }, () => legal)],
      ['originator.originatorPersons', [legal]],
      ['originator.originatorPersons', ['x']],
      [O, {}],
      [`${O}.legalPerson`, legal.legalPerson],
      [`${O}.legalPerson`, null],
      [`${O}.accountNumber`, [BTC]],
      [`${O}.accountNumber`, ['']],
      [`${O}.accountNumber`, 'x'],
      ['originator.accountNumber', null],
      ['originator.accountNumber', [' ']],
      [`${N}.name`, undefined],
      [`${N}.name.nameIdentifier`, []],
      [`${N}.name.nameIdentifier.0.nameIdentifierType`, 'ALIA'],
      [`${N}.name.nameIdentifier.0.nameIdentifierType`, 'NICK'],
      [`${N}.name.nameIdentifier.0.primaryIdentifier`, ''],
      [`${N}.name.nameIdentifier.0.primaryIdentifier`, ' '],
      [`${N}.name.nameIdentifier.0.primaryIdentifier`, 'Zoë'],
      [`${N}.name.nameIdentifier.0.primaryIdentifier`, 'h'.repeat(101)],
      [`${N}.name.nameIdentifier.0.secondaryIdentifier`, ''],
      [`${N}.name.nameIdentifier.0.secondaryIdentifier`, null],
      [`${N}.name.nameIdentifier.0.secondaryIdentifier`, undefined],
      [`${N}.name.localNameIdentifier`, [{ primaryIdentifier: 'Говард', nameIdentifierType: 'LEGL' }]],
      [`${N}.name.localNameIdentifier`, [{ primaryIdentifier: ' ', nameIdentifierType: 'LEGL' }]],
      [`${N}.name.phoneticNameIdentifier`, null],
      [`${N}.geographicAddress`, null],
      [`${N}.geographicAddress`, []],
      [`${A}.townName`, undefined],
      [`${A}.country`, 'XX'],
      [`${A}.country`, 'us'],
      [`${A}.country`, 'DU'],
      [`${A}.addressType`, 'WORK'],
      [`${A}.streetName`, undefined],
      [`${A}.buildingNumber`, ''],
      [`${A}.addressLine`, ['28 Greystone Street']],
      [`${A}.addressLine`, Array.from({ length: 8 }, () => 'line')],
      [`${A}.postCode`, 'p'.repeat(17)],
      [`${A}.postcode`, 5],
      [`${A}.department`, '   '],
      [`${N}.nationalIdentification`, null],
      [`${N}.nationalIdentification.nationalIdentifierType`, 'ZZZZ'],
      [`${N}.nationalIdentification.registrationAuthority`, 'RA1'],
      [`${N}.nationalIdentification.registrationAuthority`, ''],
      [`${N}.nationalIdentification.countryOfIssue`, 'ZZ'],
      [`${N}.countryOfResidence`, ''],
      [`${N}.countryOfResidence`, 'ZZ'],
      [`${N}.customerIdentification`, 'c'.repeat(51)],
      [`${N}.dateAndPlaceOfBirth`, null],
      [`${N}.dateAndPlaceOfBirth.dateOfBirth`, '1992-02-30'],
      [`${N}.dateAndPlaceOfBirth.dateOfBirth`, '0050-01-01'],
      [`${N}.dateAndPlaceOfBirth.placeOfBirth`, undefined],
      ['originatingVASP', null],
      ['originatingVASP.originatingVASP', null],
      [`${OV}.nationalIdentification.registrationAuthority`, 'RA777777'],
      [`${OV}.nationalIdentification.nationalIdentifier`, '506700t7z685vuozl877'],
      [`${OV}.nationalIdentification.countryOfIssue`, 'US'],
      [`${OV}.nationalIdentification.nationalIdentifierType`, 'SOCS'],
      [`${OV}.name.nameIdentifier.0.legalPersonNameIdentifierType`, 'SHRT'],
      [`${OV}.customerNumber`, 5],
      [`${OV}.customerNumber`, 'C-1'],
      [`${BV}.nationalIdentification.registrationAuthority`, undefined],
      [`${BV}.nationalIdentification.registrationAuthority`, ' '],
      ['transferPath', { transferPath: [{ intermediaryVASP: legal, sequence: 0 }] }],
      ['transferPath', { transferPath: [{ intermediaryVASP: legal, sequence: -1 }] }],
      ['transferPath', { transferPath: [{ intermediaryVASP: legal, sequence: 0.5 }] }],
      ['transferPath', { transferPath: [{ sequence: 0 }] }],
      ['transferPath', { transferPath: null }],
      ['payloadMetadata', { payloadVersion: '101', transliterationMethod: ['cyrl'] }],
      ['payloadMetadata', { payloadVersion: '102' }],
      ['payloadMetadata', { transliterationMethod: ['latn'] }],
      ['payloadMetadata', { payloadVersion: '' }],
    ];
    for (const [path, value] of cases) {
      const body = { ...header, ivms101: edited(IVMS, path, value) };
      const parsed = parseTravelRuleRequest(body, { today: TODAY });
      assert.equal(
        valid(schema, body),
        parsed.ok,
        `${path}=${JSON.stringify(value)?.slice(0, 40)}: ${parsed.ok ? 'accepted' : parsed.errors.join('; ')}`,
      );
    }
    // And one or two random edits at a time, over every element of the example (seeded, so a
    // disagreement reproduces): the two agree but for the wallet addresses, checked per chain.
    const random = seededRandom(101);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const texts = ['', ' ', 'x', 'Zoë', 'a'.repeat(36), 'a'.repeat(71), 'a'.repeat(101), 'LEGL', 'ALIA'];
    const codes = ['SHRT', 'XX', 'GB', 'gb', 'RA123456', 'LEIX', 'TXID', 'SOCS', 'GEOG', '2000-02-29'];
    for (let i = 0; i < 3000; i++) {
      const ivms101 = structuredClone(IVMS);
      const edits: string[] = [];
      for (let n = random() < 0.3 ? 2 : 1; n > 0; n--) {
        const [parent, key] = pick(elementsOf(ivms101));
        const now = parent[key];
        const choices: unknown[] =
          typeof now === 'string'
            ? [...texts, ...codes, null, 5]
            : Array.isArray(now)
              ? [[], null, [...now, ...now], now.slice(1), 'x']
              : [null, {}, 'x', 5];
        const choice = random() < 0.15 ? undefined : pick(choices);
        if (choice === undefined) delete parent[key];
        else parent[key] = structuredClone(choice);
        edits.push(`${key}=${JSON.stringify(choice)?.slice(0, 20)}`);
      }
      const body = JSON.parse(JSON.stringify({ ...header, ivms101 }));
      const parsed = parseTravelRuleRequest(body, { today: TODAY });
      const errors = parsed.ok ? [] : parsed.errors;
      if (!parsed.ok && errors.every((e) => /accountNumber\[\d+\]: address format/.test(e))) continue;
      assert.equal(valid(schema, body), parsed.ok, `${edits.join(', ')}: ${errors.join('; ')}`);
    }
    for (const ivms101 of ['x', 5, []]) {
      const body = { ...header, ivms101 };
      assert.equal(parseTravelRuleRequest(body, { today: TODAY }).ok, false);
      assert.equal(valid(schema, body), false, JSON.stringify(ivms101));
    }
  });
});
