import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';

interface NestedBody {
  error: { code: string; message: string; details?: { field?: string; reason?: string; errors?: string[] } };
}

describe('evaluation errors (nested format, CONTRACT §3)', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  before(async () => {
    t = await startTestApp();
    ({ auth } = await clientWithKey(t, 'acme'));
  });
  after(() => t.close());

  const send = (payload: string | object, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: { ...auth, 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
    });

  async function expect400(payload: string | object, field: string, reason?: RegExp | string) {
    const res = await send(payload);
    assert.equal(res.statusCode, 400, res.body);
    const b = res.json() as NestedBody;
    assert.equal(b.error.code, 'INVALID_REQUEST');
    assert.equal(b.error.details?.field, field, res.body);
    if (typeof reason === 'string') assert.equal(b.error.details?.reason, reason);
    else if (reason) assert.match(b.error.details?.reason ?? '', reason);
    assert.ok(!/at .+\.ts:\d+|stack|SELECT|INSERT/i.test(res.body), 'no internals leak');
    return b;
  }

  it('a missing trigger_type is named, with its allowed values (spec: nested error format)', async () => {
    const b = await expect400(
      { client_id: 'acme', data: {} },
      'trigger_type',
      'Required; must be one of: transaction, wallet_screen, travel_rule, periodic, manual',
    );
    // The list of problems keeps the `<field>: Required` shape of the flat format.
    assert.deepEqual(b.error.details?.errors, ['trigger_type: Required']);
  });

  it('a trigger_type of the wrong type lists the allowed values too', async () => {
    for (const trigger_type of [null, 7, true, ['transaction']])
      await expect400(
        { client_id: 'acme', trigger_type, data: {} },
        'trigger_type',
        'Must be one of: transaction, wallet_screen, travel_rule, periodic, manual',
      );
  });

  it('an unknown trigger_type lists the allowed values', async () => {
    await expect400(
      { client_id: 'acme', trigger_type: 'wire', data: {} },
      'trigger_type',
      'Must be one of: transaction, wallet_screen, travel_rule, periodic, manual',
    );
  });

  it('every problem is reported at once; field names the first', async () => {
    const b = await expect400(
      {
        client_id: 'acme',
        trigger_type: 'transaction',
        data: {
          amount_eur: -1,
          customer_verified: 'yes',
          address_validation_status: 'ok',
          customer_country: 'DEU',
        },
      },
      'data.customer_verified',
    );
    // Reported in the order of the schema's fields.
    assert.deepEqual(b.error.details?.errors, [
      'data.customer_verified: Expected boolean',
      'data.customer_country: Must be an ISO 3166-1 alpha-2 country code',
      'data.amount_eur: Must be >= 0',
      'data.address_validation_status: Must be one of: passed, failed, pending',
    ]);
    assert.equal(b.error.details?.errors?.length, 4);
  });

  it('country fields take assigned ISO 3166-1 alpha-2 codes (any case) and XK, nothing else', async () => {
    // A typo must not pass as a country on no high-risk list: MICA-CDD-006 would silently not apply.
    // Look-alikes that upper-case to a code (long s: ſy → SY; dotless i: ır → IR) are no code either.
    for (const customer_country of ['XX', 'DU', 'UK', 'EU', 'D1', 'DEU', 'ſy', 'ır', 'ＳＹ'])
      await expect400(
        { client_id: 'acme', trigger_type: 'transaction', data: { customer_country } },
        'data.customer_country',
        'Must be an ISO 3166-1 alpha-2 country code',
      );
    const travel = await send({
      client_id: 'acme',
      trigger_type: 'travel_rule',
      data: { beneficiary_country: 'ZZ' },
    });
    assert.equal(travel.statusCode, 400);
    assert.ok(
      (travel.json() as NestedBody).error.details?.errors?.includes(
        'data.beneficiary_country: Must be an ISO 3166-1 alpha-2 country code',
      ),
      travel.body,
    );
    for (const customer_country of ['DE', 'de', 'XK', 'gb'])
      assert.equal(
        (await send({ client_id: 'acme', trigger_type: 'transaction', data: { customer_country } }))
          .statusCode,
        200,
        customer_country,
      );
  });

  it("the request's own fields are named before fields inside data", async () => {
    // The context's data schema is checked first; the first bad field is still the request's.
    let b = await expect400(
      { trigger_type: 'transaction', data: { customer_verified: 'yes' } },
      'client_id',
      'Required',
    );
    assert.deepEqual(b.error.details?.errors, [
      'client_id: Required',
      'data.customer_verified: Expected boolean',
    ]);
    b = await expect400(
      { client_id: 5, trigger_type: 'transaction', trigger_entity_type: 'x', data: { amount_eur: -1 } },
      'client_id',
      'Expected string',
    );
    assert.equal(b.error.details?.errors?.at(-1), 'data.amount_eur: Must be >= 0');
    assert.equal(b.error.details?.errors?.length, 3);
  });

  it('required fields of each context', async () => {
    const b = await expect400(
      { client_id: 'acme', trigger_type: 'travel_rule', data: { transfer_id: 't' } },
      'data.direction',
    );
    assert.ok(b.error.details?.errors?.includes('data.self_hosted_wallet: Required'));
    await expect400(
      { client_id: 'acme', trigger_type: 'wallet_screen', data: { blockchain: 'ethereum' } },
      'data.wallet_address',
      'Required',
    );
    await expect400(
      {
        client_id: 'acme',
        trigger_type: 'wallet_screen',
        data: { wallet_address: 'x', blockchain: 'dogecoin' },
      },
      'data.blockchain',
      /^Must be one of: ethereum, bitcoin/,
    );
  });

  it('wrong types, strings for numbers, non-finite numbers, unknown enums', async () => {
    await expect400(
      { client_id: 'acme', trigger_type: 'transaction', data: { amount_eur: '1000' } },
      'data.amount_eur',
      'Expected number',
    );
    await expect400(
      '{"client_id":"acme","trigger_type":"transaction","data":{"amount_eur":1e999}}',
      'data.amount_eur',
    );
    await expect400({ client_id: 'acme', trigger_type: 'transaction', data: [] }, 'data', 'Expected object');
    await expect400({ client_id: 42, trigger_type: 'transaction', data: {} }, 'client_id', 'Expected string');
    await expect400(
      { client_id: 'acme', trigger_type: 'transaction', trigger_entity_type: 'boat', data: {} },
      'trigger_entity_type',
      /^Must be one of/,
    );
    await expect400(
      { client_id: 'acme', trigger_type: 'periodic', data: { str_detected_at: 'yesterday' } },
      'data.str_detected_at',
    );
  });

  it('str_detected_at takes an ISO 8601 date or date-time, up to the end of the calendar', async () => {
    for (const str_detected_at of [
      '2026-06-26',
      '2026-06-26T23:59:60Z',
      '9999-12-31T00:00:00Z',
      '9999-12-31',
    ]) {
      const res = await send({ client_id: 'acme', trigger_type: 'periodic', data: { str_detected_at } });
      assert.equal(res.statusCode, 200, `${str_detected_at}: ${res.body}`);
      const rpt = (
        res.json() as { results: Array<{ rule_id: string; conditions_met: unknown }> }
      ).results.find((r) => r.rule_id === 'MICA-RPT-002');
      assert.deepEqual(rpt?.conditions_met, {
        str_filed: false,
        str_overdue: !str_detected_at.startsWith('9999'),
      });
    }
  });

  it('unknown rule ids in a manual evaluation', async () => {
    await expect400(
      { client_id: 'acme', trigger_type: 'manual', data: { rule_ids: ['MICA-CDD-001', 'MICA-RPT-003'] } },
      'data.rule_ids',
      /MICA-RPT-003/,
    );
  });

  it('problems the schema cannot see are listed with the schema’s own, all at once', async () => {
    // An address invalid for its chain, beside a score out of range.
    let b = await expect400(
      {
        client_id: 'acme',
        trigger_type: 'wallet_screen',
        data: { wallet_address: 'x', blockchain: 'bitcoin', wallet_risk_score: -1 },
      },
      'data.wallet_risk_score',
    );
    assert.equal(b.error.details?.errors?.length, 2, JSON.stringify(b));
    assert.match(b.error.details?.errors?.[1] ?? '', /^data\.wallet_address: /);
    // Unknown rule ids, beside a negative amount.
    b = await expect400(
      { client_id: 'acme', trigger_type: 'manual', data: { rule_ids: ['BAD'], amount_eur: -1 } },
      'data.amount_eur',
    );
    assert.deepEqual(b.error.details?.errors, [
      'data.amount_eur: Must be >= 0',
      'data.rule_ids: Unknown rule ids: BAD',
    ]);
    // Alone, such a problem is the first: its field and reason.
    await expect400(
      {
        client_id: 'acme',
        trigger_type: 'wallet_screen',
        data: { wallet_address: 'x', blockchain: 'ethereum' },
      },
      'data.wallet_address',
    );
    // A manual evaluation that names the chain has its address checked the same way.
    await expect400(
      {
        client_id: 'acme',
        trigger_type: 'manual',
        data: { rule_ids: ['MICA-WAL-001'], wallet_address: '0x123', blockchain: 'ethereum' },
      },
      'data.wallet_address',
      /EVM address/,
    );
  });

  it('trigger_entity_type is fixed per context (spec); a manual evaluation takes any', async () => {
    for (const [trigger_type, entity, allowed] of [
      ['periodic', 'wallet', 'governance, customer'],
      ['transaction', 'wallet', 'transaction'],
      ['travel_rule', 'transaction', 'transfer'],
    ] as const) {
      const b = await expect400(
        { client_id: 'acme', trigger_type, trigger_entity_type: entity, data: {} },
        'trigger_entity_type',
      );
      assert.ok(
        b.error.details?.errors?.includes(
          `trigger_entity_type: Must be one of: ${allowed} (for trigger_type ${trigger_type})`,
        ),
        JSON.stringify(b),
      );
    }
    for (const entity of ['governance', 'customer']) {
      const ok = await send({
        client_id: 'acme',
        trigger_type: 'periodic',
        trigger_entity_type: entity,
        data: {},
      });
      assert.equal(ok.statusCode, 200, ok.body);
    }
    const manual = await send({
      client_id: 'acme',
      trigger_type: 'manual',
      trigger_entity_type: 'wallet',
      data: { rule_ids: ['MICA-WAL-001'] },
    });
    assert.equal(manual.statusCode, 200, manual.body);
  });

  it('a body that is not JSON, empty, an array or a scalar', async () => {
    const malformed = await expect400('{"client_id": "acme",', 'body');
    // Every problem is listed, also when the check found only one (CONTRACT §3).
    assert.deepEqual(malformed.error.details?.errors, [`body: ${malformed.error.details?.reason}`]);
    await expect400('', 'body');
    await expect400('[1,2]', 'body', 'Expected object');
    await expect400('"text"', 'body', 'Expected object');
    const res = await send('{"client_id":"acme"}', { 'content-type': 'text/plain' });
    assert.equal(res.statusCode, 400);
  });

  it('text the database cannot store (NUL, unpaired surrogate) is a 400, not a 500', async () => {
    await expect400(
      '{"client_id":"acme","trigger_type":"transaction","data":{"customer_id":"a\\u0000b"}}',
      'body',
    );
    await expect400(
      '{"client_id":"acme","trigger_type":"transaction","data":{"customer_id":"\\ud800"}}',
      'body',
    );
    const ok = await send(
      '{"client_id":"acme","trigger_type":"transaction","data":{"customer_id":"\\ud83d\\ude00 \\\\u0000"}}',
    );
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it('a body that is not UTF-8 is a 400, while a U+FFFD sent as UTF-8 is kept', async () => {
    // 0xff decodes to U+FFFD: accepted, the audit trail would keep a request other than the one sent.
    const bytes = (s: string) => Buffer.from(s, 'latin1');
    await expect400(
      bytes('{"client_id":"acme","trigger_type":"transaction","data":{"customer_id":"a\xffb"}}'),
      'body',
      'Invalid UTF-8',
    );
    const ok = await send(
      Buffer.from('{"client_id":"acme","trigger_type":"transaction","data":{"customer_id":"a\ufffdb"}}'),
    );
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it("the rules' date fields take a date or a zoned date-time, each readable by the rules", async () => {
    const body = (v: string) => ({
      client_id: 'acme',
      trigger_type: 'manual',
      data: { rule_ids: ['MICA-RPT-002'], str_detected_at: v, str_filed: false },
    });
    for (const v of ['2026-11-24T12:00:00', 'yesterday', '2026-02-30'])
      await expect400(
        body(v),
        'data.str_detected_at',
        'Must be an ISO 8601 date (YYYY-MM-DD) or date-time with a zone (Z or ±hh:mm)',
      );
    // An hour-only offset and a long fraction are accepted, and read: a week-old STR is overdue.
    for (const v of ['2026-01-05T12:00:00+01', '2026-01-05T12:00:00.1234567890Z', '2026-01-05']) {
      const res = await send(body(v));
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().results[0].conditions_met.str_overdue, true, v);
    }
  });

  it('a compressed body (Content-Encoding other than identity) is a 400 INVALID_REQUEST, not read as plain JSON', async () => {
    const body = '{"client_id":"acme","trigger_type":"transaction","data":{"customer_id":"c"}}';
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await send(body, { 'content-encoding': encoding });
      assert.equal(res.statusCode, 400, res.body);
      const { error } = res.json() as NestedBody;
      assert.equal(error.code, 'INVALID_REQUEST', 'one of CONTRACT §3 codes');
      assert.equal(error.details?.field, 'body');
      assert.deepEqual(error.details?.errors, [
        `body: Content-Encoding ${encoding} is not supported; send the body uncompressed`,
      ]);
    }
    assert.equal((await send(body, { 'content-encoding': 'identity' })).statusCode, 200);
  });

  it('prototype-pollution keys are refused', async () => {
    // Valid JSON, refused for what it is rather than as malformed.
    for (const body of [
      '{"client_id":"acme","trigger_type":"transaction","data":{"__proto__":{"x":1}}}',
      '{"client_id":"acme","trigger_type":"transaction","data":{"constructor":{"prototype":{"x":1}}}}',
    ]) {
      const b = await expect400(body, 'body', 'Forbidden key __proto__ or constructor.prototype');
      assert.match(b.error.message, /forbidden key/);
    }
    await expect400('{"client_id":"acme",', 'body', 'Malformed JSON');
  });

  it('a key named twice in one object is refused, naming it (the audit keeps the text with both)', async () => {
    // JSON.parse would evaluate the last amount while the stored request shows both.
    const b = await expect400(
      '{"client_id":"acme","trigger_type":"transaction","trigger_entity_id":"dup-1","data":{"customer_id":"c1","amount_eur":10,"amount_eur":50000}}',
      'data.amount_eur',
      'Duplicate key: an object names this field twice',
    );
    assert.deepEqual(b.error.details?.errors, [
      'data.amount_eur: Duplicate key: an object names this field twice',
    ]);
    // Written with an escape it is still the same key.
    await expect400(
      '{"client_id":"acme","\\u0063lient_id":"other","trigger_type":"manual","data":{}}',
      'client_id',
    );
    // The same name in two objects is no duplicate: originator and beneficiary each have a name.
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/mica/travel-rule-validation',
      headers: { ...auth, 'content-type': 'application/json' },
      payload:
        '{"transfer_id":"dup-ok","direction":"outbound","amount_eur":10,' +
        '"originator":{"name":"Jane Howard","wallet_address":"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359","national_id":"X1"},' +
        '"beneficiary":{"name":"Lawrence Clark","wallet_address":"0x52908400098527886E0F7030069857D2E4169EE7"}}',
    });
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it('a data field its context does not name is refused, every one listed (a typo would pass as absent)', async () => {
    // `amount` and `suspicious_activity` for amount_eur and suspicious_activity_detected: read as
    // absent, neither could trigger its rule, and the transaction would pass.
    const b = await expect400(
      {
        client_id: 'acme',
        trigger_type: 'transaction',
        trigger_entity_id: 'typo-1',
        data: { customer_id: 'c1', customer_verified: true, amount: 50000, suspicious_activity: true },
      },
      'data.amount',
      'Unknown field',
    );
    assert.deepEqual(b.error.details?.errors, [
      'data.amount: Unknown field',
      'data.suspicious_activity: Unknown field',
    ]);
    // Per context: a periodic field is unknown to a transaction, a transaction field to periodic.
    await expect400(
      { client_id: 'acme', trigger_type: 'transaction', data: { days_since_last_review: 400 } },
      'data.days_since_last_review',
      'Unknown field',
    );
    await expect400(
      { client_id: 'acme', trigger_type: 'periodic', data: { amount_eur: 5 } },
      'data.amount_eur',
      'Unknown field',
    );
    await expect400(
      {
        client_id: 'acme',
        trigger_type: 'wallet_screen',
        data: {
          wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
          blockchain: 'ethereum',
          sanctioned: true,
        },
      },
      'data.sanctioned',
      'Unknown field',
    );
    // A manual evaluation takes the fields of every context, and nothing else.
    await expect400(
      { client_id: 'acme', trigger_type: 'manual', data: { days_since_last_review: 400, foo: 1 } },
      'data.foo',
      'Unknown field',
    );
  });

  it('API answers, successes and errors alike, are not to be cached (Cache-Control: no-store)', async () => {
    const ok = await send({
      client_id: 'acme',
      trigger_type: 'manual',
      data: { rule_ids: ['MICA-CDD-001'] },
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.headers['cache-control'], 'no-store');
    const bad = await send('{');
    assert.equal(bad.headers['cache-control'], 'no-store');
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.headers['cache-control'], undefined);
  });

  it('413 above 1 MiB', async () => {
    const big = JSON.stringify({
      client_id: 'acme',
      trigger_type: 'transaction',
      data: { pad: 'x'.repeat(1024 * 1024) },
    });
    const res = await send(big);
    assert.equal(res.statusCode, 413);
    assert.equal((res.json() as NestedBody).error.code, 'PAYLOAD_TOO_LARGE');
    assert.deepEqual((res.json() as NestedBody).error.details, {
      field: 'body',
      reason: 'Exceeds the 1 MiB limit',
      errors: ['body: Exceeds the 1 MiB limit'],
    });
  });

  it('on the flat endpoints: a 413 lists the problem, and an unknown path or method is a flat 404', async () => {
    const big = JSON.stringify({ wallet_address: 'x', blockchain: 'ethereum', pad: 'x'.repeat(1024 * 1024) });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/wallet-screening',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: big,
    });
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), {
      error: 'Request body exceeds the 1 MiB limit',
      type: 'VALIDATION',
      details: { errors: ['body: Exceeds the 1 MiB limit'] },
      statusCode: 413,
    });
    const unknown = await t.app.inject({ method: 'GET', url: '/api/mica/cache/nope', headers: auth });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().type, 'NOT_FOUND', unknown.body);
    assert.equal(unknown.json().statusCode, 404);
    // A path served under other methods: 405 naming them, in Allow too (RFC 9110 §15.5.6).
    for (const [method, url, allow] of [
      ['PUT', '/api/mica/wallet-screening', 'GET, POST'],
      ['DELETE', '/api/mica/travel-rule-validation', 'POST'],
      ['POST', '/api/mica/circuit-breaker/status', 'GET, HEAD'],
      ['DELETE', '/api/mica/cache/invalidate', 'POST'],
    ] as const) {
      const r = await t.app.inject({ method, url, headers: auth });
      assert.equal(r.statusCode, 405, `${method} ${url}`);
      assert.equal(r.headers.allow, allow, `${method} ${url}`);
      assert.deepEqual(r.json(), {
        error: `Method ${method} not allowed on ${url}; allowed: ${allow}`,
        type: 'METHOD_NOT_ALLOWED',
        details: { allowed: allow.split(', ') },
        statusCode: 405,
      });
      assert.match(String(r.headers['x-ratelimit-remaining']), /^\d+$/, `${method} ${url}`);
    }
  });

  it('unknown routes are a nested 404, a known path with another method a nested 405; with a valid key both are counted', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nope', headers: auth });
    assert.equal(res.statusCode, 404);
    assert.equal((res.json() as NestedBody).error.code, 'NOT_FOUND');
    assert.match(String(res.headers['x-ratelimit-limit']), /^\d+$/);
    assert.match(String(res.headers['x-ratelimit-reset']), /^\d+$/);
    const put = await t.app.inject({ method: 'PUT', url: '/api/mica/evaluate', headers: auth, payload: {} });
    assert.equal(put.statusCode, 405);
    assert.equal(put.headers.allow, 'POST');
    assert.equal((put.json() as NestedBody).error.code, 'METHOD_NOT_ALLOWED');
    const remaining = Number(put.headers['x-ratelimit-remaining']);
    assert.equal(Number(res.headers['x-ratelimit-remaining']) - remaining, 1, 'each counted once');
    // A segment longer than any id is refused before routing: still counted, 404 under a served
    // method, 405 under another.
    const long = `/api/cases/${'x'.repeat(150)}`;
    const long404 = await t.app.inject({ method: 'GET', url: long, headers: auth });
    assert.equal(long404.statusCode, 404, long404.body);
    assert.equal((long404.json() as NestedBody).error.code, 'NOT_FOUND');
    assert.equal(Number(long404.headers['x-ratelimit-remaining']), remaining - 1);
    const long405 = await t.app.inject({ method: 'DELETE', url: long, headers: auth });
    assert.equal(long405.statusCode, 405);
    assert.equal(Number(long405.headers['x-ratelimit-remaining']), remaining - 2);
    const case405 = await t.app.inject({
      method: 'DELETE',
      url: '/api/cases/CASE-2026-000001',
      headers: auth,
    });
    assert.equal(case405.statusCode, 405);
    assert.equal(case405.headers.allow, 'GET, HEAD');
    // Without a valid key: the same answers, no 401 (nothing here needs a key), no headers.
    for (const headers of [{}, { authorization: 'Bearer mica_live_nope' }]) {
      const anon = await t.app.inject({ method: 'GET', url: '/api/nope', headers });
      assert.equal(anon.statusCode, 404);
      assert.equal(anon.headers['x-ratelimit-limit'], undefined);
      const anonPut = await t.app.inject({ method: 'PUT', url: '/api/mica/evaluate', headers });
      assert.equal(anonPut.statusCode, 405);
    }
  });

  it('nothing is stored for a rejected request', async () => {
    const before = await t.deps.db
      .selectFrom('evaluations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    await send({ client_id: 'acme', trigger_type: 'transaction', data: { amount_eur: -5 } });
    const after = await t.deps.db
      .selectFrom('evaluations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });
});

describe('documentation and health', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('serves the OpenAPI document from the same schemas, and the docs page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    // 3.1: the request schemas use if/then, which OpenAPI 3.0 does not allow.
    assert.equal(doc.openapi, '3.1.0');
    // Every endpoint of the spec and CONTRACT §9 is documented, /metrics too.
    for (const path of [
      '/api/mica/evaluate',
      '/api/mica/evaluations/{evaluation_id}',
      '/api/mica/rules',
      '/api/mica/wallet-screening',
      '/api/mica/travel-rule-validation',
      '/api/mica/circuit-breaker/status',
      '/api/mica/cache/stats',
      '/api/mica/cache/invalidate',
      '/api/mica/audit/evaluations',
      '/api/mica/audit/actions',
      '/api/alerts',
      '/api/cases',
      '/metrics',
    ])
      assert.ok(doc.paths[path], `${path} is documented`);
    const op = doc.paths['/api/mica/evaluate'].post;
    assert.ok(op.requestBody.content['application/json'].schema.properties.trigger_type);
    assert.ok(op.responses['200']);
    // The audit endpoints' answer, page or export, and the rule catalogue's entries are documented.
    for (const path of ['/api/mica/audit/evaluations', '/api/mica/audit/actions'])
      assert.deepEqual(Object.keys(doc.paths[path].get.responses['200'].content).sort(), [
        'application/json',
        'text/csv',
      ]);
    const auditRow =
      doc.paths['/api/mica/audit/evaluations'].get.responses['200'].content['application/json'].schema
        .anyOf[1].items;
    for (const column of ['client_id', 'evaluation_id', 'rule_id', 'result', 'conditions_met', 'severity'])
      assert.ok(auditRow.properties[column]?.description, `audit row: ${column}`);
    const rule =
      doc.paths['/api/mica/rules'].get.responses['200'].content['application/json'].schema.properties.items
        .items;
    for (const field of ['id', 'name', 'article', 'contexts', 'result', 'severity', 'actions', 'conditions'])
      assert.ok(rule.properties[field], `rules: ${field}`);
    // Errors every store-backed endpoint can give, and the headers of every answer.
    for (const status of ['400', '429', '503'])
      assert.ok(doc.paths['/api/mica/evaluations/{evaluation_id}'].get.responses[status], status);
    assert.match(doc.info.description, /X-RateLimit-Remaining/);
    // The headers are declared on the answers too, and every operation has its own id.
    const evaluate = doc.paths['/api/mica/evaluate'].post.responses;
    for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
      assert.ok(evaluate['200'].headers?.[h], h);
    assert.ok(evaluate['429'].headers?.['Retry-After']);
    assert.ok(doc.paths['/api/mica/audit/evaluations'].get.responses['200'].headers?.['Content-Disposition']);
    const ids = Object.values(doc.paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string }>).map((op) => op.operationId),
    );
    assert.ok(
      ids.every((id) => typeof id === 'string' && /^[a-z]+[A-Za-z0-9]*$/.test(id)),
      ids.join(' '),
    );
    assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
    assert.equal(evaluate['200'] && doc.paths['/api/mica/evaluate'].post.operationId, 'postApiMicaEvaluate');
    // A webhook's body and signature header, documented (the route reads the raw bytes itself).
    const hook = doc.paths['/api/webhooks/screening'].post;
    assert.deepEqual(hook.requestBody.content['application/json'].schema.required, ['id', 'event', 'data']);
    assert.ok(
      hook.parameters.some(
        (p: { in: string; name: string }) => p.in === 'header' && p.name === 'x-screening-signature',
      ),
    );
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(docs.statusCode, 200);
  });

  it('healthz and readyz need no key', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().checks.database, 'ok');
  });
});

