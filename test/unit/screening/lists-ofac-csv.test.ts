import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ListFormatError, parseOfacCsv, splitPrograms } from '../../../src/domain/screening/lists/index.ts';
import { fixtureBytes, fixtureText, readExtraction, SNAPSHOTS, snapshotList } from './fixtures.ts';

function loadSet(snapshot: string, withComments = true) {
  const dir = `ofac_sdn/${snapshot}/`;
  return parseOfacCsv({
    sdn: fixtureBytes(dir + 'sdn.csv'),
    add: fixtureText(dir + 'add.csv'),
    alt: fixtureText(dir + 'alt.csv'),
    ...(withComments ? { comments: fixtureText(dir + 'sdn_comments.csv') } : {}),
  });
}

const tiny = loadSet('tiny_2025');
const bench = loadSet('bench_2021');
const extraction = readExtraction();
const triples = (rows: Array<{ ent: string; ticker: string; address: string }>) =>
  rows.map((r) => `${r.ent} ${r.ticker} ${r.address}`);

describe('OFAC legacy CSV: tiny_2025 (real 17-entry extract)', () => {
  test('reads every entry with its type', () => {
    assert.equal(tiny.entries.length, 17);
    const types: Record<string, number> = {};
    for (const e of tiny.entries) types[e.type] = (types[e.type] ?? 0) + 1;
    assert.deepEqual(types, { individual: 4, entity: 7, aircraft: 2, vessel: 4 });
    // OFAC writes no type for entities: the `-0- ` token.
    assert.equal(tiny.entries.find((e) => e.entry_id === '33151')?.type, 'entity');
  });

  test('splits bracket-joined programs', () => {
    const ep = tiny.entries.find((e) => e.entry_id === '48727')!;
    assert.deepEqual(ep.programs, ['SDGT', 'NPWMD', 'IRGC', 'IFSR']);
    assert.deepEqual(splitPrograms('CYBER2] [ELECTION-EO13848'), ['CYBER2', 'ELECTION-EO13848']);
    assert.deepEqual(splitPrograms(''), []);
  });

  test('attaches aliases by the first column (ent_num) only', () => {
    const khoroshev = tiny.entries.find((e) => e.entry_id === '48603')!;
    assert.deepEqual(khoroshev.aliases, [
      'KHOROSHEV, Dmitriy Yurevich',
      'YURIEVICH, Dmitry',
      'KHOROSHEV, Dmitrii Yuryevich',
    ]);
    // alt row `11935,12685,…` belongs to ent 11935 (absent), not to ent 12685.
    const gaddafi = tiny.entries.find((e) => e.entry_id === '12685')!;
    assert.deepEqual(gaddafi.aliases, ['GADDAFI INTERNATIONAL FOUNDATION FOR CHARITY ORGANISATIONS']);
    assert.ok(tiny.warnings.includes('alt.csv: aliases for unknown ent_num 11935 ignored'));
  });

  test('extracts exactly the addresses of the derived extraction, in order', () => {
    const expected = extraction
      .filter((r) => r.snapshot === 'tiny_2025')
      .map((r) => ({ ent: r.ent_num!, ticker: r.ticker!, address: r.address! }));
    const got = tiny.addresses.map((a) => ({ ent: a.entry_id, ticker: a.ticker, address: a.address }));
    assert.equal(got.length, 32);
    assert.deepEqual(triples(got), triples(expected));
  });

  test('rebuilds the SUEX address cut between sdn.csv and sdn_comments.csv', () => {
    const suex = tiny.addresses.filter((a) => a.entry_id === '33151').map((a) => a.address);
    assert.ok(suex.includes('1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi'));
    assert.ok(!suex.includes('1B64QRxf'));
  });

  test('assigns scopes from ticker and form', () => {
    const scope = (address: string, ticker: string) =>
      tiny.addresses.find((a) => a.address === address && a.ticker === ticker)?.scope;
    assert.equal(scope('12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz', 'XBT'), 'bitcoin');
    assert.equal(scope('bc1qvhnfknw852ephxyc5hm4q520zmvf9maphetc9z', 'XBT'), 'bitcoin');
    assert.equal(scope('0x2f389ce8bd8ff92de3402ffce4691d17fc4f6535', 'USDT'), 'evm');
    assert.equal(scope('0x901bb9583b24d97e995513c6778dc6888ab6870e', 'ETH'), 'evm');
    assert.equal(scope('Leo3j36nn1JcsUQruytQhFUdCdCH5YHMR3', 'LTC'), 'unscreenable');
    assert.equal(scope('Xs3vzQmNvAxRa3Xo8XzQqUb3BMgb9EogF4', 'DASH'), 'unscreenable');
    // Omni USDT lives on Bitcoin outputs: a Bitcoin address under USDT is screened on bitcoin.
    assert.equal(scope('16iWn2J1McqjToYLHSsAyS6En3QA8YQ91H', 'USDT'), 'bitcoin');
  });

  test('has no publication date unless the caller gives one', () => {
    assert.equal(tiny.published_at, null);
    const dated = parseOfacCsv(
      { sdn: fixtureText('ofac_sdn/tiny_2025/sdn.csv') },
      { published_at: '2025-05-16' },
    );
    assert.equal(dated.published_at, '2025-05-16');
    assert.equal(dated.source, 'ofac');
  });
});

