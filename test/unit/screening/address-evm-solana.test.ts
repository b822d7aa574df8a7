import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CHAINS,
  inferChain,
  isEvmChain,
  toChecksumAddress,
  validateAddress,
} from '../../../src/domain/screening/address/index.ts';
import { fixtureJson, SNAPSHOTS, snapshotList } from './fixtures.ts';

const eip55 = fixtureJson<{
  test_cases: { group: string; address: string }[];
  example_from_spec: { input: string; toChecksumAddress: string };
}>('address_formats/eip55_test_cases.json');

describe('chains', () => {
  test('lists the five chains of the spec, three of them EVM', () => {
    assert.deepEqual([...CHAINS], ['ethereum', 'bitcoin', 'polygon', 'binance-smart-chain', 'solana']);
    assert.deepEqual(
      CHAINS.filter((c) => isEvmChain(c)),
      ['ethereum', 'polygon', 'binance-smart-chain'],
    );
  });
});

describe('EVM addresses (EIP-55)', () => {
  for (const t of eip55.test_cases) {
    test(`accepts ${t.group} ${t.address} on every EVM chain`, () => {
      for (const chain of ['ethereum', 'polygon', 'binance-smart-chain'] as const) {
        assert.deepEqual(validateAddress(chain, t.address), {
          ok: true,
          normalized: t.address.toLowerCase(),
        });
      }
    });
  }

  test('computes the checksum form of every mixed-case vector and the spec example', () => {
    for (const t of eip55.test_cases) assert.equal(toChecksumAddress(t.address.toLowerCase()), t.address);
    assert.equal(toChecksumAddress(eip55.example_from_spec.input), eip55.example_from_spec.toChecksumAddress);
  });

  test('rejects a mixed-case address with one letter flipped', () => {
    for (const t of eip55.test_cases.filter((x) => x.group === 'Normal')) {
      const i = t.address.search(/[a-fA-F]/);
      const c = t.address[i]!;
      const flipped =
        t.address.slice(0, i) +
        (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) +
        t.address.slice(i + 1);
      assert.deepEqual(validateAddress('ethereum', flipped), {
        ok: false,
        reason: 'invalid EIP-55 checksum',
      });
    }
  });

  test('rejects malformed forms with a reason', () => {
    const bad = [
      '0x52908400098527886E0F7030069857D2E4169EE', // 39 digits
      '0x52908400098527886E0F7030069857D2E4169EE77', // 41 digits
      '0x52908400098527886E0F7030069857D2E4169EEG',
      '52908400098527886E0F7030069857D2E4169EE7',
      '0X52908400098527886E0F7030069857D2E4169EE7',
      ' 0x52908400098527886E0F7030069857D2E4169EE7',
      '',
    ];
    for (const a of bad) {
      const r = validateAddress('ethereum', a);
      assert.equal(r.ok, false, a);
      assert.ok(!r.ok && r.reason.length > 0);
    }
  });

  for (const dir of SNAPSHOTS) {
    test(`every 0x address OFAC published (${dir}) validates, as published and lower-cased`, () => {
      for (const ticker of ['ETH', 'USDT', 'USDC', 'ARB', 'BSC', 'ETC']) {
        for (const a of snapshotList(dir, ticker).filter((x) => x.startsWith('0x'))) {
          assert.equal(validateAddress('ethereum', a).ok, true, `${ticker} ${a}`);
          assert.equal(validateAddress('polygon', a.toLowerCase()).ok, true, a);
        }
      }
    });
  }
});

type Solana = {
  on_curve_valid: string[];
  off_curve_32_bytes: { addresses: string[] };
  invalid: { address: string; reason: string }[];
  well_known: { address: string }[];
};
const sol = fixtureJson<Solana>('address_formats/solana_address_examples.json');

describe('Solana addresses', () => {
  const valid = [
    ...sol.on_curve_valid,
    ...sol.off_curve_32_bytes.addresses,
    ...sol.well_known.map((w) => w.address),
  ];
  for (const a of valid) {
    test(`accepts ${a}`, () => {
      assert.deepEqual(validateAddress('solana', a), { ok: true, normalized: a });
    });
  }
  for (const v of sol.invalid) {
    test(`rejects ${v.address} (${v.reason})`, () => {
      assert.equal(validateAddress('solana', v.address).ok, false);
    });
  }
  test('rejects Bitcoin and EVM addresses on solana', () => {
    assert.equal(validateAddress('solana', '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH').ok, false);
    assert.equal(validateAddress('solana', '0x52908400098527886E0F7030069857D2E4169EE7').ok, false);
  });
});

describe('cross-chain', () => {
  test('a valid address of one chain is invalid on the others', () => {
    assert.equal(validateAddress('bitcoin', '0x52908400098527886E0F7030069857D2E4169EE7').ok, false);
    assert.equal(validateAddress('ethereum', 'bc1qvhnfknw852ephxyc5hm4q520zmvf9maphetc9z').ok, false);
    assert.equal(validateAddress('bitcoin', sol.on_curve_valid[0]!).ok, false);
  });

  test('an unknown chain is a reason, not an exception', () => {
    assert.deepEqual(validateAddress('dogecoin' as never, '0x52908400098527886E0F7030069857D2E4169EE7'), {
      ok: false,
      reason: 'unsupported blockchain',
    });
  });
});

describe('inferChain', () => {
  const cases: Array<[string, string | undefined]> = [
    ['0x52908400098527886E0F7030069857D2E4169EE7', 'ethereum'],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', 'ethereum'], // bad checksum: still EVM by form
    ['12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz', 'bitcoin'],
    ['3LRW7jeCvQCRdPF8S3yUCfRAx4eqXFmdcr', 'bitcoin'],
    ['bc1qvhnfknw852ephxyc5hm4q520zmvf9maphetc9z', 'bitcoin'],
    ['BC1SW50QGDZ25J', 'bitcoin'],
    ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'bitcoin'], // validation says testnet
    ['12udabs2TkX7NXCSj6KpqXfakjE52ZPLhZ', 'bitcoin'], // mistyped: validation names the checksum
    ['7vVcBLQwT1rmjiTXhhvmHKfiaCda2giGMeKchc2jwmBN', 'solana'],
    ['11111111111111111111111111111111', 'solana'],
    ['TUCsTq7TofTCJRRoHk6RvhMoS2mJLm5Yzq', undefined], // TRON
    ['Leo3j36nn1JcsUQruytQhFUdCdCH5YHMR3', undefined], // Litecoin
    ['hello world', undefined],
    ['', undefined],
  ];
  for (const [address, chain] of cases) {
    test(`${address || '(empty)'} → ${chain}`, () => {
      assert.equal(inferChain(address), chain);
    });
  }
});
