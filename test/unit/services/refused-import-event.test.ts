import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors.ts';
import { refusedImportEvent } from '../../../src/services/sanctions-lists.service.ts';

describe('refusedImportEvent (the operator audit of a refused sanctions-list import)', () => {
  it('keeps what was tried, every text bounded: a refused date may be any text', () => {
    const huge = `2026-01-01T${'x'.repeat(5_000_000)}`;
    const event = refusedImportEvent(
      {
        source: 'ofac',
        files: [{ name: `/tmp/${'n'.repeat(1000)}/sdn.csv`, content: '' }],
        published_at: huge,
        file_date: huge,
      } as never,
      'cli:olga',
      new AppError('INVALID_REQUEST', `published_at: not an existing ISO 8601 date: ${huge}`),
    );
    assert.equal(event.action, 'sanctions_list.import_refused');
    assert.equal(event.actor, 'cli:olga');
    const detail = event.detail as Record<string, unknown>;
    assert.ok(JSON.stringify(detail).length < 3_000, String(JSON.stringify(detail).length));
    assert.ok(String(detail.published_at).startsWith('2026-01-01Tx'));
    assert.deepEqual(detail.files, ['sdn.csv']);
    assert.equal(detail.status, 400);
  });
});
