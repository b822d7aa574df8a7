import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assessCompleteness, isSelfHosted } from '../../../src/domain/travel-rule/completeness.ts';
import type { TravelRuleTransfer } from '../../../src/domain/travel-rule/transfer.ts';
import { BTC, BTC_2, LEI } from './helpers.ts';

function transfer(
  originator: TravelRuleTransfer['originator'],
  beneficiary: TravelRuleTransfer['beneficiary'],
): TravelRuleTransfer {
  return { transfer_id: 't', direction: 'outbound', amount_eur: 10, originator, beneficiary };
}

const FULL_ORIGINATOR = { name: 'Jane Howard', wallet_address: BTC, geographic_address: '28 Greystone St' };
const FULL_BENEFICIARY = { name: 'Lawrence Clark', wallet_address: BTC_2 };

describe('assessCompleteness', () => {
  it('is complete when every required field is present', () => {
    assert.deepEqual(assessCompleteness(transfer(FULL_ORIGINATOR, FULL_BENEFICIARY)), {
      data_completeness: 'complete',
      required_fields: [],
    });
  });

  it('accepts a national id in place of the geographic address', () => {
    const originator = { name: 'Jane', wallet_address: BTC, national_id: '112502920' };
    assert.equal(assessCompleteness(transfer(originator, FULL_BENEFICIARY)).data_completeness, 'complete');
  });

  it('reports the address as missing when neither address nor national id is given', () => {
    const originator = { name: 'Jane', wallet_address: BTC };
    assert.deepEqual(assessCompleteness(transfer(originator, FULL_BENEFICIARY)), {
      data_completeness: 'partial',
      required_fields: ['originator.geographic_address'],
    });
  });

  it('lists every missing field in contract order', () => {
    assert.deepEqual(assessCompleteness(transfer({ name: 'Jane' }, { name: 'Lawrence' })), {
      data_completeness: 'partial',
      required_fields: [
        'originator.wallet_address',
        'originator.geographic_address',
        'beneficiary.wallet_address',
      ],
    });
  });

  it('is missing when neither party is named, even with other data', () => {
    assert.deepEqual(
      assessCompleteness(transfer({ wallet_address: BTC, national_id: 'x' }, { wallet_address: BTC_2 })),
      {
        data_completeness: 'missing',
        required_fields: ['originator.name', 'beneficiary.name'],
      },
    );
    assert.deepEqual(assessCompleteness(transfer({}, {})), {
      data_completeness: 'missing',
      required_fields: [
        'originator.name',
        'originator.wallet_address',
        'originator.geographic_address',
        'beneficiary.name',
        'beneficiary.wallet_address',
      ],
    });
  });

  it('is partial when only one party is named', () => {
    assert.equal(assessCompleteness(transfer({}, { name: 'Lawrence' })).data_completeness, 'partial');
    assert.equal(assessCompleteness(transfer({ name: 'Jane' }, {})).data_completeness, 'partial');
  });

  it('counts blank strings as absent', () => {
    const result = assessCompleteness(
      transfer(
        { ...FULL_ORIGINATOR, geographic_address: '  ', national_id: '' },
        { ...FULL_BENEFICIARY, name: ' ' },
      ),
    );
    assert.deepEqual(result.required_fields, ['originator.geographic_address', 'beneficiary.name']);
  });

  it('applies the same rules inbound and outbound', () => {
    const out = transfer({ name: 'Jane' }, {});
    const inbound: TravelRuleTransfer = { ...out, direction: 'inbound' };
    assert.deepEqual(assessCompleteness(inbound), assessCompleteness(out));
  });
});

describe('isSelfHosted', () => {
  it('is true when the beneficiary names no CASP', () => {
    assert.equal(isSelfHosted(transfer({}, FULL_BENEFICIARY)), true);
    assert.equal(isSelfHosted(transfer({}, { casp_name: ' ', casp_lei: '' })), true);
  });

  it('is false when a CASP name or LEI is given', () => {
    assert.equal(isSelfHosted(transfer({}, { casp_name: 'GLEIF' })), false);
    assert.equal(isSelfHosted(transfer({}, { casp_lei: LEI })), false);
  });
});
