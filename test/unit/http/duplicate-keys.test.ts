import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AppError } from '../../../src/errors.ts';
import { duplicateKeyPath } from '../../../src/http/plugins/duplicate-keys.ts';
import { parseJsonBody } from '../../../src/http/plugins/json-body.ts';
import { isStorable } from '../../../src/storage/storable.ts';

const path = (text: string) => duplicateKeyPath(text, JSON.parse(text));

/** JSON text of a value in which, when `twice` says so, an object names its first key again (with
 * another value) after its last one; returns the path of the first such key in text order. */
function serialise(value: unknown, twice: () => boolean, at = ''): { text: string; first?: string } {
  if (Array.isArray(value)) {
    let first: string | undefined;
    const parts = value.map((v, i) => {
      const s = serialise(v, twice, `${at}[${i}]`);
      first ??= s.first;
      return s.text;
    });
    return { text: `[${parts.join(',')}]`, first };
  }
  if (typeof value !== 'object' || value === null) return { text: JSON.stringify(value) };
  let first: string | undefined;
  const entries = Object.entries(value);
  const parts = entries.map(([k, v]) => {
    const s = serialise(v, twice, at === '' ? k : `${at}.${k}`);
    first ??= s.first;
    return `${JSON.stringify(k)}:${s.text}`;
  });
  if (entries.length > 0 && twice()) {
    const [k] = entries[0] as [string, unknown];
    parts.push(`${JSON.stringify(k)} : "again"`);
    // The repeat comes after every nested object of this one, so an earlier repeat inside them
    // is met first in the text.
    first ??= at === '' ? k : `${at}.${k}`;
  }
  return { text: `{${parts.join(',')}}`, first };
}

describe('duplicate keys', () => {
  it('names the key an object holds twice, by its path', () => {
    assert.equal(path('{"a":1,"a":2}'), 'a');
    assert.equal(path('{"data":{"amount_eur":1,"x":2,"amount_eur":3}}'), 'data.amount_eur');
    assert.equal(path('{"items":[{"n":1},{"n":1,"n":2}]}'), 'items[1].n');
    assert.equal(path('[[1],{"x":[0,{"k":1,"k":1}]}]'), '[1].x[1].k');
    assert.equal(path('{"a" : 1 ,\n "a"\t:2}'), 'a');
    // An escape writes the same key: JSON.parse reads both as "a".
    assert.equal(path('{"a":1,"\\u0061":2}'), 'a');
  });

  it('reports the body when the path is not one to echo: empty, unstorable or long', () => {
    assert.equal(path('{"":1,"":2}'), 'body');
    assert.equal(path('{"a":{"":1,"":2}}'), 'body');
    assert.equal(path(JSON.stringify({ x: 1 }).replace('"x":1', '"a\\u202eb":1,"a\\u202eb":2')), 'body');
    assert.equal(path('{"a\\nb":1,"a\\nb":2}'), 'body');
    assert.equal(path('{"a\\u0000":1,"a\\u0000":2}'), 'body');
    const long = 'k'.repeat(300);
    assert.equal(path(`{"${long}":1,"${long}":2}`), 'body');
  });

  it('finds none where each object names each key once', () => {
    assert.equal(path('{"a":{"a":1},"b":{"a":2}}'), undefined);
    assert.equal(path('{"a":"\\"b\\":1","b":"a:"}'), undefined);
    assert.equal(path('{"a":["a","a"],"b":{"\\\\":1,"\\"":2}}'), undefined);
    assert.equal(path('[1,"x",null]'), undefined);
    assert.equal(path('"a"'), undefined);
  });

  it('agrees with the texts it is given, duplicates or not', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.infiniteStream(fc.boolean()), (value, coins) => {
        const plain = JSON.stringify(value);
        assert.equal(duplicateKeyPath(plain, JSON.parse(plain)), undefined, plain);
        const flip = coins[Symbol.iterator]();
        const { text, first } = serialise(value, () => flip.next().value === true);
        // A path not fit to echo (an empty key, over 256 characters, control, bidi or unstorable
        // characters) is reported as the body.
        const plainPath =
          first !== undefined &&
          first !== '' &&
          first.length <= 256 &&
          !/^\.|\.$|\.\./.test(first) &&
          !/[\p{Cc}\u202a-\u202e\u2066-\u2069]/u.test(first) &&
          isStorable(first);
        const shown = first === undefined || plainPath ? first : 'body';
        assert.equal(duplicateKeyPath(text, JSON.parse(text)), shown, text);
      }),
      { numRuns: 1000 },
    );
  });

  it('parseJsonBody refuses the body with a 400 naming the field', () => {
    assert.throws(
      () => parseJsonBody(Buffer.from('{"client_id":"a","data":{"amount_eur":1,"amount_eur":2}}')),
      (err: unknown) =>
        err instanceof AppError &&
        err.status === 400 &&
        err.details?.field === 'data.amount_eur' &&
        /Duplicate key/.test(String(err.details?.reason)),
    );
  });
});
