import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateAddress } from '../../../src/domain/screening/address/index.ts';
import { fixtureJson, SNAPSHOTS, snapshotList } from './fixtures.ts';

type Vector = { string: string; reason?: string };
const bip = fixtureJson<Record<string, Vector[]>>('address_formats/bip173_bip350_bech32_vectors.json');
const isMainnet = (s: string) => s.toLowerCase().startsWith('bc1');

describe('BIP173 / BIP350 segwit address vectors', () => {
  const valid = bip.segwit_address_valid!;
  const invalid = bip.segwit_address_invalid!;

  test('the vector file has the expected size', () => {
    assert.equal(valid.length, 8);
    assert.equal(invalid.length, 15);
  });

  for (const v of valid.filter((x) => isMainnet(x.string))) {
    test(`accepts mainnet ${v.string}`, () => {
      assert.deepEqual(validateAddress('bitcoin', v.string), {
        ok: true,
        normalized: v.string.toLowerCase(),
      });
    });
  }

  for (const v of valid.filter((x) => !isMainnet(x.string))) {
    test(`rejects valid testnet ${v.string}`, () => {
      assert.deepEqual(validateAddress('bitcoin', v.string), {
        ok: false,
        reason: 'not a mainnet bitcoin address',
      });
    });
  }

  for (const v of invalid) {
    test(`rejects ${v.string} (${v.reason})`, () => {
      const r = validateAddress('bitcoin', v.string);
      assert.equal(r.ok, false);
    });
  }

  test('names the wrong checksum variant', () => {
    const bech32ForV1 = 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd';
    const bech32mForV0 = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh';
    assert.match((validateAddress('bitcoin', bech32ForV1) as { reason: string }).reason, /bech32m/);
    assert.match(
      (validateAddress('bitcoin', bech32mForV0) as { reason: string }).reason,
      /v0 must use bech32/,
    );
  });

  test('rejects mixed case even on mainnet', () => {
    const mixed = 'bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
    assert.deepEqual(validateAddress('bitcoin', mixed), { ok: false, reason: 'mixed-case bech32 address' });
  });

  test('says what another chain’s address is, rather than a bech32 detail', () => {
    // An EIP-55 address holds a '1' and mixed case: it used to read as a "mixed-case bech32 address".
    for (const evm of [
      '0x52908400098527886E0F7030069857D2E4169EE7',
      '0x52908400098527886e0f7030069857d2e4169ee7',
    ])
      assert.deepEqual(validateAddress('bitcoin', evm), {
        ok: false,
        reason: 'an EVM address (0x…), not a bitcoin address',
      });
    assert.deepEqual(validateAddress('bitcoin', 'Ltc1qW508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9'), {
      ok: false,
      reason: 'not a mainnet bitcoin address',
    });
  });
});

type Standard = { network: string; base58check?: string; bech32?: string };
type Invalid = { address?: string; exception: string; network?: unknown; paymentException?: string };
const bjs = fixtureJson<{ standard: Standard[]; invalid: Record<string, Invalid[]> }>(
  'address_formats/bitcoinjs_address_fixtures.json',
);

describe('bitcoinjs address fixtures', () => {
  for (const f of bjs.standard) {
    const address = (f.base58check ?? f.bech32)!;
    const expected = f.network === 'bitcoin';
    test(`${expected ? 'accepts' : 'rejects'} ${f.network} ${address}`, () => {
      assert.equal(validateAddress('bitcoin', address).ok, expected);
    });
  }

  const invalid = [
    ...(bjs.invalid.bech32 ?? []),
    ...(bjs.invalid.fromBase58Check ?? []),
    ...(bjs.invalid.toOutputScript ?? []),
  ].filter((f): f is Invalid & { address: string } => typeof f.address === 'string');
  // Two entries are about something other than mainnet address form: BC1SW50QGDZ25J is refused
  // for a custom network 'foo', and bc1pllll… is a well-formed taproot address whose key is not on
  // the curve (bitcoinjs refuses to build a payment; Bitcoin Core accepts the address).
  const formValidOnMainnet = new Set([
    'BC1SW50QGDZ25J',
    'bc1pllllllllllllllllllllllllllllllllllllllllllllallllshsdfvw2y',
  ]);
  for (const f of invalid) {
    const expected = formValidOnMainnet.has(f.address);
    test(`${expected ? 'accepts (see note)' : 'rejects'} ${f.address} (${f.exception})`, () => {
      assert.equal(validateAddress('bitcoin', f.address).ok, expected);
    });
  }
});

