import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ListFormatError } from '../../../src/domain/screening/index.ts';
import { AppError } from '../../../src/errors.ts';
import { type ListImportRequest, prepareList } from '../../../src/services/list-prep.ts';
import { prepareListOffThread } from '../../../src/services/list-prep-thread.ts';
import { admitFileDate, admitPublication } from '../../../src/services/sanctions-lists.service.ts';
import { fixtureText } from '../screening/fixtures.ts';

const ofac: ListImportRequest = {
  source: 'ofac',
  files: ['sdn.csv', 'add.csv', 'alt.csv', 'sdn_comments.csv'].map((name) => ({
    name: `bench_2021/${name}`,
    content: fixtureText(`ofac_sdn/bench_2021/${name}`),
  })),
  published_at: '2021-07-07',
};
const un: ListImportRequest = {
  source: 'un',
  files: [{ name: 'UN_consolidated.xml', content: fixtureText('un_sanctions/UN_consolidated.xml') }],
};

describe('list preparation on a worker thread', () => {
  test('prepares the same rows as on the calling thread', async () => {
    for (const req of [ofac, un]) {
      const there = await prepareListOffThread(req);
      assert.deepEqual(there, prepareList(req));
    }
  });

  test('lays the rows out as the store inserts them', async () => {
    const p = await prepareListOffThread(ofac);
    assert.equal(p.source, 'ofac');
    assert.equal(p.published_at, '2021-07-07');
    assert.deepEqual(p.files, ['sdn.csv', 'add.csv', 'alt.csv', 'sdn_comments.csv']);
    const entries = JSON.parse(p.entries_json) as Array<Record<string, unknown>>;
    const addresses = JSON.parse(p.addresses_json) as Array<Record<string, unknown>>;
    assert.equal(entries.length, p.counts.entry_count);
    assert.equal(addresses.length, p.counts.address_count);
    assert.deepEqual(Object.keys(entries[0]!), ['entry_id', 'name', 'entry_type', 'programs', 'aliases']);
    assert.deepEqual(Object.keys(addresses[0]!), ['entry_id', 'ticker', 'address', 'scope', 'match_key']);
    assert.equal(
      p.counts.alias_count,
      entries.reduce((n, e) => n + (e.aliases as string[]).length, 0),
    );
    assert.equal(
      p.counts.screenable_address_count,
      addresses.filter((a) => a.scope !== 'unscreenable').length,
    );
  });

  test('records the files under the names given; a lone companion file is refused by its name', () => {
    assert.deepEqual(prepareList(un).files, ['UN_consolidated.xml']);
    for (const name of ['add.csv', 'ALT.CSV', 'dir/sdn_comments.csv'])
      assert.throws(
        () => prepareList({ source: 'ofac', files: [{ name, content: '1,2,3,4,5,6\n' }] }),
        (err: Error) =>
          err instanceof ListFormatError &&
          err.message ===
            `ofac: ${name.split('/').pop()} is a companion of sdn.csv; give sdn.csv or its directory`,
      );
  });

  test('a file of unknown structure is refused with the loader’s message', async () => {
    const bad: ListImportRequest = {
      source: 'un',
      files: [{ name: 'un.xml', content: '<other><x/></other>' }],
    };
    const here = (() => {
      try {
        prepareList(bad);
      } catch (err) {
        return err;
      }
    })();
    assert.ok(here instanceof ListFormatError);
    await assert.rejects(prepareListOffThread(bad), (err) => {
      assert.ok(err instanceof ListFormatError);
      assert.equal(err.message, here.message);
      return true;
    });
  });
});

