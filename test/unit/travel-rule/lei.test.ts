import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isValidLei, leiCheckDigits, leiProblem } from '../../../src/domain/travel-rule/lei.ts';

interface LeiExamples {
  valid: { lei: string }[];
  invalid: { lei: string; reason: string }[];
}

const examples = JSON.parse(
  readFileSync(new URL('../../fixtures/travel-rule/lei_examples.json', import.meta.url), 'utf8'),
) as LeiExamples;

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const alnumChar = fc.constantFrom(...ALNUM.split(''));
const base18 = fc.array(alnumChar, { minLength: 18, maxLength: 18 }).map((cs) => cs.join(''));

describe('isValidLei', () => {
  it('accepts every valid vector of lei_examples.json', () => {
    assert.ok(examples.valid.length >= 15);
    for (const { lei } of examples.valid) assert.equal(isValidLei(lei), true, lei);
  });

  it('rejects every invalid vector of lei_examples.json', () => {
    assert.ok(examples.invalid.length >= 12);
    for (const { lei, reason } of examples.invalid) assert.equal(isValidLei(lei), false, `${lei} (${reason})`);
  });

  it('says why an LEI is wrong', () => {
    assert.equal(leiProblem('549300NRE2M9GQ3DTH0'), 'must be 20 characters');
    assert.equal(
      leiProblem('549300nre2m9gq3dth08'),
      'must be 18 upper-case letters or digits followed by 2 check digits',
    );
    assert.equal(leiProblem('549300NRE2M9GQ3DTHAB'), 'must be 18 upper-case letters or digits followed by 2 check digits');
    assert.equal(leiProblem('549300NRE2M9GQ3DTH09'), 'invalid LEI check digits');
    assert.equal(leiProblem('549300NRE2M9GQ3DTH08'), undefined);
  });

  it('returns false for non-strings instead of throwing', () => {
    assert.equal(isValidLei(undefined as unknown as string), false);
    assert.equal(isValidLei(12345 as unknown as string), false);
  });
});

describe('leiCheckDigits', () => {
  it('reproduces the check digits of the real LEIs', () => {
    for (const { lei } of examples.valid) assert.equal(leiCheckDigits(lei.slice(0, 18)), lei.slice(18), lei);
  });

  it('refuses a base that is not 18 upper-case alphanumerics', () => {
    assert.throws(() => leiCheckDigits('5493'), RangeError);
    assert.throws(() => leiCheckDigits('549300nre2m9gq3dth'), RangeError);
  });

  it('makes a valid LEI out of any 18-character base (property)', () => {
    fc.assert(
      fc.property(base18, (base) => isValidLei(base + leiCheckDigits(base))),
      { numRuns: 2000 },
    );
  });

  it('changing any one character of a valid LEI makes it invalid (property)', () => {
    fc.assert(
      fc.property(base18, fc.nat(19), alnumChar, (base, pos, replacement) => {
        const lei = base + leiCheckDigits(base);
        fc.pre(lei[pos] !== replacement);
        // A letter in a check-digit position breaks the format; any other change breaks MOD 97-10.
        const changed = lei.slice(0, pos) + replacement + lei.slice(pos + 1);
        return !isValidLei(changed);
      }),
      { numRuns: 2000 },
    );
  });
});