describe('OFAC legacy CSV: bench_2021 (complete 2021 snapshot)', () => {
  test('reads all 8,976 rows and no bogus row from the trailing 0x1A byte', () => {
    assert.equal(fixtureBytes('ofac_sdn/bench_2021/sdn.csv').at(-1), 0x1a);
    assert.equal(bench.entries.length, 8976);
    assert.equal(bench.entries.at(-1)?.entry_id, '32391');
    assert.ok(
      bench.entries.every((e) => /^\d+$/.test(e.entry_id) && e.name !== '' && !e.name.includes('\x1a')),
    );
    assert.deepEqual(bench.warnings, []);
  });

  test('yields the 97 addresses of the derived extraction once comments are joined', () => {
    const expected = extraction
      .filter((r) => r.snapshot === 'bench_2021')
      .map((r) => ({ ent: r.ent_num!, ticker: r.ticker!, address: r.address! }));
    const got = bench.addresses.map((a) => ({ ent: a.entry_id, ticker: a.ticker, address: a.address }));
    assert.equal(got.length, 97);
    assert.deepEqual(triples(got), triples(expected));
  });

  test('recovers addresses whose remarks were cut mid-token', () => {
    const of = (ent: string) => bench.addresses.filter((a) => a.entry_id === ent).map((a) => a.address);
    assert.ok(of('30518').includes('1GqChmWqGtsaLrGbHfgdrV5Nkvahtjjuxr'));
    // Ent 29703 is cut inside the words "Digital Currency Addres|s - ETH …".
    assert.ok(of('29703').includes('0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c'));
  });

  test('sdn.csv alone gives truncated, wrong addresses: the comments file is needed', () => {
    const alone = loadSet('bench_2021', false);
    assert.ok(alone.addresses.length < 97);
    assert.ok(alone.addresses.some((a) => a.address === '1Gq'));
    // Which is why the parser names the entries whose Remarks reach the cut uncontinued (the
    // import refuses them, services/list-prep.ts).
    assert.deepEqual(
      alone.cut_remarks.map((e) => e.entry_id),
      ['12300', '28263', '28264', '29703', '30518'],
    );
    assert.equal(alone.cut_remarks.at(-1)!.name, 'SECONDEYE SOLUTION');
    assert.deepEqual(bench.cut_remarks, []);
    assert.deepEqual(tiny.cut_remarks, []);
    assert.deepEqual(
      loadSet('tiny_2025', false).cut_remarks.map((e) => e.entry_id),
      ['33151'],
    );
  });

  test('keeps the malformed 39-digit ETH address as published, but unscreenable', () => {
    const bad = bench.addresses.find((a) => a.address === '0xa7e5d5a720f06526557c513402f2e6b5fa20b00')!;
    assert.equal(bad.entry_id, '29702');
    assert.equal(bad.scope, 'unscreenable');
    // It claims EVM (0x) but can never be asked for: the import warns of it, and of no other.
    assert.equal(bad.problem, 'not a valid EVM address (EVM address must be 0x followed by 40 hex digits)');
    assert.deepEqual(
      bench.addresses.filter((a) => a.problem !== undefined).map((a) => a.address),
      [bad.address],
    );
  });

  test('names the files in its messages as the caller gave them', () => {
    assert.throws(
      () => parseOfacCsv({ sdn: '\x1a' }, { names: { sdn: 'SDN.CSV' } }),
      (e: Error) => e instanceof ListFormatError && e.message === 'SDN.CSV holds no rows',
    );
    assert.throws(
      () => parseOfacCsv({ sdn: 'a,b\n' }, { names: { sdn: 'notes.txt' } }),
      (e: Error) => e.message === 'notes.txt row 1: expected 12 columns, found 2',
    );
  });

  test('keeps EIP-55 mixed-case addresses as published, with a lower-case match key', () => {
    const mixed = bench.addresses.find((a) => a.address === '0x7F367cC41522cE07553e823bf3be79A889DEbe1B')!;
    assert.equal(mixed.scope, 'evm');
    assert.equal(mixed.match_key, '0x7f367cc41522ce07553e823bf3be79a889debe1b');
  });

  test('counts addresses per scope', () => {
    const scopes: Record<string, number> = {};
    for (const a of bench.addresses) scopes[a.scope] = (scopes[a.scope] ?? 0) + 1;
    assert.deepEqual(scopes, { bitcoin: 65, evm: 10, unscreenable: 22 });
  });
});

