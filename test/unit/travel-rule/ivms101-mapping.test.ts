// IVMS101 text datatypes, and values that the travel rule checks beyond the standard.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapIvms101Transfer } from '../../../src/domain/travel-rule/ivms101.ts';
import { edited, LEI } from './helpers.ts';
import { BV, errorsAfter, errorsFor, ivms, O, PAYLOAD } from './ivms-helpers.ts';

describe('IVMS101 datatypes', () => {
  it('limits MaxNText lengths and to printable ASCII; local names take any script', () => {
    const primary = `${O}.name.nameIdentifier.0.primaryIdentifier`;
    assert.deepEqual(errorsAfter(primary, 'x'.repeat(101)), [
      `${ivms(primary)}: Must be at most 100 characters`,
    ]);
    assert.deepEqual(errorsAfter(primary, 'Müller'), [
      `${ivms(primary)}: Must contain only printable ASCII (Latin) characters`,
    ]);
    const local = edited(PAYLOAD, `${O}.name.localNameIdentifier`, [
      { primaryIdentifier: '吴', secondaryIdentifier: '信利', nameIdentifierType: 'LEGL' },
    ]);
    assert.deepEqual(errorsFor(local), []);
    assert.deepEqual(errorsAfter(`${O}.geographicAddress.0.postCode`, '12345678901234567'), [
      `${ivms(`${O}.geographicAddress.0.postCode`)}: Must be at most 16 characters`,
    ]);
  });
});

describe('IVMS101 values checked as travel-rule values', () => {
  it('names a bad account number by its IVMS path', () => {
    const [error] = errorsAfter('originator.accountNumber', ['14HmBSwec8XrcWge9Zi1ZngNia64u3Wd2w']);
    assert.match(error ?? '', /^ivms101\.originator\.accountNumber\[0\]: .*checksum/);
  });

  it('names a beneficiary VASP LEI with bad check digits by its IVMS path', () => {
    const lei = edited(PAYLOAD, `${BV}.nationalIdentification`, {
      nationalIdentifier: '213800AQUAUP6I215N33',
      nationalIdentifierType: 'LEIX',
    });
    assert.deepEqual(errorsFor(lei), [
      `${ivms(`${BV}.nationalIdentification.nationalIdentifier`)}: invalid LEI check digits`,
    ]);
  });

  it('maps a valid LEIX of the beneficiary VASP to casp_lei', () => {
    const body = edited(PAYLOAD, `${BV}.nationalIdentification`, {
      nationalIdentifier: LEI,
      nationalIdentifierType: 'LEIX',
    });
    const result = mapIvms101Transfer({
      transfer_id: 't',
      direction: 'outbound',
      amount_eur: 1,
      ivms101: body,
    });
    assert.ok(result.ok);
    assert.deepEqual(result.transfer.beneficiary.casp_lei, LEI);
    assert.equal(result.transfer.beneficiary.casp_name, "Bob's Discount VASP, PLC");
  });

  it('reads the 2023 placement of accountNumber inside the person', () => {
    let body = edited(PAYLOAD, 'originator.accountNumber');
    body = edited(body, 'originator.originatorPersons.0.accountNumber', ['nope']);
    assert.deepEqual(errorsFor(body), [
      'ivms101.originator.originatorPersons[0].accountNumber[0]: address format not recognised for any supported chain',
    ]);
  });

  it('leaves out what the payload lacks, for completeness to report', () => {
    let body = edited(PAYLOAD, 'beneficiaryVASP');
    body = edited(body, 'beneficiary.accountNumber');
    const result = mapIvms101Transfer({
      transfer_id: 't',
      direction: 'outbound',
      amount_eur: 1,
      ivms101: body,
    });
    assert.ok(result.ok);
    assert.deepEqual(result.transfer.beneficiary, { name: 'Lawrence Clark' });
  });
});
