import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ListFormatError,
  ofacDate,
  parseEuXml,
  parseOfacXml,
  parseUnXml,
} from '../../../src/domain/screening/lists/index.ts';
import { fixtureBytes, fixtureText } from './fixtures.ts';

const isFormatError = (pattern: RegExp) => (e: unknown) =>
  e instanceof ListFormatError && pattern.test(e.message);

describe('OFAC sdn.xml', () => {
  const list = parseOfacXml(fixtureText('ofac_xml/sdn_sample.xml'));

  test('reads the publication date (MM/DD/YYYY → ISO)', () => {
    assert.equal(list.source, 'ofac');
    assert.equal(list.published_at, '2025-05-16');
    assert.equal(ofacDate('1/2/2024'), '2024-01-02');
    assert.equal(ofacDate(''), null);
  });

  test('reads entries with names in the CSV form, types, programs and aliases', () => {
    assert.equal(list.entries.length, 5);
    assert.deepEqual(list.entries[0], {
      entry_id: '29702',
      name: 'LIFSHITS, Artem Mikhaylovich',
      type: 'individual',
      programs: ['CYBER2', 'ELECTION-EO13848'],
      aliases: [],
    });
    const khoroshev = list.entries.find((e) => e.entry_id === '48603')!;
    assert.deepEqual(khoroshev.aliases, ['KHOROSHEV, Dmitriy Yurevich', 'YURIEVICH, Dmitry']);
    assert.equal(list.entries.find((e) => e.entry_id === '33151')?.type, 'entity');
    assert.equal(list.entries.find((e) => e.entry_id === '40716')?.type, 'vessel');
  });

  test('reads digital-currency ids and ignores other ids', () => {
    assert.deepEqual(
      list.addresses.map((a) => [a.entry_id, a.ticker, a.address, a.scope]),
      [
        ['29702', 'XBT', '12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz', 'bitcoin'],
        ['29702', 'ETH', '0x901bb9583b24d97e995513c6778dc6888ab6870e', 'evm'],
        ['29702', 'LTC', 'Leo3j36nn1JcsUQruytQhFUdCdCH5YHMR3', 'unscreenable'],
        ['33151', 'XBT', '1B64QRxfaa35MVkf7sDjuGUYAP5izQt7Qi', 'bitcoin'],
        ['33151', 'USDT', '0x2f389ce8bd8ff92de3402ffce4691d17fc4f6535', 'evm'],
        ['33151', 'ETH', '0x2f389ce8bd8ff92de3402ffce4691d17fc4f6535', 'evm'],
        ['48603', 'XBT', 'bc1qvhnfknw852ephxyc5hm4q520zmvf9maphetc9z', 'bitcoin'],
        ['29584', 'ETH', '0x7F367cC41522cE07553e823bf3be79A889DEbe1B', 'evm'],
      ],
    );
  });

  test('accepts bytes as well as text', () => {
    assert.deepEqual(parseOfacXml(fixtureBytes('ofac_xml/sdn_sample.xml')), list);
  });

  test('refuses a file holding fewer entries than its Record_Count states', () => {
    // The sample states 5 and holds 5: no warning.
    assert.deepEqual(list.warnings, []);
    assert.throws(
      () => parseOfacXml(fixtureText('ofac_xml/sdn_record_count_short.xml'), 'sdn.xml'),
      (e: unknown) =>
        e instanceof ListFormatError &&
        e.message ===
          'ofac: sdn.xml holds 2 <sdnEntry> records, fewer than its Record_Count states (5): the file is incomplete; download it again',
    );
    // More than stated loses nothing: warned of, as is a count that cannot be read.
    const sample = fixtureText('ofac_xml/sdn_sample.xml');
    const more = parseOfacXml(sample.replace('<Record_Count>5<', '<Record_Count>4<'), 'sdn.xml');
    assert.equal(more.entries.length, 5);
    assert.deepEqual(more.warnings, [
      'ofac: sdn.xml holds 5 <sdnEntry> records, more than its Record_Count states (4)',
    ]);
    const odd = parseOfacXml(sample.replace('<Record_Count>5<', '<Record_Count>five<'), 'sdn.xml');
    assert.match(odd.warnings[0] ?? '', /Record_Count "five" is not a number/);
    // A file without the element (older exports) is read as before.
    assert.deepEqual(parseOfacXml(sample.replace(/<Record_Count>5<\/Record_Count>/, '')).warnings, []);
  });

  test("a file cut short names its file and the element left open, not the parser's tag stack", () => {
    const sample = fixtureText('ofac_xml/sdn_sample.xml');
    const cut = sample.slice(0, sample.indexOf('</akaList>'));
    assert.throws(
      () => parseOfacXml(cut, 'sdn.xml'),
      (e: unknown) =>
        e instanceof ListFormatError &&
        e.message ===
          'ofac: sdn.xml is not well-formed XML: unclosed element <akaList> at end of file (inside <sdnList>, <sdnEntry>); is the file cut short?',
    );
    assert.throws(
      () => parseOfacXml('<sdnList>', 'sdn.xml'),
      isFormatError(/^ofac: sdn\.xml is not well-formed XML: unclosed element <sdnList> at end of file/),
    );
    // Other faults say where.
    assert.throws(
      () => parseUnXml('<CONSOLIDATED_LIST>\n<broken></CONSOLIDATED_LIST>', 'un.xml'),
      isFormatError(
        /^un: un\.xml is not well-formed XML at line 2: Expected closing tag 'broken' \(opened in line 2, col 1\) instead of closing tag 'CONSOLIDATED_LIST'\.$/,
      ),
    );
  });

  test('rejects an unknown root and malformed XML', () => {
    assert.throws(
      () => parseOfacXml('<sdnListe></sdnListe>'),
      isFormatError(/expected root element <sdnList>/),
    );
    assert.throws(() => parseOfacXml('<sdnList><sdnEntry></sdnList>'), isFormatError(/not well-formed/));
    assert.throws(
      () => parseOfacXml('<sdnList><sdnEntry><lastName>X</lastName></sdnEntry></sdnList>'),
      isFormatError(/an <sdnEntry> has no <uid>/),
    );
    assert.throws(() => parseOfacXml('<sdnList/>'), ListFormatError);
  });
});

