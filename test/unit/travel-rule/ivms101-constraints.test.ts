// Copies of the TRISA identity payload with one element removed or changed: each must be
// rejected with the element named by its dotted IVMS101 path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapIvms101Transfer } from '../../../src/domain/travel-rule/ivms101.ts';
import { edited } from './helpers.ts';
import { B, BV, errorsAfter, errorsFor, ivms, O, OV, PAYLOAD } from './ivms-helpers.ts';

describe('IVMS101 required elements', () => {
  const required = [
    'originator',
    'beneficiary',
    'originator.originatorPersons',
    'beneficiary.beneficiaryPersons',
    `${O}.name`,
    `${O}.name.nameIdentifier`,
    `${O}.name.nameIdentifier.0.primaryIdentifier`,
    `${O}.name.nameIdentifier.0.nameIdentifierType`,
    `${O}.geographicAddress.0.addressType`,
    `${O}.geographicAddress.0.townName`,
    `${O}.geographicAddress.0.country`,
    `${O}.nationalIdentification.nationalIdentifier`,
    `${O}.nationalIdentification.nationalIdentifierType`,
    `${O}.dateAndPlaceOfBirth.dateOfBirth`,
    `${O}.dateAndPlaceOfBirth.placeOfBirth`,
    `${B}.name`,
    `${OV}.name`,
    `${OV}.name.nameIdentifier.0.legalPersonName`,
    `${BV}.name.nameIdentifier.0.legalPersonNameIdentifierType`,
    `${BV}.nationalIdentification.nationalIdentifierType`,
  ];
  for (const path of required) {
    it(`rejects the payload without ${path}`, () => {
      assert.deepEqual(errorsAfter(path), [`${ivms(path)}: Required`]);
    });
  }

  it('rejects empty person lists and a missing ivms101 member', () => {
    assert.deepEqual(errorsAfter('originator.originatorPersons', []), [
      'ivms101.originator.originatorPersons: Must have at least 1 element',
    ]);
    const result = mapIvms101Transfer({ direction: 'outbound', amount_eur: 1 });
    assert.deepEqual(result.ok ? [] : result.errors, ['transfer_id: Required', 'ivms101: Required']);
  });

  it('bounds repeated elements: 120,000 empty persons are one error, not one per person', () => {
    const persons = Array.from({ length: 120_000 }, () => ({}));
    assert.deepEqual(errorsAfter('originator.originatorPersons', persons), [
      'ivms101.originator.originatorPersons: Must have at most 100 elements',
    ]);
    const hundred = Array.from({ length: 100 }, () => ({}));
    assert.equal(errorsAfter('originator.originatorPersons', hundred).length, 100, 'up to 100 are read');
  });

  it('rejects wrong JSON types', () => {
    assert.deepEqual(errorsAfter(`${O}.geographicAddress`, { country: 'US' }), [
      `${ivms(`${O}.geographicAddress`)}: Must be an array`,
    ]);
    assert.deepEqual(errorsAfter(`${O}.name.nameIdentifier.0`, 'Jane'), [
      `${ivms(`${O}.name.nameIdentifier.0`)}: Must be an object`,
    ]);
    assert.deepEqual(errorsAfter(`${O}.customerIdentification`, 2642), [
      `${ivms(`${O}.customerIdentification`)}: Must be a string`,
    ]);
    assert.deepEqual(errorsFor('payload'), ['ivms101: Must be an object']);
  });
});

describe('IVMS101 code lists', () => {
  it('rejects an unknown natural person name type', () => {
    assert.deepEqual(errorsAfter(`${O}.name.nameIdentifier.0.nameIdentifierType`, 'LEGAL'), [
      'ivms101.originator.originatorPersons[0].naturalPerson.name.nameIdentifier[0].nameIdentifierType: Must be one of: ALIA, BIRT, MAID, LEGL, MISC',
    ]);
  });

  const cases: [string, unknown, string][] = [
    [`${O}.name.nameIdentifier.1.nameIdentifierType`, 'legl', 'ALIA, BIRT, MAID, LEGL, MISC'],
    [`${OV}.name.nameIdentifier.1.legalPersonNameIdentifierType`, 'FULL', 'LEGL, SHRT, TRAD'],
    [`${O}.geographicAddress.0.addressType`, 'WORK', 'HOME, BIZZ, GEOG'],
    [
      `${O}.nationalIdentification.nationalIdentifierType`,
      'SSN',
      'ARNU, CCPT, RAID, DRLC, FIIN, TXID, SOCS, IDCD, LEIX, MISC',
    ],
    [`${O}.name.nameIdentifier.0.nameIdentifierType`, 4, 'ALIA, BIRT, MAID, LEGL, MISC'],
  ];
  for (const [path, value, allowed] of cases) {
    it(`rejects ${JSON.stringify(value)} at ${path}`, () => {
      assert.deepEqual(errorsAfter(path, value), [`${ivms(path)}: Must be one of: ${allowed}`]);
    });
  }

  it('checks the transfer path and payload metadata codes', () => {
    const meta = edited(PAYLOAD, 'payloadMetadata', {
      transliterationMethod: ['hani', 'latn'],
      payloadVersion: '2',
    });
    assert.deepEqual(errorsFor(meta), [
      'ivms101.payloadMetadata.transliterationMethod[1]: Must be one of: arab, aran, armn, cyrl, deva, geor, grek, hani, hebr, kana, kore, thai, othr',
      'ivms101.payloadMetadata.payloadVersion: Must be one of: 101, 101.2023, IVMS101.2023',
    ]);
    assert.deepEqual(errorsFor(edited(PAYLOAD, 'payloadMetadata', { payloadVersion: '101.2023' })), []);
  });
});

