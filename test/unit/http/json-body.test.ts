import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { nestingDepth, parseJsonBody, parseJsonBodyOffThread } from '../../../src/http/plugins/json-body.ts';

/** The reference: one character at a time, a backslash in a string skipping the next one. */
function depthByCharacter(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

describe('nestingDepth', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    assert.equal(nestingDepth('{"a":[1,{"b":[]}]}'), 4);
    assert.equal(nestingDepth('{"a":"[[[{{{"}'), 1);
    assert.equal(nestingDepth('["\\"[[[", "\\\\", [[]]]'), 3);
    assert.equal(nestingDepth('"\\\\\\"[" ]'), 0);
    assert.equal(nestingDepth('[[[["unterminated ['), 4);
    assert.equal(nestingDepth(''), 0);
  });

  it('agrees with a character-by-character scan on any JSON text', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 8 }), (text) => {
        assert.equal(nestingDepth(text), depthByCharacter(text));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with a character-by-character scan on any text of quotes, backslashes and brackets', () => {
    const pieces = fc.constantFrom('"', '\\', '[', ']', '{', '}', 'a', ',', '\\"', '\\\\');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 60 }), (parts) => {
        const text = parts.join('');
        assert.equal(nestingDepth(text), depthByCharacter(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('skips megabytes of escaped file text in a string', () => {
    const file = 'a,"b ""quoted"" \\ [c]",{d}\n'.repeat(100_000);
    const text = JSON.stringify({ files: [{ name: 'sdn.csv', content: file }] });
    assert.equal(nestingDepth(text), 3);
    assert.equal(nestingDepth(text), depthByCharacter(text));
  });
});

describe('parseJsonBody depth limit', () => {
  const deep = (n: number, open: string, close: string) => `${open.repeat(n)}${close.repeat(n)}`;
  it('refuses nesting past 64 levels of arrays, objects or both, and takes 64', () => {
    assert.throws(() => parseJsonBody(Buffer.from(deep(65, '[', ']'))), /nested deeper than 64/);
    assert.throws(
      () => parseJsonBody(Buffer.from(`${'{"a":'.repeat(65)}1${'}'.repeat(65)}`)),
      /nested deeper/,
    );
    assert.throws(
      () => parseJsonBody(Buffer.from(`${'[{"a":'.repeat(33)}1${'}]'.repeat(33)}`)),
      /nested deeper/,
    );
    assert.deepEqual(parseJsonBody(Buffer.from(deep(64, '[', ']'))), JSON.parse(deep(64, '[', ']')));
  });
  it('takes many brackets that do not nest deep, and brackets inside strings', () => {
    const wide = JSON.stringify({ a: Array.from({ length: 200 }, () => [{}]), s: '[[[[{{{{'.repeat(50) });
    assert.deepEqual(parseJsonBody(Buffer.from(wide)), JSON.parse(wide));
  });
});

describe('parseJsonBodyOffThread', () => {
  it('gives the value parseJsonBody gives', async () => {
    const text = JSON.stringify({ a: [1, -0, 1e300, 'é ✓ 😀', { b: null, c: true }], d: 'x'.repeat(10_000) });
    const body = Buffer.from(text);
    assert.deepEqual(await parseJsonBodyOffThread(body), parseJsonBody(body));
    assert.ok(Object.is(((await parseJsonBodyOffThread(Buffer.from('[-0]'))) as number[])[0], -0));
  });
});