describe('metrics', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('exposes Prometheus metrics: requests, latency, rule results, audit batches', async () => {
    const { auth } = await clientWithKey(t, 'acme');
    await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: auth,
      payload: { client_id: 'acme', trigger_type: 'transaction', data: { customer_verified: false } },
    });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(
      res.body,
      /mica_http_requests_total\{method="POST",route="\/api\/mica\/evaluate",status="200"\} 1/,
    );
    assert.match(
      res.body,
      /mica_rule_evaluations_total\{rule_id="MICA-CDD-001",result="block",triggered="true"\} 1/,
    );
    assert.match(res.body, /mica_audit_batch_size_count 1/);
    assert.match(res.body, /mica_http_request_duration_seconds_bucket/);
  });

  it('counts cache lookups and shows each vendor breaker’s state (every declared metric has samples)', async () => {
    const { auth } = await clientWithKey(t, 'globex');
    const url =
      '/api/mica/wallet-screening?wallet_address=0x8589427373D6D84E98730D7795D8f6f8731FDA16&blockchain=ethereum';
    for (let i = 0; i < 2; i++)
      assert.equal((await t.app.inject({ method: 'GET', url, headers: auth })).statusCode, 200);
    const body = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(body, /mica_cache_lookups_total\{cache="wallet_screening",outcome="miss"\} 1/);
    assert.match(body, /mica_cache_lookups_total\{cache="wallet_screening",outcome="hit"\} 1/);
    for (const vendor of ['vendor_a', 'vendor_b', 'vendor_c'])
      assert.match(body, new RegExp(`mica_vendor_breaker_state\\{vendor="${vendor}"\\} 0`));
    // A metric declared but never given a value would read as zero on a dashboard, wrongly.
    const declared = [...body.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
    const empty = declared.filter(
      (name) => !new RegExp(`^${name}(?:_bucket|_sum|_count)?[{ ]`, 'm').test(body),
    );
    assert.deepEqual(empty, []);
  });
});

describe('a smaller BODY_LIMIT_BYTES', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  before(async () => {
    t = await startTestApp({ BODY_LIMIT_BYTES: '5000' });
    ({ auth } = await clientWithKey(t, 'acme'));
  });
  after(() => t.close());

  it('the 413 names the configured limit, not the default', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/evaluate',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({
        client_id: 'acme',
        trigger_type: 'transaction',
        data: { pad: 'x'.repeat(6000) },
      }),
    });
    assert.equal(res.statusCode, 413, res.body);
    assert.deepEqual((res.json() as NestedBody).error, {
      code: 'PAYLOAD_TOO_LARGE',
      message: 'Request body exceeds the 5000 bytes limit',
      details: {
        field: 'body',
        reason: 'Exceeds the 5000 bytes limit',
        errors: ['body: Exceeds the 5000 bytes limit'],
      },
    });
  });
});