describe('OFAC legacy CSV against the later published address snapshots', () => {
  for (const dir of SNAPSHOTS) {
    test(`every parsed address is in ${dir} under the same ticker, except the 2021 typo`, () => {
      const missing: string[] = [];
      for (const a of [...tiny.addresses, ...bench.addresses]) {
        const published = new Set(snapshotList(dir, a.ticker).map((x) => x.toLowerCase()));
        if (!published.has(a.address.toLowerCase())) missing.push(`${a.ticker} ${a.address}`);
      }
      // bench_2021 prints LIFSHITS's ETH address with 39 hex digits; later lists have it fixed.
      assert.deepEqual(missing, ['ETH 0xa7e5d5a720f06526557c513402f2e6b5fa20b00']);
    });
  }
});

const row = (ent: string, name: string, remarks: string) =>
  `${ent},"${name}",-0- ,"CYBER2",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"${remarks}"\r\n`;

describe('OFAC legacy CSV: edge cases', () => {
  test('a cut right after a space keeps the address whole', () => {
    const list = parseOfacCsv({
      sdn: row('1', 'A', 'Website x.io; Digital Currency Address - XBT '),
      comments: '1,"12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz; Gender Male."\r\n',
    });
    assert.deepEqual(
      list.addresses.map((a) => a.address),
      ['12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz'],
    );
  });

  test('drops the full stop that ends the last remark', () => {
    const list = parseOfacCsv({
      sdn: row('2', 'B', 'alt. Digital Currency Address - ETH 0x901bb9583b24d97e995513c6778dc6888ab6870e.'),
    });
    assert.equal(list.addresses[0]?.address, '0x901bb9583b24d97e995513c6778dc6888ab6870e');
  });

  test('LF line endings, a BOM and a trailing 0x1A give the same result as plain CRLF', () => {
    const crlf = row('3', 'C', 'Digital Currency Address - XBT 12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz');
    const variants = [
      crlf.replace(/\r\n/g, '\n'),
      '\ufeff' + crlf,
      crlf + '\x1a',
      Buffer.from(crlf + '\x1a'),
    ];
    const base = parseOfacCsv({ sdn: crlf });
    for (const v of variants) assert.deepEqual(parseOfacCsv({ sdn: v }), base);
  });

  test('a repeated ent_num is kept with its addresses, for the import to merge; its continuation read once', () => {
    const list = parseOfacCsv({
      sdn:
        row('7', 'FIRST', 'Digital Currency Address - XBT ') +
        row('7', 'SECOND', 'Digital Currency Address - ETH 0x901bb9583b24d97e995513c6778dc6888ab6870e'),
      comments: '7,"12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz."\r\n',
    });
    assert.deepEqual(
      list.entries.map((e) => [e.entry_id, e.name]),
      [
        ['7', 'FIRST'],
        ['7', 'SECOND'],
      ],
    );
    assert.deepEqual(
      list.addresses.map((a) => [a.entry_id, a.ticker, a.address]),
      [
        ['7', 'XBT', '12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz'],
        ['7', 'ETH', '0x901bb9583b24d97e995513c6778dc6888ab6870e'],
      ],
    );
    assert.deepEqual(list.warnings, []);
  });

  test('rejects a wrong column count with the file and row named', () => {
    assert.throws(
      () => parseOfacCsv({ sdn: '1,"A",-0- ,"X"\r\n' }),
      (e: unknown) =>
        e instanceof ListFormatError && /sdn\.csv row 1: expected 12 columns, found 4/.test(e.message),
    );
    assert.throws(
      () => parseOfacCsv({ sdn: row('1', 'A', 'x'), alt: '1,2,"aka","N"\r\n' }),
      (e: unknown) => e instanceof ListFormatError && /alt\.csv row 1: expected 5 columns/.test(e.message),
    );
    assert.throws(
      () => parseOfacCsv({ sdn: row('1', 'A', 'x'), comments: '1,"a","b"\r\n' }),
      (e: unknown) => e instanceof ListFormatError && /sdn_comments?\.csv row 1/.test(e.message),
    );
  });

  test('rejects a header row, an empty file and a file that is not CSV', () => {
    const header =
      'ent_num,SDN_Name,SDN_Type,Program,Title,Call_Sign,Vess_type,Tonnage,GRT,Vess_flag,Vess_owner,Remarks\r\n';
    assert.throws(
      () => parseOfacCsv({ sdn: header + row('1', 'A', 'x') }),
      /not a number \(a header row\?\)/,
    );
    assert.throws(() => parseOfacCsv({ sdn: '' }), ListFormatError);
    assert.throws(() => parseOfacCsv({ sdn: '1,"unterminated\r\n' }), ListFormatError);
    assert.throws(() => parseOfacCsv({} as never), ListFormatError);
  });
});
