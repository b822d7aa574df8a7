import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { InFlight } from '../../../src/storage/in-flight.ts';

describe('InFlight (requests awaiting their answer, by reusable id)', () => {
  it('gives each value its own id and hands it back exactly once', () => {
    const table = new InFlight<string>();
    const a = table.add('a');
    const b = table.add('b');
    assert.notEqual(a, b);
    assert.equal(table.size, 2);
    assert.equal(table.take(b), 'b');
    assert.equal(table.take(b), undefined, 'a second answer under the same id finds nothing');
    assert.equal(table.take(a), 'a');
    assert.equal(table.size, 0);
  });

  it('ignores ids it never gave out', () => {
    const table = new InFlight<number>();
    table.add(1);
    for (const id of [-1, 7, 0.5, Number.NaN]) assert.equal(table.take(id), undefined);
    assert.equal(table.size, 1);
  });

  it('reuses freed ids, so its storage stays as large as the most ever in flight', () => {
    const table = new InFlight<number>();
    const first = [table.add(1), table.add(2), table.add(3)];
    table.take(first[1]!);
    assert.equal(table.add(4), first[1]);
    assert.deepEqual(new Set(first).size, 3);
  });

  it('takeAll empties it and returns what was still waiting', () => {
    const table = new InFlight<string>();
    const x = table.add('x');
    table.add('y');
    table.add('z');
    table.take(x);
    assert.deepEqual(table.takeAll().sort(), ['y', 'z']);
    assert.equal(table.size, 0);
    assert.equal(table.take(x), undefined);
  });

  it('behaves like a map from id to value under any sequence of adds and takes', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant(-1), fc.nat(20)), { maxLength: 200 }), (ops) => {
        const table = new InFlight<number>();
        const model = new Map<number, number>();
        let n = 0;
        for (const op of ops) {
          if (op < 0) {
            const id = table.add(++n);
            assert.equal(model.has(id), false, 'an id in use is never handed out again');
            model.set(id, n);
          } else {
            assert.equal(table.take(op), model.get(op));
            model.delete(op);
          }
          assert.equal(table.size, model.size);
        }
      }),
    );
  });
});