describe('UN consolidated list (real, 2026-02-27)', () => {
  const list = parseUnXml(fixtureBytes('un_sanctions/UN_consolidated.xml'));

  test('reads 730 individuals and 273 entities, and the generation date', () => {
    assert.equal(list.source, 'un');
    assert.equal(list.published_at, '2026-02-27T00:00:09.554Z');
    assert.equal(list.entries.filter((e) => e.type === 'individual').length, 730);
    assert.equal(list.entries.filter((e) => e.type === 'entity').length, 273);
    assert.equal(list.addresses.length, 0);
  });

  test('keys entries by the UN reference number, all distinct', () => {
    const ids = list.entries.map((e) => e.entry_id);
    assert.equal(new Set(ids).size, 1003);
    assert.ok(
      ids.every((id) => /^[A-Z]{2}[ie]\.\d{3}$/.test(id)),
      'reference numbers like QDi.001',
    );
  });

  test('joins the name parts and collects aliases', () => {
    assert.deepEqual(
      list.entries.find((e) => e.entry_id === 'CDi.001'),
      {
        entry_id: 'CDi.001',
        name: 'ERIC BADEGE',
        type: 'individual',
        programs: ['DRC'],
        aliases: [],
      },
    );
    const adf = list.entries.find((e) => e.entry_id === 'CDe.001')!;
    assert.equal(adf.name, 'ADF');
    assert.equal(adf.type, 'entity');
    assert.ok(adf.aliases.includes('Allied Democratic Forces'));
    assert.ok(adf.aliases.includes('NALU'));
  });

  test('never yields an empty name or alias', () => {
    assert.ok(list.entries.every((e) => e.name !== '' && e.aliases.every((a) => a !== '')));
  });

  test('rejects a document that is not the consolidated list', () => {
    assert.throws(() => parseUnXml('<export generationDate="x"/>'), isFormatError(/CONSOLIDATED_LIST/));
    assert.throws(() => parseUnXml('<CONSOLIDATED_LIST dateGenerated="x"/>'), isFormatError(/INDIVIDUALS/));
  });
});

describe('EU consolidated list (hand-written fixture in the FSF XML layout)', () => {
  const list = parseEuXml(fixtureText('eu_xml/eu_sample.xml'));

  test('reads the generation date and every sanctionEntity', () => {
    assert.equal(list.source, 'eu');
    assert.equal(list.published_at, '2025-06-20T18:30:04.123+02:00');
    assert.deepEqual(
      list.entries.map((e) => [e.entry_id, e.type, e.name, e.programs]),
      [
        ['EU.9001.01', 'individual', 'Jana Přikladová', ['RUS']],
        ['EU.9002.02', 'entity', 'Example Crypto Exchange OOO', ['UKR', 'RUS']],
        ['900103', 'entity', 'Illustrative Shipping Line', ['TERR']],
      ],
    );
  });

  test('keeps the other name aliases, in every script', () => {
    assert.deepEqual(list.entries[0]?.aliases, ['Яна Прикладова', 'Jana Prikladova']);
    // ECX is published strong="false": weak, kept apart and never screened.
    assert.deepEqual(list.entries[1]?.aliases, []);
    assert.deepEqual(list.entries[1]?.weak_aliases, ['ECX']);
  });

  test('takes crypto addresses from identifications and remarks', () => {
    assert.deepEqual(
      list.addresses.map((a) => [a.entry_id, a.ticker, a.address, a.scope]),
      [
        ['EU.9001.01', 'XBT', 'bc1qdt3gml5z5n50y5hm04u2yjdphefkm0fl2zdj68', 'bitcoin'],
        ['EU.9002.02', '', '7vVcBLQwT1rmjiTXhhvmHKfiaCda2giGMeKchc2jwmBN', 'solana'],
        ['EU.9002.02', 'ETH', '0x19aa5fe80d33a56d56c78e82ea5e50e5d80b4dff', 'evm'],
        ['EU.9002.02', 'TRX', 'TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre', 'unscreenable'],
      ],
    );
  });

  test('a list without crypto identifications has no addresses', () => {
    const xml =
      '<export generationDate="2024-01-01"><sanctionEntity logicalId="1"><subjectType code="person"/>' +
      '<nameAlias wholeName="A B"/><identification identificationTypeCode="passport" number="X1"/></sanctionEntity></export>';
    const plain = parseEuXml(xml);
    assert.equal(plain.entries.length, 1);
    assert.deepEqual(plain.addresses, []);
  });

  test('rejects another root, naming the file given', () => {
    assert.throws(() => parseEuXml('<CONSOLIDATED_LIST/>'), isFormatError(/expected root element <export>/));
    assert.throws(
      () => parseEuXml('<CONSOLIDATED_LIST dateGenerated="x"/>', 'un.xml'),
      (e: unknown) =>
        e instanceof ListFormatError &&
        e.message ===
          'eu: un.xml is not the EU consolidated list: expected root element <export>, found <CONSOLIDATED_LIST>',
    );
  });
});
