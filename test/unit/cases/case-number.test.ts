import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatCaseNumber, parseCaseNumber } from '../../../src/domain/cases/case-number.ts';

describe('formatCaseNumber', () => {
  it('pads the sequence to 6 digits', () => {
    assert.equal(formatCaseNumber(2026, 1), 'CASE-2026-000001');
    assert.equal(formatCaseNumber(2026, 42), 'CASE-2026-000042');
    assert.equal(formatCaseNumber(2027, 999999), 'CASE-2027-999999');
  });

  it('grows past 999999 instead of wrapping', () => {
    assert.equal(formatCaseNumber(2026, 1_000_000), 'CASE-2026-1000000');
    assert.equal(formatCaseNumber(2026, 12_345_678), 'CASE-2026-12345678');
  });

  it('refuses sequences below 1, fractions and years that are not 4 digits', () => {
    for (const seq of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => formatCaseNumber(2026, seq), RangeError, String(seq));
    }
    for (const year of [999, 10000, 2026.5]) assert.throws(() => formatCaseNumber(year, 1), RangeError);
  });
});

describe('parseCaseNumber', () => {
  it('parses canonical numbers', () => {
    assert.deepEqual(parseCaseNumber('CASE-2026-000001'), { year: 2026, seq: 1 });
    assert.deepEqual(parseCaseNumber('CASE-2026-1000000'), { year: 2026, seq: 1_000_000 });
  });

  it('rejects everything else', () => {
    for (const s of [
      '',
      'CASE-2026-00001',
      'CASE-2026-0000001',
      'CASE-2026-000000',
      'case-2026-000001',
      'CASE-26-000001',
      ' CASE-2026-000001',
      'CASE-2026-000001\n',
      'CASE-2026-00000a',
      '3f2a9c4e-0000-4000-8000-000000000000',
    ]) {
      assert.equal(parseCaseNumber(s), null, JSON.stringify(s));
    }
  });

  it('round-trips every valid year and sequence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 1, max: 2 ** 40 }), (year, seq) => {
        const parsed = parseCaseNumber(formatCaseNumber(year, seq));
        return parsed !== null && parsed.year === year && parsed.seq === seq;
      }),
    );
  });

  it('never throws on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const parsed = parseCaseNumber(s);
        return parsed === null || formatCaseNumber(parsed.year, parsed.seq) === s;
      }),
    );
  });
});
