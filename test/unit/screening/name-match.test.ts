import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { jaro, jaroWinkler, minLengthRatio } from '../../../src/domain/screening/jaro-winkler.ts';
import { parseOfacCsv, parseUnXml, type SanctionsList } from '../../../src/domain/screening/lists/index.ts';
import {
  buildNameIndex,
  buildNameIndexInSlices,
  NAME_INDEX_SLICE,
  nameScore,
  normalizeName,
  withoutMiddleNames,
} from '../../../src/domain/screening/name-match.ts';
import { fixtureBytes, fixtureText } from './fixtures.ts';

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-3, `${actual} ≉ ${expected}`);

describe('Jaro-Winkler', () => {
  test('matches the textbook values', () => {
    close(jaro('MARTHA', 'MARHTA'), 0.944);
    close(jaroWinkler('MARTHA', 'MARHTA'), 0.961);
    close(jaroWinkler('DWAYNE', 'DUANE'), 0.84);
    close(jaroWinkler('DIXON', 'DICKSONX'), 0.813);
    assert.equal(jaroWinkler('', ''), 1);
    assert.equal(jaroWinkler('abc', ''), 0);
    assert.equal(jaroWinkler('abc', 'xyz'), 0);
  });

  test('is symmetric and bounded', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), (a, b) => {
        const s = jaroWinkler(a, b);
        assert.ok(s >= 0 && s <= 1);
        close(s, jaroWinkler(b, a));
      }),
    );
  });

  test('the length-ratio bound never excludes a pair that reaches the threshold', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 25 }),
        fc.string({ minLength: 1, maxLength: 25 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (a, b, t) => {
          if (jaroWinkler(a, b) >= t) {
            const ratio = Math.min(a.length, b.length) / Math.max(a.length, b.length);
            assert.ok(ratio >= minLengthRatio(t) - 1e-9);
          }
        },
      ),
    );
  });
});

describe('name normalisation', () => {
  test('folds case, accents, punctuation and word order', () => {
    assert.equal(normalizeName('LOGAN MOREY, Elvis Angus'), 'angus elvis logan morey');
    assert.equal(normalizeName('Elvis Angus Logan-Morey'), 'angus elvis logan morey');
    assert.equal(normalizeName('José  María ÑÚÑEZ'), 'jose maria nunez');
    assert.equal(normalizeName("O'Brien, Seán"), 'obrien sean');
    assert.equal(normalizeName('Straße Ørsted Łódź'), 'lodz orsted strasse');
    assert.equal(normalizeName('  ,.;  '), '');
  });

  test("joins an initialism's dots, and only those", () => {
    assert.equal(normalizeName('SUEX OTC, S.R.O.'), 'otc sro suex');
    assert.equal(normalizeName('suex otc sro'), 'otc sro suex');
    assert.equal(normalizeName('U.S.A'), 'usa');
    assert.equal(normalizeName('J. Smith'), 'j smith');
    assert.equal(normalizeName('Co.Ltd'), 'co ltd');
    assert.equal(nameScore('Suex OTC sro', 'SUEX OTC, S.R.O.'), 1);
  });

  test('scores equivalent spellings as identical', () => {
    assert.equal(nameScore('KHOROSHEV, Dmitry Yuryevich', 'dmitry yuryevich khoroshev'), 1);
    assert.equal(nameScore('', 'x'), 0);
  });
});

const ofac = parseOfacCsv({
  sdn: fixtureBytes('ofac_sdn/bench_2021/sdn.csv'),
  alt: fixtureText('ofac_sdn/bench_2021/alt.csv'),
});
const un = parseUnXml(fixtureBytes('un_sanctions/UN_consolidated.xml'));
const index = buildNameIndex([ofac, un]);

