import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ensureMonthlyPartitions } from '../../src/storage/partitions.ts';
import { governanceRecord } from '../helpers/audit-records.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

/**
 * The audit columns no query filters on carry no planner statistics (migration 010), on every
 * partition, including one created after the migration; the filtered columns keep theirs.
 */
describe('planner statistics of the audit partitions', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const UNFILTERED = ['evaluation_id', 'prev_hash', 'request', 'response', 'row_hash', 'rule_ids'];

  const targets = async () =>
    (
      await sql<{ part: string; attname: string; target: number | null }>`
        SELECT c.relname AS part, a.attname, a.attstattarget AS target
          FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
          JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         WHERE p.relname = 'evaluations'`.execute(t.deps.db)
    ).rows;

  it('sets no statistics on the unfiltered columns of every partition, old and new', async () => {
    const later = new Date(Date.UTC(new Date().getUTCFullYear() + 3, 4, 10));
    const created = await ensureMonthlyPartitions(t.deps.db, later, { monthsBack: 0, monthsAhead: 0 });
    assert.deepEqual(created, [`evaluations_p${later.getUTCFullYear()}_05`]);

    const rows = await targets();
    const parts = new Set(rows.map((r) => r.part));
    assert.ok(
      parts.has('evaluations_default') && parts.has(created[0]!) && parts.size >= 3,
      [...parts].join(),
    );
    for (const part of parts) {
      const zero = rows
        .filter((r) => r.part === part && r.target !== null && Number(r.target) === 0)
        .map((r) => r.attname)
        .sort();
      assert.deepEqual(zero, UNFILTERED, part);
    }
  });

  it('still gathers statistics for the filtered columns', async () => {
    const now = new Date();
    for (const id of ['c0', 'c1']) await t.deps.clients.create(id, { actor: 'test' });
    for (let i = 0; i < 20; i++) await t.deps.auditWriter.write(governanceRecord(`c${i % 2}`, now));
    await sql`ANALYZE evaluations`.execute(t.deps.db);
    const stats = await sql<{ attname: string }>`
      SELECT DISTINCT attname FROM pg_stats WHERE tablename LIKE 'evaluations%'`.execute(t.deps.db);
    const names = stats.rows.map((r) => r.attname);
    for (const col of ['client_id', 'evaluated_at', 'trigger_type']) assert.ok(names.includes(col), col);
    for (const col of UNFILTERED) assert.ok(!names.includes(col), col);
  });
});
