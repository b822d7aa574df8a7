import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  classifyListedAddress,
  mergeDuplicateEntries,
  nameNamelessEntries,
  normalizePublishedAt,
  printable,
  publishedAfter,
  publishedBefore,
  type SanctionsEntry,
} from '../../../src/domain/screening/lists/index.ts';
import { parserMessage } from '../../../src/domain/screening/lists/text.ts';

describe('publication dates of a list', () => {
  test('a date stays as given; a date-time becomes its UTC instant', () => {
    assert.equal(normalizePublishedAt('2024-09-27'), '2024-09-27');
    assert.equal(normalizePublishedAt('2026-02-27T00:00:09.554Z'), '2026-02-27T00:00:09.554Z');
    assert.equal(normalizePublishedAt('2025-10-01T10:00:00.000+02:00'), '2025-10-01T08:00:00.000Z');
    // A time without a zone is read as UTC, as every timestamp of the service.
    assert.equal(normalizePublishedAt('2025-10-01 10:00'), '2025-10-01T10:00:00.000Z');
    for (const bad of ['2025-02-30', '05/16/2025', '', 'yesterday'])
      assert.equal(normalizePublishedAt(bad), undefined, bad);
  });

  test('compares instants, and a date alone by its day in any time zone', () => {
    assert.equal(publishedBefore('2021-07-07', '2025-06-20'), true);
    assert.equal(publishedBefore('2025-06-20', '2025-06-20'), false);
    assert.equal(publishedBefore('2025-06-21', '2025-06-20'), false);
    // 10:00+02:00 is 08:00Z: earlier than 09:00Z although its wall clock reads later.
    assert.equal(publishedBefore('2025-10-01T10:00:00+02:00', '2025-10-01T09:00:00Z'), true);
    assert.equal(publishedBefore('2025-10-01T09:00:00Z', '2025-10-01T10:00:00+02:00'), false);
    // A date says nothing of the hour: the same day is no older, either way round.
    assert.equal(publishedBefore('2025-10-01', '2025-10-01T23:00:00Z'), false);
    assert.equal(publishedBefore('2025-10-01T00:00:01Z', '2025-10-01'), false);
    // Nor of its time zone: its day may begin at UTC+14 and end at UTC-12. A Brussels 2 October
    // (1 October in UTC) is no older than a 2 October date, and no newer either.
    assert.equal(publishedBefore('2025-10-02T01:30:00+02:00', '2025-10-02'), false);
    assert.equal(publishedBefore('2025-10-02', '2025-10-02T01:30:00+02:00'), false);
    assert.equal(publishedBefore('2025-09-30T23:59:59Z', '2025-10-01'), false);
    assert.equal(publishedBefore('2025-09-30T10:00:00Z', '2025-10-01'), false);
    assert.equal(publishedBefore('2025-09-30T09:59:59Z', '2025-10-01'), true);
    assert.equal(publishedBefore('2025-10-01', '2025-10-02T11:59:59Z'), false);
    assert.equal(publishedBefore('2025-10-01', '2025-10-02T12:00:00Z'), true);
    // Dates alone compare by day, date-times as instants.
    assert.equal(publishedBefore('2025-09-30', '2025-10-01'), true);
    assert.equal(publishedBefore('2025-10-01T00:00:00Z', '2025-10-01T00:00:01Z'), true);
    // A held date that cannot be read gives nothing to compare with.
    assert.equal(publishedBefore('2021-07-07', 'unknown'), false);
  });
});

describe('publication dates to come', () => {
  const now = Date.parse('2026-03-05T12:00:00Z');
  const DAY = 24 * 3_600_000;

  test('a date-time more than a day ahead of the clock is in the future', () => {
    assert.equal(publishedAfter('2099-01-01T00:00:00Z', now), true);
    assert.equal(publishedAfter(new Date(now + DAY + 1).toISOString(), now), true);
    // Within a day: clocks set apart, not a list from the future.
    assert.equal(publishedAfter(new Date(now + DAY).toISOString(), now), false);
    assert.equal(publishedAfter('2026-03-05T12:00:00Z', now), false);
    assert.equal(publishedAfter('2021-07-07T00:00:00Z', now), false);
  });

  test('a date alone counts from when its day began first (UTC+14)', () => {
    // 2026-03-07 began at 2026-03-06T10:00Z, within a day of now.
    assert.equal(publishedAfter('2026-03-07', now), false);
    // 2026-03-08 began at 2026-03-07T10:00Z, 22 hours past the tolerance.
    assert.equal(publishedAfter('2026-03-08', now), true);
    assert.equal(publishedAfter('2099-01-01', now), true);
    assert.equal(publishedAfter('2026-03-05', now), false);
    // Unreadable: refused elsewhere, nothing to compare here.
    assert.equal(publishedAfter('someday', now), false);
  });
});

