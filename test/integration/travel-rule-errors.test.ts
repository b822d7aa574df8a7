import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { clientWithKey, startTestApp, type TestApp } from '../helpers/harness.ts';
import { completeBody, ETH, fixturePath, uniqueClientId } from '../helpers/travel-rule.ts';

const URL = '/api/mica/travel-rule-validation';
const IVMS_PAYLOAD = JSON.parse(readFileSync(fixturePath('ivms101/identity_payload.json'), 'utf8'));

describe('travel-rule validation errors (flat format, CONTRACT §3)', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  before(async () => {
    t = await startTestApp();
    ({ auth } = await clientWithKey(t, uniqueClientId('acme')));
  });
  after(() => t.close());

  const send = (payload: unknown, headers: Record<string, string> = auth) =>
    t.app.inject({ method: 'POST', url: URL, headers, payload: payload as object });
  async function expect400(payload: unknown): Promise<string[]> {
    const res = await send(payload);
    assert.equal(res.statusCode, 400, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['error', 'type', 'details', 'statusCode']);
    assert.equal(body.type, 'VALIDATION');
    assert.equal(body.statusCode, 400);
    assert.ok(!/at .+\.ts:\d+|stack|SELECT|INSERT/i.test(res.body), 'no internals leak');
    return body.details.errors as string[];
  }

  it('rejects an IVMS101 payload lacking a required element or with an unknown code, naming it', async () => {
    const body = { transfer_id: 'tr-ivms-bad', direction: 'outbound', amount_eur: 1, ivms101: IVMS_PAYLOAD };
    const noPersons = structuredClone(body);
    delete noPersons.ivms101.originator.originatorPersons;
    assert.deepEqual(await expect400(noPersons), ['ivms101.originator.originatorPersons: Required']);

    const badCode = structuredClone(body);
    badCode.ivms101.originator.originatorPersons[0].naturalPerson.name.nameIdentifier[0].nameIdentifierType =
      'LEGAL';
    const [error] = await expect400(badCode);
    assert.match(
      error ?? '',
      /^ivms101\.originator\.originatorPersons\[0\]\.naturalPerson\.name\.nameIdentifier\[0\]\.nameIdentifierType: Must be one of/,
    );
  });

  it('malformed values are a 400 flat VALIDATION listing every field at once', async () => {
    const body = completeBody('tr-bad', { direction: 'sideways', amount_eur: -5 });
    body.beneficiary = {
      ...body.beneficiary,
      casp_lei: '549300NRE2M9GQ3DTH09',
      wallet_address: ETH.slice(0, -1),
    };
    const errors = await expect400(body);
    assert.deepEqual(
      errors.map((e) => e.slice(0, e.indexOf(':'))),
      ['direction', 'amount_eur', 'beneficiary.wallet_address', 'beneficiary.casp_lei'],
    );
    assert.ok(errors.includes('direction: Must be one of: outbound, inbound'));
    assert.ok(errors.includes('amount_eur: Must be >= 0'));
    assert.ok(errors.includes('beneficiary.casp_lei: invalid LEI check digits'));

    assert.deepEqual(await expect400({ direction: 'outbound', amount_eur: 1 }), ['transfer_id: Required']);
    assert.deepEqual(await expect400(completeBody('tr-neg-crypto', { amount_crypto: -1 })), [
      'amount_crypto: Must be >= 0',
    ]);
    const notJson = await t.app.inject({
      method: 'POST',
      url: URL,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"transfer_id":',
    });
    assert.equal(notJson.statusCode, 400);
    assert.equal(notJson.json().type, 'VALIDATION');
  });

  it('text fields past the documented 1,024 characters are a 400, not stored', async () => {
    const body = completeBody('tr-long');
    body.originator = { ...body.originator, geographic_address: 'g'.repeat(500_000) };
    body.beneficiary = { ...body.beneficiary, casp_name: 'c'.repeat(1025) };
    assert.deepEqual(await expect400(body), [
      'originator.geographic_address: Must be at most 1024 characters',
      'beneficiary.casp_name: Must be at most 1024 characters',
    ]);
    const atLimit = completeBody('tr-at-limit');
    atLimit.originator = { ...atLimit.originator, name: 'n'.repeat(1024) };
    assert.equal((await send(atLimit)).statusCode, 200);
    // Characters, not UTF-16 units: 600 characters outside the BMP are 1,200 units.
    const wide = completeBody('tr-wide');
    wide.originator = { ...wide.originator, name: '\u{20000}'.repeat(600) };
    assert.equal((await send(wide)).statusCode, 200);
    // Ids are bounded like every id of the API (256 characters): the transfer's and a customer's.
    const ids = completeBody('\u{20000}'.repeat(200));
    assert.equal((await send(ids)).statusCode, 200, '200 characters, 400 UTF-16 units');
    const longCustomer = completeBody('tr-long-customer');
    (longCustomer.originator as Record<string, string>).customer_id = 'c'.repeat(257);
    assert.deepEqual(await expect400(longCustomer), [
      'originator.customer_id: Must be at most 256 characters',
    ]);
  });

  it('without a valid key: 401 flat AUTHENTICATION, before the body is looked at', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer mica_live_nope' }];
    for (const headers of attempts) {
      const res = await send({ not: 'checked' }, headers);
      assert.equal(res.statusCode, 401);
      const body = res.json();
      assert.equal(body.type, 'AUTHENTICATION');
      assert.equal(body.statusCode, 401);
      assert.equal(typeof body.error, 'string');
    }
  });
});