describe('what an import holds and refuses', () => {
  const eu: ListImportRequest = {
    source: 'eu',
    files: [{ name: 'eu.xml', content: fixtureText('eu_xml/eu_sample.xml') }],
  };
  const refused = (req: ListImportRequest, message: string) =>
    assert.throws(
      () => prepareList(req),
      (err: Error) => err instanceof ListFormatError && err.message === message,
    );

  test('the publication date: a date as given, a date-time as its UTC instant', () => {
    assert.equal(prepareList(ofac).published_at, '2021-07-07');
    assert.equal(prepareList(un).published_at, '2026-02-27T00:00:09.554Z');
    // generationDate="2025-06-20T18:30:04.123+02:00"
    assert.equal(prepareList(eu).published_at, '2025-06-20T16:30:04.123Z');
    assert.equal(
      prepareList({ ...ofac, published_at: '2021-07-07T10:00:00+02:00' }).published_at,
      '2021-07-07T08:00:00.000Z',
    );
  });

  test('a list without a publication date takes the one given, else is refused', () => {
    const undated = un.files[0]!.content.replace(/ dateGenerated="[^"]*"/, '');
    const req: ListImportRequest = { source: 'un', files: [{ name: 'un.xml', content: undated }] };
    refused(
      req,
      'un: un.xml carries no publication date (no dateGenerated attribute); give it with --published-at YYYY-MM-DD',
    );
    assert.equal(prepareList({ ...req, published_at: '2026-03-01' }).published_at, '2026-03-01');
    refused(
      { ...ofac, published_at: null },
      'ofac: sdn.csv carries no publication date (the OFAC CSV set carries none); give it with --published-at YYYY-MM-DD',
    );
  });

  test('where the date comes from: the file, else the operator, else the file date', () => {
    const from = (req: ListImportRequest) => {
      const p = prepareList(req);
      return [p.published_at, p.published_at_from, p.undated];
    };
    assert.deepEqual(from(ofac), ['2021-07-07', 'operator', null]);
    assert.deepEqual(from({ ...ofac, file_date: '2026-01-05' }), ['2021-07-07', 'operator', null]);
    // The CSV set states none: its file date stands in, marked so (the service takes it only when
    // no ofac list is held).
    assert.deepEqual(from({ ...ofac, published_at: null, file_date: '2026-01-05' }), [
      '2026-01-05',
      'file_date',
      'sdn.csv carries no publication date (the OFAC CSV set carries none)',
    ]);
    assert.deepEqual(from({ ...un, file_date: '2026-01-05' }), ['2026-02-27T00:00:09.554Z', 'file', null]);
    refused(
      { ...ofac, published_at: null, file_date: '2026-13-05' },
      'ofac: file_date "2026-13-05" is not an ISO 8601 date',
    );
  });

  test("an operator's date the file contradicts is warned of; the file's own is held", () => {
    const given = prepareList({ ...eu, published_at: '2025-06-01' });
    assert.equal(given.published_at, '2025-06-20T16:30:04.123Z');
    assert.equal(given.published_at_from, 'file');
    const warning =
      'eu: eu.xml states its publication date (2025-06-20T16:30:04.123Z), which is held; --published-at 2025-06-01 was not used';
    assert.ok(given.warnings.includes(warning), JSON.stringify(given.warnings));
    assert.equal(given.warning_count, prepareList(eu).warning_count + 1);
    // The same publication (a date the same day, the instant in another offset) is no contradiction.
    for (const same of ['2025-06-20', '2025-06-20T18:30:04.123+02:00'])
      assert.deepEqual(prepareList({ ...eu, published_at: same }).warnings, prepareList(eu).warnings, same);
  });

  test('names from the file and unexpected file names are escaped in warnings and errors', () => {
    const sdn = [
      '36,"BAD\u001b[31mNAME",individual,"CYBER2",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"Digital Currency Address - ETH 0x12\u0007;"',
      '',
    ].join('\r\n');
    const p = prepareList({
      source: 'ofac',
      files: [{ name: 'sdn.csv', content: sdn }],
      published_at: '2025-01-01',
    });
    assert.deepEqual(p.warnings, [
      "ofac: no alt.csv beside sdn.csv: no aliases were loaded, so names screening matches the entries' primary names only",
      'ofac: entry 36 (BAD\\u001b[31mNAME) lists ETH address "0x12\\u0007", not a valid EVM address (EVM address must be 0x followed by 40 hex digits): it can never match and is not screened',
    ]);
    refused(
      { ...ofac, files: [...ofac.files, { name: 'dir/x\u001b[2J.csv', content: 'a' }] },
      'ofac: unexpected file x\\u001b[2J.csv beside sdn.csv (expected add.csv, alt.csv, sdn_comments.csv)',
    );
  });

  test('errors name the file given; an empty file says it is empty; binary content is no text', () => {
    refused(
      { source: 'ofac', files: [{ name: '/tmp/x/empty.xml', content: '' }] },
      'ofac: empty.xml is empty; the held list was left unchanged',
    );
    refused(
      { source: 'ofac', files: [{ name: 'notes.txt', content: '\x1a' }] },
      'notes.txt holds no rows (read as the OFAC sdn.csv format)',
    );
    refused(
      { source: 'ofac', files: [{ name: 'blob', content: '\u0016|AWg\u0000' }] },
      'ofac: blob is not a text file (NUL bytes or invalid UTF-8)',
    );
    // A companion is checked too, before any loader quotes it.
    refused(
      { ...ofac, files: [...ofac.files.slice(0, 3), { name: 'sdn_comments.csv', content: 'a\uDC00' }] },
      'ofac: sdn_comments.csv is not a text file (NUL bytes or invalid UTF-8)',
    );
  });

  test('warns of a listed address that can never match, naming the entry and the address', () => {
    const p = prepareList(ofac);
    assert.equal(p.warning_count, 1);
    assert.deepEqual(p.warnings, [
      'ofac: entry 29702 (LIFSHITS, Artem Mikhaylovich) lists ETH address "0xa7e5d5a720f06526557c513402f2e6b5fa20b00", not a valid EVM address (EVM address must be 0x followed by 40 hex digits): it can never match and is not screened',
    ]);
    // Not counted as screenable: of 97 addresses, 65 Bitcoin and 10 EVM ones are.
    assert.deepEqual([p.counts.address_count, p.counts.screenable_address_count], [97, 75]);
  });
});

