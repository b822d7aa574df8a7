import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ensureMonthlyPartitions } from '../../src/storage/partitions.ts';
import { governanceRecord } from '../helpers/audit-records.ts';
import { startTestApp, TEST_DATABASE_URL, type TestApp } from '../helpers/harness.ts';

/** The compression of the audit texts on `evaluations` and every partition, by relation. */
async function compressionByRelation(t: TestApp) {
  const rows = await sql<{ rel: string; attname: string; attcompression: string }>`
    SELECT a.attrelid::regclass::text AS rel, a.attname, a.attcompression::text AS attcompression
      FROM pg_attribute a
     WHERE a.attname IN ('request', 'response')
       AND (a.attrelid = 'evaluations'::regclass
            OR a.attrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'evaluations'::regclass))`.execute(
    t.deps.db,
  );
  return rows.rows;
}

describe('compression of the stored request and response', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.deps.clients.create('acme', { actor: 't' });
  });
  after(() => t.close());

  it('is lz4 on PostgreSQL, on the table, its partitions and partitions made later; the default where lz4 is missing', async () => {
    await ensureMonthlyPartitions(t.deps.db, new Date('2031-06-15T00:00:00Z'), {
      monthsBack: 0,
      monthsAhead: 0,
    });
    const rows = await compressionByRelation(t);
    assert.ok(
      rows.some((r) => r.rel === 'evaluations_p2031_06'),
      'the later partition is listed',
    );
    assert.ok(rows.length >= 6);
    const expected = TEST_DATABASE_URL ? 'l' : '';
    for (const r of rows) assert.equal(r.attcompression, expected, `${r.rel}.${r.attname}`);
  });

  it('keeps the texts byte for byte, and the chain verifies', async () => {
    const base = governanceRecord('acme', new Date());
    // Large enough to be compressed (the row passes the 2 KB TOAST threshold), like a real evaluation.
    const record = {
      ...base,
      requestJson: JSON.stringify({ data: { note: 'é ✓ '.repeat(200), amounts: [1, 2.5, -0] } }),
      responseJson: JSON.stringify({ ...JSON.parse(base.responseJson), padding: 'rule '.repeat(500) }),
    };
    await t.deps.auditWriter.write(record);
    const stored = await sql<{ request: string; response: string; method: string | null }>`
      SELECT request::text AS request, response::text AS response, pg_column_compression(response) AS method
        FROM evaluations WHERE evaluation_id = ${record.evaluation_id}`.execute(t.deps.db);
    assert.equal(stored.rows[0]!.request, record.requestJson);
    assert.equal(stored.rows[0]!.response, record.responseJson);
    assert.equal(stored.rows[0]!.method, TEST_DATABASE_URL ? 'lz4' : 'pglz');
    assert.equal((await t.deps.auditChain.verify('acme')).ok, true);
  });
});
