import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sha256Hex } from '../../../src/domain/sha256.ts';
import {
  CaspDirectoryError,
  type CaspRecord,
  leiCheckDigits,
  parseCaspDirectoryCsv,
} from '../../../src/domain/travel-rule/index.ts';
import {
  packRecords,
  prepareCaspImport,
  prepareCaspImportOffThread,
  shareText,
  unpackRecords,
} from '../../../src/services/casp-import-prep.ts';

const lei = (i: number) => {
  const base = `549300${String(i).padStart(12, '0')}`;
  return `${base}${leiCheckDigits(base)}`;
};

/** A directory of `n` rows with an extra column, names of every kind of text. */
function csvOf(n: number, name: (i: number) => string = (i) => `CASP ${i} Société Générale`): string {
  const rows = ['LEI,Name,Country,Website'];
  for (let i = 0; i < n; i++) rows.push(`${lei(i)},"${name(i)}",DE,https://casp${i}.example`);
  return `${rows.join('\n')}\n`;
}

async function unpacked(packed: Awaited<ReturnType<typeof packRecords>>, pause?: () => Promise<void>) {
  const out: CaspRecord[] = [];
  await unpackRecords(packed, (r) => out.push(r), pause);
  return out;
}

describe('CASP import off the main thread', () => {
  it('shares text without changing a code unit: Latin-1, wider, and an unpaired surrogate', async () => {
    for (const text of ['', 'lei,name\nÉé', 'Ελληνικά 😀 \uD800 x', 'a'.repeat(300_000) + '\u20ac']) {
      const shared = await shareText(text);
      assert.equal(shared.bytes.buffer instanceof SharedArrayBuffer, true);
      const unit = shared.encoding === 'latin1' ? 1 : 2;
      assert.equal(Buffer.from(shared.bytes).toString(shared.encoding), text);
      assert.equal(shared.bytes.byteLength, text.length * unit);
    }
    assert.equal((await shareText('Société')).encoding, 'latin1');
    assert.equal((await shareText('Ελληνικά')).encoding, 'utf16le');
  });

  it('packs and unpacks records as the parser gave them, over many slices', async () => {
    const csv = csvOf(5000, (i) => (i % 7 === 0 ? `Ελληνικά ${i}, ""quoted""\nsecond line` : `CASP ${i}`));
    const records = parseCaspDirectoryCsv(csv);
    let pauses = 0;
    const back = await unpacked(await packRecords(records), async () => {
      pauses++;
    });
    assert.deepEqual(back, records);
    assert.ok(pauses >= 5, `only ${pauses} slices`);
    assert.deepEqual(await unpacked(await packRecords([])), []);
  });

  it('the worker task answers the rows and the digest of the CSV as parsed on the main thread', async () => {
    const csv = `\uFEFFlei,name,country\r\n${lei(1)},Ελληνικά Ltd,GR\r\n${lei(2)},"A, B",FR\r\n`;
    const outcome = await prepareCaspImport(await shareText(csv));
    assert.ok(outcome.ok);
    assert.equal(outcome.sha256, sha256Hex(csv));
    assert.deepEqual(await unpacked(outcome.records), parseCaspDirectoryCsv(csv));
  });

  it('on a worker thread: the same rows, and the same refusal with its lines', async () => {
    const csv = csvOf(3000);
    const { sha256, records } = await prepareCaspImportOffThread(csv, async () => {});
    assert.equal(sha256, sha256Hex(csv));
    assert.deepEqual(await unpacked(records), parseCaspDirectoryCsv(csv));

    await assert.rejects(
      prepareCaspImportOffThread(`lei,name,country\nNOTALEI,X,DE\n${lei(1)},,DE\n`, async () => {}),
      (e: unknown) =>
        e instanceof CaspDirectoryError &&
        e.problems.join('; ') === 'invalid LEI on line 2; missing name on line 3' &&
        e.lines.join() === '2,3',
    );
  });
});