describe('entries as stored: one per id, each named', () => {
  const entry = (entry_id: string, name: string, more: Partial<SanctionsEntry> = {}): SanctionsEntry => ({
    entry_id,
    name,
    type: 'entity',
    programs: [],
    aliases: [],
    ...more,
  });

  test('a repeated id is merged into its first record, names as aliases, and said so', () => {
    const { entries, warnings } = mergeDuplicateEntries('eu', [
      entry('EU.1', 'First Name', { programs: ['RUS'], aliases: ['F. Name'] }),
      entry('EU.2', 'Other'),
      entry('EU.1', 'Second Name', { programs: ['UKR', 'RUS'], aliases: ['F. Name'], weak_aliases: ['SN'] }),
    ]);
    assert.deepEqual(entries, [
      entry('EU.1', 'First Name', {
        programs: ['RUS', 'UKR'],
        aliases: ['F. Name', 'Second Name'],
        weak_aliases: ['SN'],
      }),
      entry('EU.2', 'Other'),
    ]);
    assert.deepEqual(warnings, [
      'eu: entry id EU.1 is listed again ("Second Name"): merged into its first record ("First Name"), its names held as aliases, its addresses and programmes kept',
    ]);
    // Distinct ids pass as they are.
    const plain = [entry('1', 'A'), entry('2', 'B')];
    assert.deepEqual(mergeDuplicateEntries('ofac', plain), { entries: plain, warnings: [] });
  });

  test('an entry without a name takes its first alias, else its entry id, and is named in a warning', () => {
    const { entries, warnings } = nameNamelessEntries('un', [
      entry('QDi.900', ''),
      entry('QDi.901', '', { aliases: ['Abu Example', 'Example'], weak_aliases: ['Ex'] }),
      entry('QDi.902', 'Named'),
      entry('QDi.903', '', { weak_aliases: ['Ex'] }),
    ]);
    assert.deepEqual(
      entries.map((e) => [e.entry_id, e.name, e.aliases]),
      [
        ['QDi.900', 'QDi.900', []],
        ['QDi.901', 'Abu Example', ['Example']],
        ['QDi.902', 'Named', []],
        // A weak alias is never screened, so it is not made the name.
        ['QDi.903', 'QDi.903', []],
      ],
    );
    assert.deepEqual(warnings, [
      'un: entry QDi.900 has no name nor alias: its entry id stands for its name',
      'un: entry QDi.901 has no name: held under its first alias, "Abu Example"',
      'un: entry QDi.903 has no name nor alias: its entry id stands for its name',
    ]);
  });
});

describe('listed addresses that can never match', () => {
  test('an address of a screened chain that is not valid there says why', () => {
    const problem = (ticker: string, address: string) => classifyListedAddress(ticker, address).problem;
    assert.equal(
      problem('ETH', '0xa7e5d5a720f06526557c513402f2e6b5fa20b00'),
      'not a valid EVM address (EVM address must be 0x followed by 40 hex digits)',
    );
    assert.equal(
      problem('ETH', '901bb9583b24d97e995513c6778dc6888ab6870e'),
      'not a valid EVM address (EVM address must start with 0x)',
    );
    assert.match(
      problem('XBT', '12udabs2TkX7NXCSj6KpqXfakjE52ZPLhZ') ?? '',
      /^not a valid Bitcoin address \(/,
    );
    assert.match(
      problem('SOL', '0OIl7vVcBLQwT1rmjiTXhhvmHKfiaCda2giGMeKchc2') ?? '',
      /^not a valid Solana address \(/,
    );
    assert.equal(classifyListedAddress('XBT', '12udabs2TkX7NXCSj6KpqXfakjE52ZPLhZ').scope, 'unscreenable');
  });

  test('an address of another chain, or of a valid form, has no problem', () => {
    for (const [ticker, address] of [
      ['LTC', 'Leo3j36nn1JcsUQruytQhFUdCdCH5YHMR3'],
      ['TRX', 'TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre'],
      ['USDT', 'TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre'],
      ['', 'not-an-address'],
      ['XBT', '12udabs2TkX7NXCSj6KpqXfakjE52ZPLhz'],
      ['USDT', '0x2f389ce8bd8ff92de3402ffce4691d17fc4f6535'],
      ['ETH', '0x7F367cC41522cE07553e823bf3be79A889DEbe1B'],
    ] as const)
      assert.equal(classifyListedAddress(ticker, address).problem, undefined, `${ticker} ${address}`);
  });
});

describe('file content quoted in messages', () => {
  test('is cut short, with anything unprintable escaped', () => {
    assert.equal(printable('\u0016|AWg\u0000é'), '\\u0016|AWg\\u0000é');
    assert.equal(printable('x'.repeat(50)), `${'x'.repeat(40)}…`);
    assert.equal(printable('\uD800a'), '\\ud800a');
  });

  test("a parser's message keeps its words, and cuts the values it quotes", () => {
    const raw = `Invalid Opening Quote: a quote is found on field 0 at line 1, value is "\u0016|AWg${'\uFFFD'.repeat(5000)}"`;
    const message = parserMessage(raw);
    assert.ok(
      message.startsWith(
        'Invalid Opening Quote: a quote is found on field 0 at line 1, value is "\\u0016|AWg',
      ),
    );
    assert.ok(message.length < 300, message);
    assert.doesNotMatch(message, /[\p{Cc}\uFFFD]/u);
    assert.equal(parserMessage("Tag 'a' is an invalid name."), "Tag 'a' is an invalid name.");
  });
});
