import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { pickOfficer } from '../../../src/domain/cases/assignment.ts';

describe('pickOfficer', () => {
  it('is null when the client has no officers', () => {
    assert.equal(pickOfficer([]), null);
  });

  it('picks the officer with the fewest open cases', () => {
    const picked = pickOfficer([
      { name: 'alice', openCases: 3 },
      { name: 'bob', openCases: 1 },
      { name: 'carol', openCases: 2 },
    ]);
    assert.equal(picked?.name, 'bob');
  });

  it('breaks ties by name, by code units rather than locale', () => {
    const tied = [
      { name: 'zoe', openCases: 0 },
      { name: 'Zed', openCases: 0 },
      { name: 'adam', openCases: 0 },
    ];
    assert.equal(pickOfficer(tied)?.name, 'Zed');
  });

  it('keeps the first of exact duplicates and passes extra fields through', () => {
    const a = { name: 'ann', openCases: 1, id: 'first' };
    const b = { name: 'ann', openCases: 1, id: 'second' };
    assert.equal(pickOfficer([a, b])?.id, 'first');
  });

  it('does not depend on input order', () => {
    const officer = fc.record({ name: fc.constantFrom('a', 'b', 'c', 'd'), openCases: fc.nat(5) });
    fc.assert(
      fc.property(fc.uniqueArray(officer, { minLength: 1, selector: (o) => o.name }), (officers) => {
        const picked = pickOfficer(officers);
        const reversed = pickOfficer([...officers].reverse());
        const min = Math.min(...officers.map((o) => o.openCases));
        return picked === reversed && picked?.openCases === min;
      }),
    );
  });
});
