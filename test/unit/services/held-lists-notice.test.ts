import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { heldListsNotice } from '../../../src/services/sanctions-lists.service.ts';
import type { ListMeta } from '../../../src/storage/sanctions-lists.repo.ts';

const ofac: ListMeta = {
  source: 'ofac',
  version: 3,
  published_at: '2026-11-20',
  imported_at: '2026-11-21T08:00:00.000Z',
  imported_by: 'cli',
  entry_count: 8976,
  alias_count: 10_417,
  address_count: 102,
  screenable_address_count: 97,
  files: ['sdn.csv', 'add.csv', 'alt.csv', 'sdn_comments.csv'],
};

describe('start-up notice about the held sanctions lists', () => {
  it('warns when no list is held, naming the command that imports one', () => {
    const notice = heldListsNotice([]);
    assert.equal(notice.level, 'warn');
    assert.deepEqual(notice.lists, []);
    assert.match(notice.message, /no sanctions list is held/);
    assert.match(notice.message, /npm run mica -- lists import <ofac\|un\|eu> <path>/);
  });

  it('lists each held list with its date and counts', () => {
    const un: ListMeta = {
      ...ofac,
      source: 'un',
      published_at: null,
      entry_count: 1000,
      screenable_address_count: 0,
    };
    const notice = heldListsNotice([ofac, un]);
    assert.equal(notice.level, 'info');
    assert.equal(notice.message, 'sanctions lists held: ofac, un');
    assert.deepEqual(notice.lists, [
      { source: 'ofac', published_at: '2026-11-20', entries: 8976, screenable_addresses: 97 },
      { source: 'un', published_at: null, entries: 1000, screenable_addresses: 0 },
    ]);
  });
});
