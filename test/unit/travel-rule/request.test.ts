import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { assessCompleteness, isSelfHosted } from '../../../src/domain/travel-rule/completeness.ts';
import { mapIvms101Transfer, parseIvmsIdentityPayload } from '../../../src/domain/travel-rule/ivms101.ts';
import { isIvms101Request, parseTravelRuleRequest } from '../../../src/domain/travel-rule/request.ts';
import { ETH, edited, fixture, LEI, SOL } from './helpers.ts';

const PAYLOAD = fixture<Record<string, unknown>>('ivms101/identity_payload.json');
const header = { transfer_id: 'tr-9', direction: 'inbound', amount_eur: 12_000 };

// A 2023-style payload written for these tests: accountNumber inside the Person, a legal-person
// beneficiary, local-script names, an intermediary and payload metadata.
const PAYLOAD_2023 = {
  originator: {
    originatorPersons: [
      {
        naturalPerson: {
          name: {
            nameIdentifier: [
              { primaryIdentifier: 'Tanaka', secondaryIdentifier: 'Yui', nameIdentifierType: 'LEGL' },
            ],
            localNameIdentifier: [
              { primaryIdentifier: '田中', secondaryIdentifier: '結衣', nameIdentifierType: 'LEGL' },
            ],
          },
          nationalIdentification: {
            nationalIdentifier: 'TK-55012',
            nationalIdentifierType: 'CCPT',
            countryOfIssue: 'JP',
          },
          countryOfResidence: 'JP',
        },
        accountNumber: [ETH],
      },
    ],
  },
  beneficiary: {
    beneficiaryPersons: [
      {
        legalPerson: {
          name: {
            nameIdentifier: [
              { legalPersonName: 'Northwind Trading Ltd', legalPersonNameIdentifierType: 'LEGL' },
              { legalPersonName: 'Northwind', legalPersonNameIdentifierType: 'TRAD' },
            ],
          },
        },
        accountNumber: [ETH.toLowerCase()],
      },
    ],
  },
  beneficiaryVASP: {
    beneficiaryVASP: {
      legalPerson: {
        name: { nameIdentifier: [{ legalPersonName: 'GLEIF', legalPersonNameIdentifierType: 'LEGL' }] },
        nationalIdentification: { nationalIdentifier: LEI, nationalIdentifierType: 'LEIX' },
      },
    },
  },
  transferPath: {
    transferPath: [
      {
        intermediaryVASP: {
          legalPerson: {
            name: {
              nameIdentifier: [{ legalPersonName: 'Hop VASP', legalPersonNameIdentifierType: 'LEGL' }],
            },
          },
        },
        sequence: 0,
      },
    ],
  },
  payloadMetadata: { transliterationMethod: ['hani'], payloadVersion: '101.2023' },
};

describe('parseTravelRuleRequest', () => {
  it('routes a body with ivms101 to the IVMS101 form', () => {
    assert.equal(isIvms101Request({ ...header, ivms101: PAYLOAD }), true);
    assert.equal(isIvms101Request({ ...header, ivms101: null }), false);
    assert.deepEqual(
      parseTravelRuleRequest({ ...header, ivms101: PAYLOAD }),
      mapIvms101Transfer({ ...header, ivms101: PAYLOAD }),
    );
  });

  it('routes any other body to the plain form', () => {
    const result = parseTravelRuleRequest({ ...header, originator: { wallet_address: SOL } });
    assert.ok(result.ok);
    assert.equal(result.transfer.originator.wallet_address, SOL);
    assert.deepEqual(parseTravelRuleRequest('x'), { ok: false, errors: ['body: Must be an object'] });
  });

  it('gives the same completeness for the same data in both forms', () => {
    const ivms = parseTravelRuleRequest({ ...header, ivms101: PAYLOAD });
    assert.ok(ivms.ok);
    const plain = parseTravelRuleRequest({
      ...header,
      originator: ivms.transfer.originator,
      beneficiary: ivms.transfer.beneficiary,
    });
    assert.ok(plain.ok);
    assert.deepEqual(plain.transfer, ivms.transfer);
    assert.deepEqual(assessCompleteness(ivms.transfer), {
      data_completeness: 'complete',
      required_fields: [],
    });
  });

  it('maps a 2023-style payload: person-level accounts, legal-person beneficiary, LEIX VASP', () => {
    const result = parseTravelRuleRequest({ ...header, blockchain: 'polygon', ivms101: PAYLOAD_2023 });
    assert.deepEqual(result, {
      ok: true,
      transfer: {
        ...header,
        blockchain: 'polygon',
        originator: { name: 'Yui Tanaka', wallet_address: ETH, national_id: 'TK-55012' },
        beneficiary: {
          name: 'Northwind Trading Ltd',
          wallet_address: ETH.toLowerCase(),
          casp_name: 'GLEIF',
          casp_lei: LEI,
        },
      },
    });
    assert.ok(result.ok);
    assert.deepEqual(assessCompleteness(result.transfer).data_completeness, 'complete');
    assert.equal(isSelfHosted(result.transfer), false);
  });

  it('treats a payload without beneficiaryVASP as self-hosted', () => {
    const result = parseTravelRuleRequest({ ...header, ivms101: edited(PAYLOAD, 'beneficiaryVASP') });
    assert.ok(result.ok);
    assert.equal(isSelfHosted(result.transfer), true);
  });
});

describe('IVMS101 robustness (properties)', () => {
  it('never throws on arbitrary input, and names every error', () => {
    fc.assert(
      fc.property(fc.anything(), (ivms101) => {
        const result = mapIvms101Transfer({ ...header, ivms101 });
        return result.ok || result.errors.every((e) => /^ivms101(\.|\[|:)/.test(e));
      }),
      { numRuns: 300 },
    );
  });

  it('rejects, with the element named, a copy of the example with any one element replaced by a number or boolean', () => {
    const paths: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (node === null || typeof node !== 'object') return;
      for (const [k, v] of Object.entries(node)) {
        const at = path ? `${path}.${k}` : k;
        paths.push(at);
        walk(v, at);
      }
    };
    walk(PAYLOAD, '');
    fc.assert(
      fc.property(fc.constantFrom(...paths), fc.constantFrom(42, true, false, -1.5), (path, junk) => {
        const result = parseIvmsIdentityPayload(edited(PAYLOAD, path, junk));
        const named = `ivms101.${path.replace(/\.(\d+)/g, '[$1]')}`;
        // The error is at the element, or (for a replaced array item / choice) at its parent.
        return (
          !result.ok &&
          result.errors.some((e) => e.startsWith(named) || named.startsWith(e.split(':')[0] ?? ''))
        );
      }),
      { numRuns: 400 },
    );
  });
});