describe('IVMS101 constraints C1–C12', () => {
  it('C1: an originator natural person needs an identification besides the name (when enforced)', () => {
    const bare = edited(PAYLOAD, O, {
      name: { nameIdentifier: [{ primaryIdentifier: 'Howard', nameIdentifierType: 'LEGL' }] },
    });
    assert.deepEqual(errorsFor(bare), []);
    assert.deepEqual(errorsFor(bare, { requireOriginatorIdentification: true }), [
      'ivms101.originator.originatorPersons[0]: Must have geographicAddress, customerIdentification, nationalIdentification or dateAndPlaceOfBirth (C1)',
    ]);
  });

  it('C4: an originator legal person needs a GEOG address, customer id or national id (when enforced)', () => {
    const legal = edited(PAYLOAD, 'originator.originatorPersons.0', {
      legalPerson: {
        name: { nameIdentifier: [{ legalPersonName: 'Acme', legalPersonNameIdentifierType: 'LEGL' }] },
        geographicAddress: [
          { addressType: 'BIZZ', addressLine: ['1 Main St'], townName: 'Boston', country: 'US' },
        ],
      },
    });
    assert.deepEqual(errorsFor(legal, { requireOriginatorIdentification: true }), [
      'ivms101.originator.originatorPersons[0]: Must have a GEOG geographicAddress, customerIdentification or nationalIdentification (C4)',
    ]);
  });

  it('C2: a date of birth must be a real day in the past', () => {
    const at = `${O}.dateAndPlaceOfBirth.dateOfBirth`;
    assert.deepEqual(errorsAfter(at, '1992-02-30'), [`${ivms(at)}: Must be a date YYYY-MM-DD`]);
    assert.deepEqual(errorsAfter(at, '1992-10-04', { today: '1992-10-04' }), [
      `${ivms(at)}: Must be a date in the past (C2)`,
    ]);
    assert.deepEqual(errorsAfter(at, '1992-10-04', { today: '1992-10-05' }), []);
  });

  it('C3: country codes must be ISO 3166-1 alpha-2 or XX', () => {
    const reason = 'Must be an ISO 3166-1 alpha-2 country code or XX (C3)';
    for (const path of [
      `${O}.geographicAddress.0.country`,
      `${O}.countryOfResidence`,
      `${O}.nationalIdentification.countryOfIssue`,
      `${BV}.countryOfRegistration`,
    ]) {
      assert.deepEqual(errorsAfter(path, 'USA'), [`${ivms(path)}: ${reason}`], path);
      assert.deepEqual(errorsAfter(path, 'us'), [`${ivms(path)}: ${reason}`], path);
      assert.deepEqual(errorsAfter(path, 'ZZ'), [`${ivms(path)}: ${reason}`], path);
      assert.deepEqual(errorsAfter(path, 'XX'), [], path);
    }
  });

  it('C5 and C6: a LEGL name must be present', () => {
    assert.deepEqual(errorsAfter(`${O}.name.nameIdentifier.0.nameIdentifierType`, 'ALIA'), [
      `${ivms(`${O}.name.nameIdentifier`)}: Must include a nameIdentifier with nameIdentifierType LEGL (C6)`,
    ]);
    assert.deepEqual(errorsAfter(`${OV}.name.nameIdentifier.0.legalPersonNameIdentifierType`, 'TRAD'), [
      `${ivms(`${OV}.name.nameIdentifier`)}: Must include a nameIdentifier with legalPersonNameIdentifierType LEGL (C5)`,
    ]);
  });

  it('C7: a legal person identifier is RAID, MISC, LEIX or TXID', () => {
    assert.deepEqual(errorsAfter(`${BV}.nationalIdentification.nationalIdentifierType`, 'CCPT'), [
      `${ivms(`${BV}.nationalIdentification.nationalIdentifierType`)}: Must be one of: RAID, MISC, LEIX, TXID for a legal person (C7)`,
    ]);
  });

  it('C8: an address needs addressLine or a street with a building name or number', () => {
    const at = `${O}.geographicAddress.0`;
    assert.deepEqual(errorsAfter(`${at}.buildingNumber`), [
      `${ivms(at)}: Must have addressLine, or streetName with buildingName and/or buildingNumber (C8)`,
    ]);
    assert.deepEqual(errorsAfter(`${at}.streetName`), [
      `${ivms(at)}: Must have addressLine, or streetName with buildingName and/or buildingNumber (C8)`,
    ]);
    const lines = {
      addressType: 'GEOG',
      addressLine: ['Flat 2', '10 High St'],
      townName: 'Leeds',
      country: 'GB',
    };
    assert.deepEqual(errorsAfter(at, lines), []);
    assert.deepEqual(errorsAfter(at, { ...lines, addressLine: Array(8).fill('x') }), [
      `${ivms(`${at}.addressLine`)}: Must have at most 7 elements`,
    ]);
  });

  it('C9: a legal person identifier has no countryOfIssue, and a registration authority unless LEIX', () => {
    const nid = `${BV}.nationalIdentification`;
    assert.deepEqual(errorsAfter(`${nid}.countryOfIssue`, 'GB'), [
      `${ivms(`${nid}.countryOfIssue`)}: Must be absent for a legal person (C9)`,
    ]);
    assert.deepEqual(errorsAfter(`${nid}.registrationAuthority`), [
      `${ivms(`${nid}.registrationAuthority`)}: Required unless nationalIdentifierType is LEIX (C9)`,
    ]);
    assert.deepEqual(errorsAfter(`${OV}.nationalIdentification.registrationAuthority`, 'RA000628'), [
      `${ivms(`${OV}.nationalIdentification.registrationAuthority`)}: Must be absent for LEIX (C9)`,
    ]);
  });

  it('C10: a registration authority has the RA code form, and is on the GLEIF list when one is given', () => {
    const at = `${O}.nationalIdentification.registrationAuthority`;
    assert.deepEqual(errorsAfter(at, 'RA7777'), [`${ivms(at)}: Must be a code RA followed by 6 digits`]);
    const list = new Set(['RA777777']);
    assert.deepEqual(errorsAfter(at, 'RA000001', { registrationAuthorities: list }), [
      `${ivms(at)}: Must be on the GLEIF Registration Authorities List (C10)`,
    ]);
    assert.deepEqual(errorsAfter(at, 'RA000001'), []);
  });

  it('C11: a legal person LEIX identifier has the LEIText form', () => {
    assert.deepEqual(errorsAfter(`${OV}.nationalIdentification.nationalIdentifier`, '506700t7z685vuozl877'), [
      `${ivms(`${OV}.nationalIdentification.nationalIdentifier`)}: Must be an LEI: 18 upper-case letters or digits and 2 digits (C11)`,
    ]);
  });

  it('C12: intermediaries are numbered 0, 1, 2 … without gaps', () => {
    const hop = (sequence: unknown) => ({
      intermediaryVASP: {
        legalPerson: {
          name: { nameIdentifier: [{ legalPersonName: 'Hop', legalPersonNameIdentifierType: 'LEGL' }] },
        },
      },
      sequence,
    });
    const withPath = (hops: unknown[]) => edited(PAYLOAD, 'transferPath', { transferPath: hops });
    assert.deepEqual(errorsFor(withPath([hop(1), hop(0)])), []);
    const c12 =
      'ivms101.transferPath.transferPath: sequence values must run 0, 1, 2 … without gaps or repeats (C12)';
    assert.deepEqual(errorsFor(withPath([hop(1)])), [c12]);
    assert.deepEqual(errorsFor(withPath([hop(0), hop(0)])), [c12]);
    assert.deepEqual(errorsFor(withPath([hop(0), hop(-1)])), [
      'ivms101.transferPath.transferPath[1].sequence: Must be a non-negative integer',
    ]);
    assert.deepEqual(errorsFor(withPath([{ sequence: 0 }])), [
      'ivms101.transferPath.transferPath[0].intermediaryVASP: Required',
    ]);
  });
});