describe('an OFAC CSV set whose remarks are cut (sdn.csv without sdn_comments.csv)', () => {
  // bench_2021 (test/fixtures/screening/SOURCE.md): 5 entries' Remarks fill sdn.csv's 1,000
  // characters and continue in sdn_comments.csv; with sdn.csv alone 16 of its 97 addresses are lost.
  const without = (...names: string[]): ListImportRequest => ({
    ...ofac,
    files: ofac.files.filter((f) => !names.some((n) => f.name.endsWith(`/${n}`))),
  });
  const cutMessage =
    "ofac: the Remarks of 5 entries fill sdn.csv's field to its cut at 1000 characters (12300 (CIFUENTES VILLA, Jorge Milton), 28263 (TIAN, Yinyin), 28264 (LI, Jiadong), 29703 (ANDREYEV, Anton Nikolaeyvich), 30518 (SECONDEYE SOLUTION)); OFAC continues them in sdn_comments.csv, which is missing, and addresses in the part cut off would not be screened. Put sdn_comments.csv beside sdn.csv and import again; the held list was left unchanged";
  const refusedWith = (req: ListImportRequest, message: string) =>
    assert.throws(
      () => prepareList(req),
      (err: Error) => err instanceof ListFormatError && err.message === message,
    );

  test('is refused, naming the entries and the missing file, on this thread and off it', async () => {
    refusedWith(without('sdn_comments.csv'), cutMessage);
    refusedWith(without('sdn_comments.csv', 'add.csv', 'alt.csv'), cutMessage);
    await assert.rejects(
      prepareListOffThread(without('sdn_comments.csv')),
      (err: Error) => err instanceof ListFormatError && err.message === cutMessage,
    );
    // One entry (tiny_2025: SUEX, whose XBT address is split 1B64QRxf | aa35MVkf…) is named alone.
    refusedWith(
      {
        source: 'ofac',
        files: [{ name: 'sdn.csv', content: fixtureText('ofac_sdn/tiny_2025/sdn.csv') }],
        published_at: '2025-05-16',
      },
      "ofac: the Remarks of entry 33151 (SUEX OTC, S.R.O.) fill sdn.csv's field to its cut at 1000 characters; OFAC continues them in sdn_comments.csv, which is missing, and addresses in the part cut off would not be screened. Put sdn_comments.csv beside sdn.csv and import again; the held list was left unchanged",
    );
    // A lone file under another name is read as sdn.csv, and cannot have its companion.
    assert.throws(
      () => prepareList({ ...ofac, files: [{ name: 'sdn-2021.csv', content: ofac.files[0]!.content }] }),
      (err: Error) =>
        err instanceof ListFormatError &&
        err.message.includes("the Remarks of 5 entries fill sdn-2021.csv's field") &&
        err.message.includes('Name it sdn.csv, put sdn_comments.csv beside it and import the two'),
    );
  });

  test('with sdn_comments.csv it is taken whole; an entry it does not continue is warned of', () => {
    assert.equal(prepareList(ofac).counts.address_count, 97);
    const comments = ofac.files.find((f) => f.name.endsWith('/sdn_comments.csv'))!;
    const lines = comments.content.split('\r\n');
    assert.ok(lines.some((l) => l.startsWith('30518,')));
    const partial = {
      ...ofac,
      files: ofac.files.map((f) =>
        f === comments ? { ...f, content: lines.filter((l) => !l.startsWith('30518,')).join('\r\n') } : f,
      ),
    };
    const p = prepareList(partial);
    // The 11 addresses in SECONDEYE's continuation are lost: said, by entry.
    assert.equal(p.counts.address_count, 86);
    assert.ok(
      p.warnings.includes(
        'ofac: entry 30518 (SECONDEYE SOLUTION) has Remarks of 1000 characters in sdn.csv, the length OFAC cuts at, and no continuation in sdn_comments.csv: if they were cut, what follows (addresses included) is not loaded',
      ),
      JSON.stringify(p.warnings),
    );
  });

  test('without alt.csv it is taken, with a warning that no aliases were loaded', () => {
    const p = prepareList(without('alt.csv'));
    assert.equal(p.counts.alias_count, 0);
    assert.equal(
      p.warnings[0],
      "ofac: no alt.csv beside sdn.csv: no aliases were loaded, so names screening matches the entries' primary names only",
    );
    assert.equal(p.warning_count, prepareList(ofac).warning_count + 1);
    assert.ok(!prepareList(ofac).warnings.some((w) => w.includes('alt.csv')));
  });

  test('the answer keeps the text of the first 100 warnings, and counts them all', () => {
    // 150 entries each listing an ETH address of 39 hex digits: 150 warnings.
    let sdn = '';
    for (let i = 1; i <= 150; i++)
      sdn += `${i},"HOLDER ${i}",-0- ,"CYBER2",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"Digital Currency Address - ETH 0x${'a'.repeat(39)}."\r\n`;
    const p = prepareList({
      source: 'ofac',
      files: [{ name: 'sdn.csv', content: sdn }],
      published_at: '2025-01-01',
    });
    assert.equal(p.warning_count, 151);
    assert.equal(p.warnings.length, 100);
  });
});

