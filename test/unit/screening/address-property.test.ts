import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import fc from 'fast-check';
import {
  CHAINS,
  inferChain,
  toChecksumAddress,
  validateAddress,
} from '../../../src/domain/screening/address/index.ts';

const base58check = createBase58check(sha256);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('address validation properties', () => {
  test('never throws on arbitrary strings, for every chain', () => {
    const anyString = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 120 }),
      fc.string({
        unit: fc.constantFrom(...'0x123456789abcdefABCDEFbc1qpzrytTlO '.split('')),
        maxLength: 90,
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...CHAINS), anyString, (chain, s) => {
        const r = validateAddress(chain, s);
        assert.equal(typeof r.ok, 'boolean');
        if (!r.ok) assert.ok(r.reason.length > 0);
        inferChain(s);
      }),
      { numRuns: 3000 },
    );
  });

  test('never throws on non-string input either', () => {
    for (const v of [undefined, null, 42, {}, []]) {
      assert.equal(validateAddress('bitcoin', v as never).ok, false);
      assert.equal(inferChain(v as never), undefined);
    }
  });

  test('any 20 bytes in EIP-55 form, lower case or upper case validate to the same key', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
        const lower = '0x' + hex(bytes);
        const expected = { ok: true, normalized: lower };
        assert.deepEqual(validateAddress('ethereum', toChecksumAddress(lower)), expected);
        assert.deepEqual(validateAddress('ethereum', lower), expected);
        assert.deepEqual(validateAddress('ethereum', '0x' + hex(bytes).toUpperCase()), expected);
      }),
    );
  });

  test('any P2PKH / P2SH payload round-trips through base58check', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0x00, 0x05),
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        (version, hash) => {
          const address = base58check.encode(Uint8Array.of(version, ...hash));
          assert.deepEqual(validateAddress('bitcoin', address), { ok: true, normalized: address });
          assert.equal(inferChain(address), 'bitcoin');
        },
      ),
    );
  });

  test('segwit programs of allowed sizes validate with the right checksum and fail with the wrong one', () => {
    const program = fc.oneof(
      fc.record({
        version: fc.constant(0),
        bytes: fc.constantFrom(20, 32).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
      }),
      fc.record({
        version: fc.integer({ min: 1, max: 16 }),
        bytes: fc.uint8Array({ minLength: 2, maxLength: 40 }),
      }),
    );
    fc.assert(
      fc.property(program, ({ version, bytes }) => {
        const words = [version, ...bech32.toWords(bytes)];
        const [right, wrong] = version === 0 ? [bech32, bech32m] : [bech32m, bech32];
        const good = right.encode('bc', words, 90);
        assert.deepEqual(validateAddress('bitcoin', good), { ok: true, normalized: good });
        assert.deepEqual(validateAddress('bitcoin', good.toUpperCase()), { ok: true, normalized: good });
        assert.equal(validateAddress('bitcoin', wrong.encode('bc', words, 90)).ok, false);
        assert.equal(validateAddress('bitcoin', right.encode('tb', words, 90)).ok, false);
      }),
    );
  });

  test('any 32 bytes in base58 are a Solana address', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const address = base58.encode(bytes);
        assert.deepEqual(validateAddress('solana', address), { ok: true, normalized: address });
        assert.equal(inferChain(address), 'solana');
      }),
    );
  });
});
