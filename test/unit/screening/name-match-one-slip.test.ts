import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SanctionsList } from '../../../src/domain/screening/lists/index.ts';
import { buildNameIndex, type NameMatch, normalizeName } from '../../../src/domain/screening/name-match.ts';
import { seededRandom } from '../../helpers/seeded-random.ts';
import { finds, hits, index, ofac, un } from './real-lists.ts';

// Names a black-box review found missed with one letter off (issue 3b), in the real lists.

/** The name with one letter of one word of 4+ letters replaced, added or dropped; undefined if none. */
function oneLetterOff(
  name: string,
  random: () => number,
  edit: 'replace' | 'add' | 'drop',
): string | undefined {
  const parts = name.split(/(\s+|,|-)/);
  const words = parts.flatMap((p, i) => (/^[A-Za-z]{4,}$/.test(p) ? [i] : []));
  if (words.length === 0) return undefined;
  const i = words[Math.floor(random() * words.length)]!;
  const w = parts[i]!;
  const letter = () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[Math.floor(random() * 26)]!;
  const at = Math.floor(random() * (edit === 'add' ? w.length + 1 : w.length));
  let edited: string;
  if (edit === 'drop') edited = w.slice(0, at) + w.slice(at + 1);
  else if (edit === 'add') edited = w.slice(0, at) + letter() + w.slice(at);
  else {
    let c = letter();
    while (c === w[at]!.toUpperCase()) c = letter();
    edited = w.slice(0, at) + c + w.slice(at + 1);
  }
  parts[i] = edited;
  return parts.join('');
}

describe('listed names one letter off (OFAC 2021 + UN, threshold 0.92)', () => {
  test('the names the reviewer found missed', () => {
    const cases: [string, string][] = [
      ['Islamik Revolutionary Guard Corps', 'ofac:10391'],
      ['Islamic Revolutionary Guard Corp', 'ofac:10391'], // CORP for CORPS (alias ISLAMIC REVOLUTIONARY GUARDS)
      ['Haqani Network', 'ofac:15484'],
      ['HAQQANI NETWERK', 'ofac:15484'],
      ['Al-Aqsa Foundatien', 'ofac:7637'],
      ['GENERAL PETROLEEM CORPORATION', 'ofac:12866'],
      ['SERIAN HOTEL MANAGEMENT LLC', 'ofac:29861'],
      ['KOREA HEUNGJIN TRADING COMEANY', 'ofac:12220'],
      ['KOREA HEUNGJIN TRADING COMEANY', 'un:KPe.011'],
      ['SERIA INTERNATIONAL ISLAMIC BANK', 'ofac:13122'],
      ['ISEAMIC MOVEMENT OF UZBEKISTAN', 'ofac:6725'],
      ['SPRING SHIPPING LIMETED', 'ofac:25853'],
      ['Sadam Hussein', 'ofac:7843'], // aka HUSSEIN, Saddam
    ];
    for (const [name, entry] of cases) {
      finds(name, entry);
      const m = index.search(name).find((x) => `${x.list}:${x.entry_id}` === entry)!;
      assert.ok(m.score >= 0.92 && m.score < 1, `${name}: ${m.score}`);
    }
  });

  test('legal forms are optional and equivalent: the name as listed scores 1', () => {
    for (const [name, entry] of [
      ['General Petroleum Corp', 'ofac:12866'], // GENERAL PETROLEUM CORPORATION
      ['SYRIAN HOTEL MANAGEMENT', 'ofac:29861'], // … LLC
      ['CASA GRAJALES', 'ofac:8895'], // CASA GRAJALES S.A.
      ['Casa Grajales Ltd', 'ofac:8895'],
      ['Spring Shipping Ltd', 'ofac:25853'], // SPRING SHIPPING LIMITED
    ] as const) {
      const m = index.search(name).find((x) => `${x.list}:${x.entry_id}` === entry);
      assert.equal(m?.score, 1, `${name}: ${hits(name)}`);
    }
    // Not from a person's name: CO, SA, AB may be a person's words.
    const people: SanctionsList = {
      source: 'eu',
      entries: [
        { entry_id: 'p1', type: 'individual', name: 'Sa Kwang Ho', aliases: [], programs: [], addresses: [] },
      ],
    } as unknown as SanctionsList;
    assert.deepEqual(buildNameIndex([people]).search('Kwang Ho'), []);
    // A name the 2021 snapshot does not hold: ZEDCEX EXCHANGE LIMITED (OFAC, 2023), as listed there.
    const zedcex = {
      source: 'ofac',
      entries: [
        {
          entry_id: '1',
          type: 'entity',
          name: 'ZEDCEX EXCHANGE LIMITED',
          aliases: [],
          programs: [],
          addresses: [],
        },
      ],
    } as unknown as SanctionsList;
    const idx = buildNameIndex([ofac, zedcex]);
    for (const name of ['Zedcex Exchange Ltd', 'Zedcex Exchange', 'Zedsex Exchange Ltd'])
      assert.ok(
        idx.search(name).some((m) => m.entry_id === '1' && m.list === 'ofac'),
        name,
      );
  });

  test('an organisation known by one word of its two-word alias: "Hezbollah" (LEBANESE HEZBOLLAH)', () => {
    // HEZBOLLAH is in two of HIZBALLAH's aliases; KATA'IB HEZBOLLAH and ANSAR-E HEZBOLLAH carry it too.
    finds('Hezbollah', 'ofac:4697');
    finds('Hizbollah', 'ofac:4697');
    const m = index.search('Hezbollah').find((x) => x.entry_id === '4697')!;
    assert.equal(m.score, 0.92);
    // Only a distinctive word: ISLAMIC (123 parties) or JIHAD (33) find nobody alone.
    assert.deepEqual(hits('Islamic'), []);
    assert.deepEqual(hits('Jihad'), []);
  });

  test('property: one letter replaced, added or dropped in a word of 4+ letters of a real name', () => {
    // Every OFAC 2021 organisation's name and individual's name (seeded: the same edits each run).
    // Organisations: all found. Individuals: a few edits make another name the lists carry (AMIN →
    // Amir, HAJI → Hadi, KIM Yong Chol → Tong Chol) or a frequent one: those are not slips, and a
    // person's one-word name stays exact.
    const random = seededRandom(2021);
    for (const edit of ['replace', 'add', 'drop'] as const) {
      let orgs = 0;
      let people = 0;
      const missedOrgs: string[] = [];
      let missedPeople = 0;
      for (const e of ofac.entries) {
        if (e.type !== 'entity' && e.type !== 'individual') continue;
        const name = oneLetterOff(e.name, random, edit);
        if (name === undefined) continue;
        const found = index.search(name).some((m) => m.list === 'ofac' && m.entry_id === e.entry_id);
        if (e.type === 'entity') {
          orgs++;
          if (!found) missedOrgs.push(`${name} [${e.name}]`);
        } else {
          people++;
          if (!found) missedPeople++;
        }
      }
      assert.ok(orgs > 3500 && people > 4500, `${orgs} ${people}`);
      // But a one-word name edited into a word many listed parties carry ("Ansar" for ANSARU): that
      // word; and a one-word name under 6 letters (HAMAS, CIMEX), which matches exactly only (below).
      const shortSingle = (missed: string) => {
        const listed = /\[(.*)\]$/.exec(missed)?.[1] ?? '';
        return /^[^\s,]{1,5}$/.test(listed.replace(/,?\s+(S\.\s?A\.?|LLC|LTD\.?|INC\.?)$/i, ''));
      };
      const missedLong = missedOrgs.filter((n) => !shortSingle(n));
      assert.ok(missedLong.length <= 2, `${edit}: ${missedLong.join('; ')}`);
      // Before: 22 % / 18 % / 29 % of organisations and 11 % / 11 % / 24 % of individuals missed.
      assert.ok(missedPeople / people < 0.035, `${edit}: ${missedPeople} / ${people} individuals missed`);
    }
  });
});

