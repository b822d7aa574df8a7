import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CaspDirectoryError,
  caspDirectoryFrom,
  normaliseCaspName,
  parseCaspDirectoryCsv,
  verifyCounterparty,
} from '../../../src/domain/travel-rule/counterparty.ts';
import type { TravelRuleTransfer } from '../../../src/domain/travel-rule/transfer.ts';
import { LEI } from './helpers.ts';

const CITI = '6SHGI4ZSSLCXXQSBB395';
const SUEX = '5299007NTWCC3U23WM81';

function withCasp(beneficiary: TravelRuleTransfer['beneficiary']): TravelRuleTransfer {
  return { transfer_id: 't', direction: 'outbound', amount_eur: 1, originator: {}, beneficiary };
}

function parseError(text: string): CaspDirectoryError {
  try {
    parseCaspDirectoryCsv(text);
  } catch (err) {
    assert.ok(err instanceof CaspDirectoryError, String(err));
    return err;
  }
  assert.fail('expected a CaspDirectoryError');
}

const directory = caspDirectoryFrom([
  { lei: LEI, name: 'Global Legal Entity Identifier Foundation', country: 'CH', extra: {} },
  { lei: CITI, name: 'Citigroup Inc.', country: 'US', extra: {} },
]);

describe('verifyCounterparty', () => {
  it('verifies a listed LEI without a name', () => {
    assert.equal(verifyCounterparty(withCasp({ casp_lei: CITI }), directory), true);
  });

  it('compares names ignoring case and all white space', () => {
    for (const casp_name of [
      'citigroup inc.',
      'CITIGROUP  INC.',
      ' Citi group\tInc. ',
      'Citigroup\u00a0Inc.',
    ]) {
      assert.equal(verifyCounterparty(withCasp({ casp_lei: CITI, casp_name }), directory), true, casp_name);
    }
  });

  it('refuses a different name, punctuation included', () => {
    assert.equal(
      verifyCounterparty(withCasp({ casp_lei: CITI, casp_name: 'Citigroup Inc' }), directory),
      false,
    );
    assert.equal(verifyCounterparty(withCasp({ casp_lei: CITI, casp_name: 'Citibank' }), directory), false);
  });

  it('refuses an unlisted, invalid or absent LEI', () => {
    assert.equal(verifyCounterparty(withCasp({ casp_lei: SUEX }), directory), false);
    assert.equal(verifyCounterparty(withCasp({ casp_lei: '6SHGI4ZSSLCXXQSBB396' }), directory), false);
    assert.equal(verifyCounterparty(withCasp({ casp_name: 'Citigroup Inc.' }), directory), false);
    assert.equal(verifyCounterparty(withCasp({}), directory), false);
  });

  it('does not trust a directory entry under an invalid LEI', () => {
    const odd = { get: () => ({ lei: 'X', name: 'X', country: 'XX' }) };
    assert.equal(verifyCounterparty(withCasp({ casp_lei: 'not-an-lei' }), odd), false);
  });

  it('normalises names for comparison', () => {
    assert.equal(normaliseCaspName(' Bob’s  Discount\nVASP '), 'bob’sdiscountvasp');
  });
});

describe('parseCaspDirectoryCsv', () => {
  it('reads lei,name,country in any order and keeps extra columns', () => {
    const csv = `Country,LEI,Name,Website\nCH,${LEI},"Global Legal Entity Identifier Foundation",https://gleif.org\nUS,${CITI},Citigroup Inc.,\n`;
    assert.deepEqual(parseCaspDirectoryCsv(csv), [
      {
        lei: LEI,
        name: 'Global Legal Entity Identifier Foundation',
        country: 'CH',
        extra: { Website: 'https://gleif.org' },
      },
      { lei: CITI, name: 'Citigroup Inc.', country: 'US', extra: { Website: '' } },
    ]);
  });

  it('accepts a BOM, CRLF line ends, quoted commas and blank lines', () => {
    const csv = `\ufefflei,name,country\r\n\r\n${LEI},"Foundation, GLEIF",CH\r\n`;
    assert.deepEqual(parseCaspDirectoryCsv(csv), [
      { lei: LEI, name: 'Foundation, GLEIF', country: 'CH', extra: {} },
    ]);
  });

  it('builds a directory from the records', () => {
    const dir = caspDirectoryFrom(parseCaspDirectoryCsv(`lei,name,country\n${SUEX},"SUEX OTC, S.R.O.",CZ\n`));
    assert.equal(dir.size, 1);
    assert.equal(verifyCounterparty(withCasp({ casp_lei: SUEX, casp_name: 'suex otc, s.r.o.' }), dir), true);
  });

  it('lists the lines with an invalid LEI or a missing name', () => {
    const csv = [
      'lei,name,country',
      `${LEI},GLEIF,CH`,
      '851683897,Short Id,US',
      `${CITI},,US`,
      `${SUEX},SUEX,CZ`,
      '549300nre2m9gq3dth08,Lower,US',
    ].join('\n');
    const err = parseError(csv);
    assert.deepEqual(err.problems, ['invalid LEI on lines 3, 6', 'missing name on line 4']);
    assert.deepEqual(err.lines, [3, 4, 6]);
    assert.match(err.message, /invalid LEI on lines 3, 6; missing name on line 4/);
  });

  it('rejects duplicate LEIs, naming the repeated line', () => {
    const err = parseError(`lei,name,country\n${LEI},A,CH\n${CITI},B,US\n${LEI},C,CH\n`);
    assert.deepEqual(err.problems, ['duplicate LEI on line 4']);
    assert.deepEqual(err.lines, [4]);
  });

  it('counts lines from the file, quoted new lines and blank lines included', () => {
    const err = parseError(`lei,name,country\n\n${LEI},"two\nlines",CH\nBAD,X,US\n`);
    assert.deepEqual(err.problems, ['invalid LEI on line 5']);
  });

  it('requires the three columns in the header', () => {
    assert.deepEqual(parseError(`lei,name\n${LEI},GLEIF\n`).problems, ['header lacks column(s): country']);
    assert.deepEqual(parseError('lei,name,country,Name\n').problems, ['header repeats column(s): name']);
    assert.deepEqual(parseError('').problems, ['empty file: a header with lei,name,country is required']);
  });

  it('turns a malformed CSV into a CaspDirectoryError with its line', () => {
    const err = parseError(`lei,name,country\n${LEI},GLEIF,CH,extra\n`);
    assert.deepEqual(err.lines, [2]);
    assert.match(err.problems[0] ?? '', /^line 2: /);
  });

  it('returns no records for a header alone', () => {
    assert.deepEqual(parseCaspDirectoryCsv('lei,name,country\n'), []);
  });
});