describe('name index over the real OFAC 2021 and UN lists', () => {
  test('indexes names and aliases', () => {
    assert.ok(index.size > 20000, `${index.size}`);
  });

  test('finds an exact name in any word order and case', () => {
    const [best] = index.search('artem mikhaylovich LIFSHITS');
    assert.deepEqual(best, {
      list: 'ofac',
      entry_id: '29702',
      name: 'LIFSHITS, Artem Mikhaylovich',
      programs: ['CYBER2', 'ELECTION-EO13848'],
      score: 1,
      matched_name: 'LIFSHITS, Artem Mikhaylovich',
    });
  });

  test('finds a near spelling above 0.92', () => {
    const [best] = index.search('Artem Mikhailovich Lifshits');
    assert.equal(best?.entry_id, '29702');
    assert.ok(best!.score >= 0.92 && best!.score < 1);
  });

  test('finds the same person on both lists, and matches through aliases', () => {
    const hits = index.search('Eric Badege').map((m) => `${m.list}:${m.entry_id}`);
    assert.deepEqual(hits, ['ofac:15718', 'un:CDi.001']);
    const adf = index.search('allied democratic forces').find((m) => m.list === 'un')!;
    assert.equal(adf.entry_id, 'CDe.001');
    assert.equal(adf.name, 'ADF');
    assert.equal(adf.matched_name, 'Allied Democratic Forces');
  });

  test('finds a person written without the middle names, as payments usually are', () => {
    // The full forms score ~0.90 against "Artem Lifshits": under the threshold before.
    const [best] = index.search('Artem Lifshits');
    assert.equal(best?.entry_id, '29702');
    assert.equal(best?.score, 1);
    assert.equal(best?.matched_name, 'LIFSHITS, Artem Mikhaylovich');
    // UN parts in order: the first and the last.
    const un = index.search('Eric Badege').find((m) => m.list === 'un');
    assert.equal(un?.entry_id, 'CDi.001');
  });

  test('withoutMiddleNames: OFAC "SURNAME, Given Middle" and names in order; none without a middle name', () => {
    assert.equal(withoutMiddleNames('LIFSHITS, Artem Mikhaylovich'), 'Artem LIFSHITS');
    assert.equal(withoutMiddleNames('SUNIGA RODRIGUEZ, Jose Juan'), 'Jose SUNIGA RODRIGUEZ');
    assert.equal(withoutMiddleNames('ABDUL RAHMAN YASIN AL-HAYALI'), 'ABDUL AL-HAYALI');
    assert.equal(withoutMiddleNames('WEI, Zhang'), undefined);
    assert.equal(withoutMiddleNames('ERIC BADEGE'), undefined);
    assert.equal(withoutMiddleNames('A, B, C D'), undefined);
    assert.equal(withoutMiddleNames(', Artem Mikhaylovich'), undefined);
  });

  test('a record publishing two names in one field is found by each (UN CDe.003)', () => {
    for (const name of ['Great Lakes Business Company', 'Compagnie Aerienne des Grands Lacs']) {
      const hit = index.search(name).find((m) => m.list === 'un');
      assert.equal(hit?.entry_id, 'CDe.003', name);
      assert.ok(hit!.score >= 0.92, `${name}: ${hit!.score}`);
      assert.match(hit!.name, /GREAT LAKES BUSINESS COMPANY/);
    }
  });

  test('returns best first, one result per entry, all above the threshold', () => {
    const hits = index.search('Nicolas Madurro', 0.9);
    assert.ok(hits.length > 1);
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.score >= hits[i]!.score);
    assert.equal(new Set(hits.map((h) => `${h.list}:${h.entry_id}`)).size, hits.length);
    assert.ok(hits.every((h) => h.score >= 0.9));
  });

  test('returns nothing for an unrelated or empty name', () => {
    assert.deepEqual(index.search('Zebulon Quartermaine-Wexley'), []);
    assert.deepEqual(index.search(''), []);
    assert.deepEqual(index.search('  -- '), []);
  });
});

describe('name index built in slices', () => {
  test('is the same index, with a pause after every slice of entries', async () => {
    let pauses = 0;
    const sliced = await buildNameIndexInSlices([ofac, un], async () => {
      pauses++;
    });
    const entries = ofac.entries.length + un.entries.length;
    assert.equal(pauses, Math.floor(entries / NAME_INDEX_SLICE));
    assert.equal(sliced.size, index.size);
    const names = [...ofac.entries, ...un.entries].flatMap((e) => [e.name, ...e.aliases]);
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.string({ maxLength: 2 }), (name, noise) => {
        assert.deepEqual(sliced.search(name + noise, 0.9), index.search(name + noise, 0.9));
      }),
      { numRuns: 100 },
    );
  });

  test('lets other work run between its slices', async () => {
    const order: string[] = [];
    const built = buildNameIndexInSlices(
      [ofac],
      () => new Promise<void>((resolve) => setImmediate(resolve)),
      1000,
    ).then(() => order.push('built'));
    setImmediate(() => order.push('other work'));
    await built;
    assert.deepEqual(order, ['other work', 'built']);
  });
});

describe('name index pruning is exact', () => {
  // Edits drawn from letters, digits (the masks fold digits 5–9, space and other characters into
  // one bit), spaces, accents and other scripts.
  const edit = fc.record({
    at: fc.nat(),
    op: fc.constantFrom('insert', 'replace', 'delete', 'append'),
    text: fc.string({
      unit: fc.constantFrom(...'aaeinorsuyz0159 -éßжا'.split('')),
      minLength: 1,
      maxLength: 3,
    }),
  });
  const applied = (name: string, edits: { at: number; op: string; text: string }[]) =>
    edits.reduce((s, { at, op, text }) => {
      const i = at % (s.length + 1);
      if (op === 'insert') return s.slice(0, i) + text + s.slice(i);
      if (op === 'replace') return s.slice(0, i) + text + s.slice(i + text.length);
      if (op === 'delete') return s.slice(0, i) + s.slice(i + text.length);
      return s + text;
    }, name);

  test('gives the same entries as scoring every name without pruning', () => {
    const small: SanctionsList = { ...ofac, entries: ofac.entries.slice(0, 400) };
    const idx = buildNameIndex([small]);
    const unpruned = buildNameIndex([small], { prune: false });
    const names = small.entries.flatMap((e) => [e.name, ...e.aliases]);
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.array(edit, { maxLength: 3 }),
        fc.constantFrom(0.8, 0.88, 0.92, 0.97),
        (name, edits, t) => {
          const query = applied(name, edits);
          assert.deepEqual(idx.search(query, t), unpruned.search(query, t));
        },
      ),
      { numRuns: 400 },
    );
  });
});
