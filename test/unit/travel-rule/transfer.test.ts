import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type TransferValidation, validateTransfer } from '../../../src/domain/travel-rule/transfer.ts';
import { BTC, BTC_2, ETH, LEI, SOL } from './helpers.ts';

const base = () => ({
  transfer_id: 'tr-1',
  direction: 'outbound',
  amount_eur: 1500,
  originator: { name: 'Jane Howard', wallet_address: BTC, geographic_address: '28 Greystone St, US' },
  beneficiary: { name: 'Lawrence Clark', wallet_address: BTC_2, casp_name: 'GLEIF', casp_lei: LEI },
});

function errorsOf(result: TransferValidation): string[] {
  assert.equal(result.ok, false, 'expected the request to be rejected');
  return result.ok ? [] : result.errors;
}

describe('validateTransfer: accepted requests', () => {
  it('normalises a complete plain request', () => {
    const result = validateTransfer({ ...base(), blockchain: 'bitcoin', ownership_verified: true, extra: 1 });
    assert.deepEqual(result, {
      ok: true,
      transfer: {
        transfer_id: 'tr-1',
        direction: 'outbound',
        amount_eur: 1500,
        blockchain: 'bitcoin',
        ownership_verified: true,
        originator: { name: 'Jane Howard', wallet_address: BTC, geographic_address: '28 Greystone St, US' },
        beneficiary: { name: 'Lawrence Clark', wallet_address: BTC_2, casp_name: 'GLEIF', casp_lei: LEI },
      },
    });
  });

  it('accepts a bare request: originator and beneficiary may be absent', () => {
    const result = validateTransfer({ transfer_id: 'x', direction: 'inbound', amount_eur: 0 });
    assert.deepEqual(result, {
      ok: true,
      transfer: { transfer_id: 'x', direction: 'inbound', amount_eur: 0, originator: {}, beneficiary: {} },
    });
  });

  it('treats blank strings and null as absent, not as errors', () => {
    const result = validateTransfer({
      ...base(),
      blockchain: '  ',
      ownership_verified: null,
      originator: { name: '   ', wallet_address: '', national_id: null, geographic_address: 'x' },
      beneficiary: { casp_lei: ' ', casp_name: '' },
    });
    assert.ok(result.ok);
    assert.deepEqual(result.transfer.originator, { geographic_address: 'x' });
    assert.deepEqual(result.transfer.beneficiary, {});
    assert.equal('blockchain' in result.transfer, false);
    assert.equal('ownership_verified' in result.transfer, false);
  });

  it('infers the chain of each address when blockchain is absent (0x → ethereum)', () => {
    for (const address of [BTC, ETH, SOL, ETH.toLowerCase()]) {
      const result = validateTransfer({
        ...base(),
        originator: { wallet_address: address },
        beneficiary: { wallet_address: address },
      });
      assert.ok(result.ok, address);
    }
  });

  it('without blockchain, refuses addresses of two chains: a transfer moves on one', () => {
    for (const [from, to, named] of [
      [SOL, ETH, "an EVM address, not on the originator's chain (solana)"],
      [BTC, ETH.toLowerCase(), "an EVM address, not on the originator's chain (bitcoin)"],
      [ETH, BTC, "a bitcoin address, not on the originator's chain (EVM)"],
      [SOL, BTC, "a bitcoin address, not on the originator's chain (solana)"],
    ] as const) {
      const errors = errorsOf(
        validateTransfer({
          ...base(),
          originator: { wallet_address: from },
          beneficiary: { wallet_address: to },
        }),
      );
      assert.equal(errors.length, 1, errors.join('; '));
      assert.ok(errors[0]!.startsWith(`beneficiary.wallet_address: ${named}`), errors[0]);
    }
    // Named, the chain decides for both; an address invalid on its own is reported once, as itself.
    const declared = errorsOf(
      validateTransfer({ ...base(), blockchain: 'bitcoin', originator: { wallet_address: SOL } }),
    );
    assert.equal(declared.length, 1);
    assert.match(declared[0]!, /^originator\.wallet_address: /);
    const invalid = errorsOf(
      validateTransfer({
        ...base(),
        originator: { wallet_address: 'zzz' },
        beneficiary: { wallet_address: ETH },
      }),
    );
    assert.deepEqual(invalid, [
      'originator.wallet_address: address format not recognised for any supported chain',
    ]);
  });

  it('counts text with no visible character as absent (zero-width, bidi, fillers)', () => {
    for (const invisible of [
      '\u200b',
      '\u200b\u200c\u200d',
      '\u202e',
      '\u2800',
      '\u3164',
      '\ufeff\u00a0',
      '\u0301',
      '\u2060',
    ]) {
      const result = validateTransfer({
        ...base(),
        originator: {
          name: invisible,
          wallet_address: BTC,
          geographic_address: invisible,
          national_id: invisible,
        },
        beneficiary: { name: invisible, wallet_address: BTC_2, casp_name: invisible },
      });
      assert.ok(result.ok, JSON.stringify(invisible));
      assert.deepEqual(result.transfer.originator, { wallet_address: BTC }, JSON.stringify(invisible));
      assert.deepEqual(result.transfer.beneficiary, { wallet_address: BTC_2 }, JSON.stringify(invisible));
    }
    // A visible letter among them is a value, kept as given.
    const kept = validateTransfer({ ...base(), originator: { name: '\u200bJ\u0301' } });
    assert.ok(kept.ok);
    assert.equal(kept.transfer.originator.name, '\u200bJ\u0301');
  });

  it('checks an EVM address on polygon and binance-smart-chain as well', () => {
    for (const blockchain of ['polygon', 'binance-smart-chain', 'ethereum']) {
      const body = {
        ...base(),
        blockchain,
        originator: { wallet_address: ETH },
        beneficiary: { wallet_address: ETH },
      };
      assert.ok(validateTransfer(body).ok, blockchain);
    }
  });

  it('keeps the strings as given (the address is echoed, not normalised)', () => {
    const result = validateTransfer({
      ...base(),
      originator: { wallet_address: ETH.toLowerCase(), name: ' Ann ' },
      beneficiary: { wallet_address: ETH },
    });
    assert.ok(result.ok);
    assert.equal(result.transfer.originator.wallet_address, ETH.toLowerCase());
    assert.equal(result.transfer.originator.name, ' Ann ');
  });
});

