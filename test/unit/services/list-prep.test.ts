import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ListFormatError } from '../../../src/domain/screening/index.ts';
import { type ListImportRequest, prepareList } from '../../../src/services/list-prep.ts';
import { prepareListOffThread } from '../../../src/services/list-prep-thread.ts';
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