type CoreKey = [string, string, { addrType?: string; isPrivkey: boolean; isTestnet: boolean }];

describe('Bitcoin Core base58 key vectors', () => {
  const validKeys = fixtureJson<CoreKey[]>('address_formats/base58_keys_valid.json');
  const invalidKeys = fixtureJson<[string][]>('address_formats/base58_keys_invalid.json');

  test('accepts exactly the mainnet pubkey/script addresses of keys_valid', () => {
    const accepted = validKeys.filter(([s]) => validateAddress('bitcoin', s).ok).map(([s]) => s);
    const expected = validKeys.filter(([, , m]) => !m.isPrivkey && !m.isTestnet).map(([s]) => s);
    assert.equal(expected.length, 14);
    assert.deepEqual(accepted, expected);
  });

  test('the accepted ones are P2PKH (1…) or P2SH (3…)', () => {
    for (const [s, , m] of validKeys.filter(([, , meta]) => !meta.isPrivkey && !meta.isTestnet)) {
      assert.equal(s[0], m.addrType === 'pubkey' ? '1' : '3', s);
    }
  });

  test('rejects every keys_invalid string', () => {
    assert.equal(invalidKeys.length, 50);
    for (const [s] of invalidKeys) assert.equal(validateAddress('bitcoin', s).ok, false, s);
  });
});

describe('bs58check fixtures', () => {
  const bs = fixtureJson<{ valid: { string: string; payload: string }[]; invalid: { string: string }[] }>(
    'address_formats/bs58check_fixtures.json',
  );
  test('accepts a valid base58check string only when it is a 21-byte payload with version 00 or 05', () => {
    for (const v of bs.valid) {
      const expected = v.payload.length === 42 && (v.payload.startsWith('00') || v.payload.startsWith('05'));
      assert.equal(validateAddress('bitcoin', v.string).ok, expected, v.string);
    }
  });
  test('rejects every invalid base58check string', () => {
    for (const v of bs.invalid) assert.equal(validateAddress('bitcoin', v.string).ok, false, v.string);
  });
});

describe('OFAC XBT snapshots', () => {
  for (const dir of SNAPSHOTS) {
    test(`every XBT address of ${dir} is a valid mainnet address, except one TRON address`, () => {
      const rejected = snapshotList(dir, 'XBT').filter((a) => !validateAddress('bitcoin', a).ok);
      // OFAC files this TRON (T…, version 0x41) address under XBT; it is not a Bitcoin address.
      assert.deepEqual(rejected, ['TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq']);
    });
  }

  test('base58 addresses keep their case; bech32 ones normalise to lower case', () => {
    assert.deepEqual(validateAddress('bitcoin', '12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz'), {
      ok: true,
      normalized: '12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz',
    });
    assert.deepEqual(validateAddress('bitcoin', 'BC1QVHNFKNW852EPHXYC5HM4Q520ZMVF9MAPHETC9Z'), {
      ok: true,
      normalized: 'bc1qvhnfknw852ephxyc5hm4q520zmvf9maphetc9z',
    });
  });

  test('a one-character change breaks the base58check checksum', () => {
    assert.deepEqual(validateAddress('bitcoin', '12udabs2TkX7NXCSj6KpqXfakjE52ZPLhZ'), {
      ok: false,
      reason: 'invalid base58check checksum',
    });
  });
});