describe('validateTransfer: rejected requests', () => {
  it('requires transfer_id, direction and amount_eur', () => {
    assert.deepEqual(errorsOf(validateTransfer({})), [
      'transfer_id: Required',
      'direction: Required',
      'amount_eur: Required',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), transfer_id: '  ' })), ['transfer_id: Required']);
  });

  it('rejects a body that is not an object', () => {
    for (const body of [null, [], 'x', 3])
      assert.deepEqual(errorsOf(validateTransfer(body)), ['body: Must be an object']);
  });

  it('names the allowed values of an enum', () => {
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), direction: 'sideways' })), [
      'direction: Must be one of: outbound, inbound',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), direction: 'OUTBOUND' })), [
      'direction: Must be one of: outbound, inbound',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), blockchain: 'dogecoin' })), [
      'blockchain: Must be one of: ethereum, bitcoin, polygon, binance-smart-chain, solana',
    ]);
  });

  it('rejects wrong types, NaN, infinities and negative amounts', () => {
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), amount_eur: '1500' })), [
      'amount_eur: Must be a finite number',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), amount_eur: Number.NaN })), [
      'amount_eur: Must be a finite number',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), amount_eur: Number.POSITIVE_INFINITY })), [
      'amount_eur: Must be a finite number',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), amount_eur: -0.01 })), [
      'amount_eur: Must be >= 0',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), transfer_id: 42 })), [
      'transfer_id: Must be a string',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), ownership_verified: 'yes' })), [
      'ownership_verified: Must be a boolean',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), originator: 'Jane' })), [
      'originator: Must be an object',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), beneficiary: { name: ['x'], casp_name: 7 } })), [
      'beneficiary.name: Must be a string',
      'beneficiary.casp_name: Must be a string',
    ]);
  });

  it('rejects a wallet address that is wrong for its chain', () => {
    const badBtc = `${BTC.slice(0, -1)}w`;
    const [btcError] = errorsOf(validateTransfer({ ...base(), originator: { wallet_address: badBtc } }));
    assert.match(btcError ?? '', /^originator\.wallet_address: .*checksum/);
    const [evmError] = errorsOf(
      validateTransfer({ ...base(), beneficiary: { wallet_address: `${ETH.slice(0, -1)}D` } }),
    );
    assert.match(evmError ?? '', /^beneficiary\.wallet_address: .*EIP-55/);
    const [chainError] = errorsOf(validateTransfer({ ...base(), blockchain: 'ethereum' }));
    assert.match(chainError ?? '', /^originator\.wallet_address: /);
  });

  it('rejects an address whose chain cannot be inferred', () => {
    assert.deepEqual(
      errorsOf(validateTransfer({ ...base(), beneficiary: { wallet_address: 'not-an-address' } })),
      ['beneficiary.wallet_address: address format not recognised for any supported chain'],
    );
  });

  it('rejects an LEI with bad check digits or a bad form', () => {
    assert.deepEqual(
      errorsOf(validateTransfer({ ...base(), beneficiary: { casp_lei: '506700GE1G29325QX364' } })),
      ['beneficiary.casp_lei: invalid LEI check digits'],
    );
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), beneficiary: { casp_lei: '851683897' } })), [
      'beneficiary.casp_lei: must be 20 characters',
    ]);
  });

  it('rejects a date of birth that is not a calendar date', () => {
    for (const date_of_birth of ['1990-02-30', '04/10/1992', '1992-13-01']) {
      assert.deepEqual(errorsOf(validateTransfer({ ...base(), originator: { date_of_birth } })), [
        'originator.date_of_birth: Must be a date YYYY-MM-DD',
      ]);
    }
    assert.ok(validateTransfer({ ...base(), originator: { date_of_birth: '2000-02-29' } }).ok);
  });

  it('with today given, a date of birth must lie in the past (as IVMS101 C2 has it)', () => {
    const today = '2026-11-27';
    for (const date_of_birth of ['2026-11-27', '2099-01-01'])
      assert.deepEqual(errorsOf(validateTransfer({ ...base(), originator: { date_of_birth } }, { today })), [
        'originator.date_of_birth: Must be a date in the past',
      ]);
    assert.ok(validateTransfer({ ...base(), originator: { date_of_birth: '2026-11-26' } }, { today }).ok);
  });

  it('reports every problem at once, header and values together', () => {
    const errors = errorsOf(
      validateTransfer({
        transfer_id: 'x',
        direction: 'up',
        amount_eur: -1,
        originator: { wallet_address: 'nope' },
        beneficiary: { casp_lei: '506700GE1G29325QX364' },
      }),
    );
    assert.deepEqual(errors, [
      'direction: Must be one of: outbound, inbound',
      'amount_eur: Must be >= 0',
      'originator.wallet_address: address format not recognised for any supported chain',
      'beneficiary.casp_lei: invalid LEI check digits',
    ]);
  });

  it('with an unknown blockchain, checks each address by its own form: every problem at once', () => {
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), blockchain: 'tron' })), [
      'blockchain: Must be one of: ethereum, bitcoin, polygon, binance-smart-chain, solana',
    ]);
    assert.deepEqual(
      errorsOf(
        validateTransfer({
          ...base(),
          blockchain: 'x',
          originator: { name: 'A', wallet_address: 'zzz' },
          beneficiary: { name: 'B', wallet_address: '0x123' },
        }),
      ),
      [
        'blockchain: Must be one of: ethereum, bitcoin, polygon, binance-smart-chain, solana',
        'originator.wallet_address: address format not recognised for any supported chain',
        'beneficiary.wallet_address: EVM address must be 0x followed by 40 hex digits',
      ],
    );
  });

  it('renames fields through fieldPath', () => {
    const result = validateTransfer(
      { ...base(), beneficiary: { casp_lei: 'X' } },
      { fieldPath: (f) => (f === 'beneficiary.casp_lei' ? 'ivms.lei' : f) },
    );
    assert.deepEqual(errorsOf(result), ['ivms.lei: must be 20 characters']);
  });

  it('never throws, whatever the input (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (body) => {
        const result = validateTransfer(body);
        return result.ok || result.errors.every((e) => /^[a-z_.]+: \S/.test(e));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('originator', 'beneficiary', 'blockchain'), fc.anything()),
        (extra) => {
          const result = validateTransfer({ ...base(), ...extra });
          return result.ok || result.errors.length > 0;
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('validateTransfer: extension fields', () => {
  it('keeps amount_crypto and the parties’ customer ids', () => {
    const body = base();
    const result = validateTransfer({
      ...body,
      amount_crypto: 0.25,
      originator: { ...body.originator, customer_id: 'c-1' },
      beneficiary: { ...body.beneficiary, customer_id: 'c-2' },
    });
    assert.ok(result.ok);
    assert.equal(result.transfer.amount_crypto, 0.25);
    assert.equal(result.transfer.originator.customer_id, 'c-1');
    assert.equal(result.transfer.beneficiary.customer_id, 'c-2');
  });

  it('rejects a bad amount_crypto and an over-long transfer_id', () => {
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), amount_crypto: -1 })), [
      'amount_crypto: Must be >= 0',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), amount_crypto: '1' })), [
      'amount_crypto: Must be a finite number',
    ]);
    assert.deepEqual(errorsOf(validateTransfer({ ...base(), transfer_id: 'x'.repeat(257) })), [
      'transfer_id: Must be at most 256 characters',
    ]);
    assert.ok(validateTransfer({ ...base(), transfer_id: 'x'.repeat(256) }).ok);
  });
});
