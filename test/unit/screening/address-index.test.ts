import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toChecksumAddress } from '../../../src/domain/screening/address/index.ts';
import { buildAddressIndex } from '../../../src/domain/screening/address-index.ts';
import { parseEuXml, parseOfacCsv, type SanctionsList } from '../../../src/domain/screening/lists/index.ts';
import { fixtureText } from './fixtures.ts';

const tiny = parseOfacCsv({
  sdn: fixtureText('ofac_sdn/tiny_2025/sdn.csv'),
  comments: fixtureText('ofac_sdn/tiny_2025/sdn_comments.csv'),
});
const eu = parseEuXml(fixtureText('eu_xml/eu_sample.xml'));
const index = buildAddressIndex([tiny, eu]);
const SUEX = { list: 'ofac', entry_id: '33151', name: 'SUEX OTC, S.R.O.', programs: ['CYBER2'] };

describe('address index', () => {
  test('matches Bitcoin addresses exactly, including the rebuilt cut address', () => {
    assert.deepEqual(index.lookup('bitcoin', '1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi'), [SUEX]);
    assert.deepEqual(index.lookup('bitcoin', '1b64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi'), []);
    assert.deepEqual(index.lookup('bitcoin', '1B64QRxf'), []);
  });

  test('matches bech32 in either case, as the address is case-insensitive', () => {
    const hit = [
      { list: 'ofac', entry_id: '48603', name: 'KHOROSHEV, Dmitry Yuryevich', programs: ['CYBER2'] },
    ];
    assert.deepEqual(index.lookup('bitcoin', 'bc1qvhnfknw852ephxyc5hm4q520zmvf9maphetc9z'), hit);
    assert.deepEqual(index.lookup('bitcoin', 'BC1QVHNFKNW852EPHXYC5HM4Q520ZMVF9MAPHETC9Z'), hit);
  });

  test('matches an EVM address on every EVM chain, in any case, once per entry', () => {
    const address = '0x2f389ce8bd8ff92de3402ffce4691d17fc4f6535'; // listed under ETH and USDT
    for (const chain of ['ethereum', 'polygon', 'binance-smart-chain'] as const) {
      assert.deepEqual(index.lookup(chain, address), [SUEX]);
      assert.deepEqual(index.lookup(chain, toChecksumAddress(address)), [SUEX]);
      assert.deepEqual(index.lookup(chain, address.toUpperCase().replace('0X', '0x')), [SUEX]);
    }
    assert.deepEqual(index.lookup('bitcoin', address), []);
  });

  test('matches across lists and keeps each list separate', () => {
    const both = index.lookup('ethereum', '0x19aa5fe80d33a56d56c78e82ea5e50e5d80b4dff');
    assert.deepEqual(
      both.map((m) => `${m.list}:${m.entry_id}`),
      ['ofac:33151', 'eu:EU.9002.02'],
    );
  });

  test('matches Solana exactly', () => {
    const hit = index.lookup('solana', '7vVcBLQwT1rmjiTXhhvmHKfiaCda2giGMeKchc2jwmBN');
    assert.deepEqual(hit, [
      { list: 'eu', entry_id: 'EU.9002.02', name: 'Example Crypto Exchange OOO', programs: ['UKR', 'RUS'] },
    ]);
  });

  test('never matches unscreenable addresses (LTC, DASH, TRX)', () => {
    assert.deepEqual(index.lookup('bitcoin', 'Leo3j36nn1JcsUQruytQhFUdCdCH5YHMR3'), []);
    assert.deepEqual(index.lookup('solana', 'TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre'), []);
  });

  test('answers [] for unknown or junk input', () => {
    assert.deepEqual(index.lookup('ethereum', '0x0000000000000000000000000000000000000000'), []);
    assert.deepEqual(index.lookup('ethereum', ''), []);
    assert.deepEqual(index.lookup('bitcoin', 'not an address'), []);
  });

  test('returns copies: callers cannot corrupt the index', () => {
    const first = index.lookup('bitcoin', '1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi');
    first[0]!.programs.push('X');
    assert.deepEqual(index.lookup('bitcoin', '1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi'), [SUEX]);
  });

  test('an address whose entry is missing still matches, with an empty name', () => {
    const orphan: SanctionsList = {
      source: 'ofac',
      published_at: null,
      entries: [],
      addresses: [{ entry_id: '9', ticker: 'XBT', address: 'a', scope: 'bitcoin', match_key: 'a' }],
    };
    assert.deepEqual(buildAddressIndex([orphan]).lookup('bitcoin', 'a'), [
      { list: 'ofac', entry_id: '9', name: '', programs: [] },
    ]);
  });

  test('holds the screenable keys only', () => {
    assert.equal(buildAddressIndex([]).size, 0);
    // tiny_2025: 30 screenable listings, 24 distinct keys after ETH/USDT and XBT/USDT repeats.
    assert.equal(buildAddressIndex([tiny]).size, 24);
  });
});