describe('an import dated only by its file', () => {
  const list = {
    source: 'ofac' as const,
    published_at: '2026-01-05',
    published_at_from: 'file_date' as const,
    undated: 'sdn.csv carries no publication date (the OFAC CSV set carries none)',
  };
  test('is taken as the first list of its source, and refused over a held one', () => {
    assert.doesNotThrow(() => admitFileDate(list, undefined));
    for (const [held, named] of [
      ['2025-06-20', 'published 2025-06-20'],
      ['2027-01-01', 'published 2027-01-01'],
      [null, 'undated'],
    ] as const)
      assert.throws(
        () => admitFileDate(list, held),
        (err: Error) =>
          err instanceof AppError &&
          err.status === 409 &&
          err.message ===
            `ofac: sdn.csv carries no publication date (the OFAC CSV set carries none) and an ofac list is held (${named}): give it with --published-at YYYY-MM-DD; the file's modification date (2026-01-05) dates only a first import`,
      );
    for (const from of ['file', 'operator'] as const)
      assert.doesNotThrow(() =>
        admitFileDate({ ...list, published_at_from: from, undated: null }, '2025-06-20'),
      );
  });
});

describe('an import over a newer held list', () => {
  test('is refused with both dates and the override, unless allowed; the same day is no older', () => {
    assert.throws(
      () => admitPublication('ofac', '2021-07-07', '2025-06-20', false),
      (err: Error) =>
        err instanceof AppError &&
        err.status === 409 &&
        err.message.includes('published 2021-07-07, before the held one (published 2025-06-20)') &&
        err.message.includes('--allow-older (allow_older: true)'),
    );
    assert.equal(admitPublication('ofac', '2021-07-07', '2025-06-20', true), '2025-06-20');
    assert.equal(admitPublication('ofac', '2025-06-20', '2025-06-20', false), null);
    assert.equal(admitPublication('ofac', '2025-06-21', '2025-06-20', false), null);
    assert.equal(admitPublication('ofac', '2021-07-07', undefined, false), null);
    assert.equal(admitPublication('ofac', '2021-07-07', null, false), null);
    // A date alone may be of any time zone: a Brussels 2 October (1 October in UTC) is not older.
    assert.equal(admitPublication('eu', '2025-10-01T23:30:00.000Z', '2025-10-02', false), null);
    // A held date-time with its offset (held before dates were normalised) is named in UTC.
    assert.throws(
      () => admitPublication('eu', '2025-10-01T07:00:00.000Z', '2025-10-01T10:00:00.000+02:00', false),
      (err: Error) => err.message.includes('(published 2025-10-01T08:00:00.000Z)'),
    );
  });
});
