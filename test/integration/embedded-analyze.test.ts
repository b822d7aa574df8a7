import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/storage/db.ts';
import { analyzeGrownTables } from '../../src/storage/embedded-analyze.ts';
import { freshDatabase } from '../helpers/harness.ts';

/**
 * The embedded engine has no autovacuum: the service analyzes tables that grew (the same function
 * works on PostgreSQL, where autovacuum may have analyzed first). A table is analyzed once it has
 * rows, again only after real growth, and its statistics then describe it.
 */
describe('analysis of grown tables', () => {
  let database: DatabaseHandle;
  before(async () => {
    database = await freshDatabase();
    // Autovacuum (PostgreSQL) must not analyze it behind the test's back.
    await sql`CREATE TABLE grow_items (id integer PRIMARY KEY, kind text NOT NULL, pad text)
              WITH (autovacuum_enabled = false)`.execute(database.db);
  });
  after(() => database.close());

  const fill = (from: number, to: number) =>
    sql`INSERT INTO grow_items SELECT g, 'k' || (g % 7), repeat('x', 200) FROM generate_series(${from}::int, ${to}::int) g`.execute(
      database.db,
    );
  const stats = async () =>
    (
      await sql<{ reltuples: number }>`SELECT reltuples FROM pg_class WHERE relname = 'grow_items'`.execute(
        database.db,
      )
    ).rows[0]!.reltuples;

  it('analyzes a table once it has rows, then only after it grew', async () => {
    await fill(1, 2000);
    const first = await analyzeGrownTables(database.db);
    assert.ok(first.includes('grow_items'), first.join());
    assert.equal(await stats(), 2000);
    const distinct = await sql<{ n_distinct: number }>`
      SELECT n_distinct FROM pg_stats WHERE tablename = 'grow_items' AND attname = 'kind'`.execute(
      database.db,
    );
    assert.equal(distinct.rows[0]?.n_distinct, 7);

    assert.ok(!(await analyzeGrownTables(database.db)).includes('grow_items'));
    await fill(2001, 3000); // half as much again: not yet
    assert.ok(!(await analyzeGrownTables(database.db)).includes('grow_items'));
    await fill(3001, 5000);
    assert.ok((await analyzeGrownTables(database.db)).includes('grow_items'));
    assert.equal(await stats(), 5000);
  });
});
