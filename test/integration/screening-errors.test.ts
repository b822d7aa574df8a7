import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, describe, it } from 'node:test';
import { toChecksumAddress } from '../../src/domain/screening/index.ts';
import { type FlatBody, startVendorApp, type VendorApp } from '../helpers/fake-vendors.ts';
import { fixturePath, screenGet, screenPost } from '../helpers/screening.ts';

describe('wallet screening errors (flat format) and wallet_screen on /evaluate', () => {
  let v: VendorApp;
  let t: VendorApp['t'];
  let auth: Record<string, string>;
  before(async () => {
    // Vendors are configured so that a test can show none of them is called for a bad request.
    v = await startVendorApp();
    ({ t, auth } = v);
  });
  after(() => v.close());
  beforeEach(() => v.reset());

  const calls = () => v.calls();

  it('rejects invalid addresses with a flat VALIDATION error, before any vendor is called', async () => {
    const bech = JSON.parse(
      readFileSync(fixturePath('address_formats/bip173_bip350_bech32_vectors.json'), 'utf8'),
    );
    const sol = JSON.parse(readFileSync(fixturePath('address_formats/solana_address_examples.json'), 'utf8'));
    const checksummed = toChecksumAddress('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359');
    const badChecksum = checksummed.replace('fB69', 'Fb69');
    const cases: Array<[string, string]> = [
      ...bech.segwit_address_invalid.map(
        (v: { string: string }) => [v.string, 'bitcoin'] as [string, string],
      ),
      ...sol.invalid.map((v: { address: string }) => [v.address, 'solana'] as [string, string]),
      [badChecksum, 'ethereum'],
      ['0x1234', 'polygon'],
      ['1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qj', 'bitcoin'],
      ['0x901bb9583b24d97e995513c6778dc6888ab6870e', 'bitcoin'],
      ['12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz', 'ethereum'],
    ];
    for (const [address, chain] of cases) {
      const res = await screenGet(t, auth, address, chain);
      assert.equal(res.statusCode, 400, `${chain} ${JSON.stringify(address)}: ${res.body}`);
      const body = res.json() as FlatBody;
      assert.equal(body.type, 'VALIDATION');
      assert.equal(body.statusCode, 400);
      const errors = body.details.errors as string[];
      assert.equal(errors.length, 1);
      assert.match(errors[0]!, /^wallet_address: \S/);
    }
    assert.equal(calls(), 0);

    const missing = await t.app.inject({
      method: 'GET',
      url: '/api/mica/wallet-screening?wallet_address=x',
      headers: auth,
    });
    assert.deepEqual((missing.json() as FlatBody).details.errors, ['blockchain: Required']);
    const unknown = await screenGet(t, auth, 'x', 'dogecoin');
    assert.deepEqual((unknown.json() as FlatBody).details.errors, [
      'blockchain: Must be one of: ethereum, bitcoin, polygon, binance-smart-chain, solana',
    ]);
    // An empty address is no address.
    const empty = await screenGet(t, auth, '', 'ethereum');
    assert.deepEqual((empty.json() as FlatBody).details.errors, ['wallet_address: Required']);
    const post = await screenPost(t, auth, { blockchain: 'ethereum', transaction_amount_eur: -1 });
    assert.equal(post.statusCode, 400);
    assert.deepEqual((post.json() as FlatBody).details.errors, [
      'wallet_address: Required',
      'transaction_amount_eur: Must be >= 0',
    ]);
    // The chain's own check of the address is reported with the schema's problems, not after them.
    const both = await screenPost(t, auth, {
      wallet_address: 'zzz',
      blockchain: 'bitcoin',
      transaction_amount_eur: -1,
    });
    assert.equal(both.statusCode, 400);
    const errors = (both.json() as FlatBody).details.errors as string[];
    assert.equal(errors.length, 2, errors.join('; '));
    assert.equal(errors[0], 'transaction_amount_eur: Must be >= 0');
    assert.match(errors[1]!, /^wallet_address: /);
  });

  it('a compressed body is a flat 400 VALIDATION that lists its problem', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/mica/wallet-screening',
      headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'br' },
      payload: '{"wallet_address":"x","blockchain":"bitcoin"}',
    });
    assert.equal(res.statusCode, 400);
    const body = res.json() as FlatBody;
    assert.equal(body.type, 'VALIDATION');
    assert.equal(body.statusCode, 400);
    assert.deepEqual(body.details.errors, [
      'body: Content-Encoding br is not supported; send the body uncompressed',
    ]);
  });

  it('a HEAD screens nothing: 405 with the methods served, no vendor called, nothing audited', async () => {
    const count = async () =>
      Number(
        (
          await t.deps.db
            .selectFrom('evaluations')
            .select(t.deps.db.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const res = await t.app.inject({
      method: 'HEAD',
      url: '/api/mica/wallet-screening?wallet_address=0x52908400098527886E0F7030069857D2E4169EE7&blockchain=ethereum',
      headers: auth,
    });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'GET, POST');
    assert.equal(calls(), 0);
    assert.equal(await count(), before);
  });

  it('answers 401 AUTHENTICATION (flat) without a key', async () => {
    for (const [method, url] of [
      ['GET', '/api/mica/wallet-screening?wallet_address=x&blockchain=bitcoin'],
      ['POST', '/api/mica/wallet-screening'],
      ['GET', '/api/mica/circuit-breaker/status'],
    ] as const) {
      const res = await t.app.inject({ method, url, payload: method === 'POST' ? {} : undefined });
      assert.equal(res.statusCode, 401, url);
      const body = res.json() as FlatBody;
      assert.equal(body.type, 'AUTHENTICATION');
      assert.equal(body.statusCode, 401);
    }
  });

  it('validates the address of a wallet_screen event on /evaluate too (nested format)', async () => {
    const client = (await t.deps.keys.authenticate(auth.authorization!.slice(7), 'live'))!.clientId;
    const send = (wallet_address: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/mica/evaluate',
        headers: { ...auth, 'content-type': 'application/json' },
        payload: JSON.stringify({
          client_id: client,
          trigger_type: 'wallet_screen',
          data: { wallet_address, blockchain: 'bitcoin', wallet_risk_score: 80 },
        }),
      });
    const bad = await send('1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qj');
    assert.equal(bad.statusCode, 400);
    const e = bad.json().error;
    assert.equal(e.code, 'INVALID_REQUEST');
    assert.equal(e.details.field, 'data.wallet_address');
    assert.match(e.details.errors[0], /^data\.wallet_address: /);
    const good = await send('1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi');
    assert.equal(good.statusCode, 200, good.body);
    assert.equal(
      good.json().results.find((r: { rule_id: string }) => r.rule_id === 'MICA-WAL-003').triggered,
      true,
    );
  });
});