describe('a given name alone matches no organisation one slip off', () => {
  test('short single words are read exactly: a query alone cannot tell a person from a company', () => {
    // A code review found these hit organisations at 0.92 (SANA, ACEX OY, SARAK, MARA, NADA…).
    for (const name of [
      'Ana',
      'Alex',
      'Nina',
      'Lina',
      'Dana',
      'Sara',
      'Zara',
      'Mira',
      'Sami',
      'Rami',
      'Nadia',
      'Amal',
      'Hana',
      'Dana Co',
      'Ana Ou',
      'Ana The',
      'Mira As',
      'Ana Sá',
      'Hamus',
    ])
      assert.deepEqual(hits(name), [], name);
    // Written exactly, a short one-word name is found.
    finds('Hamas', 'ofac:4695');
  });
});

describe('common names still match nobody but a listed name written out', () => {
  const entries = new Map<string, { name: string; aliases: string[] }>();
  for (const list of [ofac, un]) for (const e of list.entries) entries.set(`${list.source}:${e.entry_id}`, e);
  const isListedName = (query: string, m: NameMatch) => {
    const e = entries.get(`${m.list}:${m.entry_id}`)!;
    return [e.name, ...e.aliases].some((n) => normalizeName(n) === normalizeName(query));
  };

  test('frequent names of many cultures', () => {
    const names = [
      'John Smith',
      'Maria Garcia',
      'Mohamed Ali',
      'Ahmed Ali',
      'Jose Garcia',
      'Li Wei',
      'Omar Khan',
      'David Miller',
      'Anna Müller',
      'Juan Pérez',
      'Wang Fang',
      'Fatima Khan',
      'Mohammed Ahmed',
      'Ali Hassan',
      'Abdul Rahman',
      'Ivan Ivanov',
      'Zhang Wei',
      'Nguyen Van Anh',
      'Omar Patel',
      'Amit Patel',
      'Raj Singh',
      'Ana Silva',
      'Hans Schmidt',
      'Michael Brown',
      'Mohamed Hassan',
      'Juan Zhang',
      'Mohammad Reza',
    ];
    for (const name of names)
      for (const m of index.search(name))
        assert.ok(isListedName(name, m), `${name} → ${m.list}:${m.entry_id} ${m.matched_name} ${m.score}`);
    // Of these, only "Abdul Rahman" (UN QDi alias, OFAC aka) and the like are listed as written.
  });
});

describe('speed', () => {
  test('a 512-character name of many listed words is answered in a few milliseconds', () => {
    const long = ofac.entries
      .filter((e) => e.type === 'entity')
      .slice(100, 400)
      .map((e) => e.name)
      .join(' ')
      .slice(0, 512);
    index.search(long);
    const start = performance.now();
    for (let i = 0; i < 10; i++) index.search(long);
    const each = (performance.now() - start) / 10;
    assert.ok(each < 10, `${each.toFixed(2)} ms`);
  });
});
