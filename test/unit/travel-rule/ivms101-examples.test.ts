// The TRISA IVMS101 JSON examples: each accepted by the function for its shape and mapped,
// except the two that are not IVMS101 (see test/fixtures/travel-rule/ivms101/SOURCE.md).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  mapIvms101Transfer,
  parseIvmsAddress,
  parseIvmsIdentityPayload,
  parseIvmsLegalPerson,
  parseIvmsNationalIdentification,
  parseIvmsNaturalPerson,
  parseIvmsPerson,
} from '../../../src/domain/travel-rule/ivms101.ts';
import { BTC, BTC_2, fixture } from './helpers.ts';

const RA_LIST = new Set(
  readFileSync(new URL('../../fixtures/travel-rule/gleif_ra_codes.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean),
);
const STRICT = {
  registrationAuthorities: RA_LIST,
  today: '2026-01-01',
  requireOriginatorIdentification: true,
};
const ex = (name: string) => fixture(`ivms101/${name}`);
const header = { transfer_id: 'tr-ivms-1', direction: 'outbound', amount_eur: 2500 };

describe('IVMS101 examples: accepted', () => {
  it('identity_payload.json is a valid IdentityPayload, with every constraint enforced', () => {
    const result = parseIvmsIdentityPayload(ex('identity_payload.json'), STRICT);
    assert.deepEqual(result.ok ? [] : result.errors, []);
  });

  it('identity_payload.json maps onto the travel-rule transfer', () => {
    const result = mapIvms101Transfer(
      { ...header, blockchain: 'bitcoin', ivms101: ex('identity_payload.json') },
      STRICT,
    );
    assert.deepEqual(result, {
      ok: true,
      transfer: {
        ...header,
        blockchain: 'bitcoin',
        originator: {
          name: 'Jane Howard',
          wallet_address: BTC,
          geographic_address: '28 Greystone Street, Collierville, TN, 38017, US',
          national_id: '112502920',
          date_of_birth: '1992-10-04',
        },
        // The beneficiary VASP's identifier is a TXID, not an LEIX: no casp_lei.
        beneficiary: { name: 'Lawrence Clark', wallet_address: BTC_2, casp_name: "Bob's Discount VASP, PLC" },
      },
    });
  });

  it('natural_person.json maps to name, address, id and birth date', () => {
    const result = parseIvmsNaturalPerson(ex('natural_person.json'), STRICT);
    assert.deepEqual(result, {
      ok: true,
      value: {
        kind: 'natural',
        name: 'Alice Sanders',
        addresses: [{ addressType: 'HOME', oneLine: '78 Thorne Road, Hicksville, NY, 11801, US' }],
        nationalId: {
          nationalIdentifier: '864-118-996',
          nationalIdentifierType: 'SOCS',
          countryOfIssue: 'US',
          registrationAuthority: undefined,
        },
        customerIdentification: '1234abc',
        dateOfBirth: '1975-02-18',
        accountNumbers: [],
      },
    });
  });

  it('legal_person.json maps to its LEGL name and LEIX identifier (customerNumber read too)', () => {
    const result = parseIvmsLegalPerson(ex('legal_person.json'), STRICT);
    assert.ok(result.ok, result.ok ? '' : result.errors.join('\n'));
    assert.equal(result.value.kind, 'legal');
    assert.equal(result.value.name, "Bob's Discount VASP, PLC");
    assert.equal(result.value.customerIdentification, 'abc1234');
    assert.deepEqual(result.value.nationalId, {
      nationalIdentifier: '283100RWUNF913WOJT02',
      nationalIdentifierType: 'LEIX',
      countryOfIssue: undefined,
      registrationAuthority: undefined,
    });
    assert.equal(result.value.addresses[0]?.oneLine, '762 Grimsby Road, Oxford, OX8 U89, GB');
  });

  it('person_natural_person.json is a Person holding a natural person', () => {
    const result = parseIvmsPerson(ex('person_natural_person.json'), STRICT);
    assert.ok(result.ok);
    assert.equal(result.value.kind, 'natural');
    assert.equal(result.value.name, 'Alice Sanders');
    assert.equal(result.value.nationalId?.registrationAuthority, 'RA000628');
  });

  it('person_legal_person.json is a Person holding a legal person', () => {
    // Its LEIX value has the LEIText form (C11) though not valid MOD 97-10 check digits; the
    // standard asks only the form, the check digits matter once it becomes casp_lei.
    const result = parseIvmsPerson(ex('person_legal_person.json'), STRICT);
    assert.ok(result.ok);
    assert.equal(result.value.kind, 'legal');
    assert.equal(result.value.nationalId?.nationalIdentifier, '213800AQUAUP6I215N33');
  });

  it('address.json renders on one line', () => {
    assert.deepEqual(parseIvmsAddress(ex('address.json'), STRICT), {
      ok: true,
      value: { addressType: 'HOME', oneLine: '28 Greystone Street, Collierville, TN, 38017, US' },
    });
  });

  it("national_identification.json is a valid natural person's identification", () => {
    assert.deepEqual(parseIvmsNationalIdentification(ex('national_identification.json'), STRICT), {
      ok: true,
      value: {
        nationalIdentifier: '815026352',
        nationalIdentifierType: 'DRLC',
        countryOfIssue: 'TV',
        registrationAuthority: 'RA777777',
      },
    });
  });

  it('national_identification.json breaks C7 and C9 when read as a legal person', () => {
    const result = parseIvmsNationalIdentification(ex('national_identification.json'), { legalPerson: true });
    assert.deepEqual(result.ok ? [] : result.errors, [
      'nationalIdentification.nationalIdentifierType: Must be one of: RAID, MISC, LEIX, TXID for a legal person (C7)',
      'nationalIdentification.countryOfIssue: Must be absent for a legal person (C9)',
    ]);
  });
});

describe('IVMS101 examples: rejected', () => {
  it('person_both_persons.json breaks the Person choice', () => {
    assert.deepEqual(parseIvmsPerson(ex('person_both_persons.json')), {
      ok: false,
      errors: ['person: Must have exactly one of naturalPerson or legalPerson'],
    });
  });

  it('person_both_persons.json as an originator person is named by its IVMS path', () => {
    const payload = { ...(ex('identity_payload.json') as object) };
    const both = ex('person_both_persons.json');
    const body = {
      ...header,
      ivms101: { ...payload, originator: { originatorPersons: [both], accountNumber: [BTC] } },
    };
    const result = mapIvms101Transfer(body);
    assert.deepEqual(result.ok ? [] : result.errors, [
      'ivms101.originator.originatorPersons[0]: Must have exactly one of naturalPerson or legalPerson',
    ]);
  });

  it('identity_payload_alt.json (non-standard keys) lacks the standard elements', () => {
    const result = parseIvmsIdentityPayload(ex('identity_payload_alt.json'));
    assert.deepEqual(result.ok ? [] : result.errors, [
      'ivms101.originator.originatorPersons[0].naturalPerson.name.nameIdentifier: Required',
      'ivms101.originator.originatorPersons[0].naturalPerson.dateAndPlaceOfBirth.dateOfBirth: Required',
      'ivms101.originator.originatorPersons[0].naturalPerson.dateAndPlaceOfBirth.placeOfBirth: Required',
      'ivms101.beneficiary.beneficiaryPersons[0].naturalPerson.name.nameIdentifier: Required',
      'ivms101.originatingVASP.originatingVASP.legalPerson.name.nameIdentifier: Required',
      'ivms101.originatingVASP.originatingVASP.legalPerson.nationalIdentification.nationalIdentifier: Required',
      'ivms101.originatingVASP.originatingVASP.legalPerson.nationalIdentification.nationalIdentifierType: Required',
      'ivms101.beneficiaryVASP.beneficiaryVASP.legalPerson.name.nameIdentifier: Required',
    ]);
  });

  it('the protojson form is not IVMS101 JSON', () => {
    const pb = JSON.parse(
      readFileSync(
        new URL('../../fixtures/travel-rule/ivms101/identity_payload.json', import.meta.url),
        'utf8',
      ).replaceAll('originatorPersons', 'originator_persons'),
    );
    const result = parseIvmsIdentityPayload(pb);
    assert.deepEqual(result.ok ? [] : result.errors, ['ivms101.originator.originatorPersons: Required']);
  });
});
