import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase, statementName } from '../../src/storage/db.ts';
import { analyzeGrownTables } from '../../src/storage/embedded-analyze.ts';
import { freshDatabase, TEST_DATABASE_URL } from '../helpers/harness.ts';

/**
 * Prepared statements keep one generic plan. One made while a table was empty scans it whole, which
 * is right then and ruinous once it holds thousands of rows: the plan must be made again as the
 * table grows, on PostgreSQL (plans discarded after a while) and on the embedded store (tables
 * analyzed as they grow, which invalidates the plans that use them).
 */
describe('prepared plans follow table growth', () => {
  let database: DatabaseHandle;
  before(async () => {
    if (TEST_DATABASE_URL) {
      // A fresh schema, then one session (so EXPLAIN sees its plans) that keeps plans for 300 ms.
      await (await freshDatabase()).close();
      database = await openDatabase({ databaseUrl: TEST_DATABASE_URL, poolSize: 1, planLifetimeMs: 300 });
    } else database = await openDatabase({ dataDir: 'memory://', analyzeIntervalMs: 3_600_000 });
    // Autovacuum (PostgreSQL) must not analyze it behind the test's back.
    await sql`CREATE TABLE plan_items (id integer PRIMARY KEY, k integer NOT NULL, pad text)
              WITH (autovacuum_enabled = false)`.execute(database.db);
    await sql`CREATE UNIQUE INDEX plan_items_k_idx ON plan_items (k)`.execute(database.db);
  });
  after(() => database.close());

  // The shape of the intake's duplicate check: a batch of keys (JSON) joined to a growing table.
  const lookup = (keys: number[]) => sql<{ n: number }>`
    SELECT count(*)::integer AS n FROM json_to_recordset(${JSON.stringify(keys.map((k) => ({ k })))}::json) AS x(k integer)
      JOIN plan_items p ON p.k = x.k`;
  const plan = async () => {
    const name = statementName(lookup([]).compile(database.db).sql);
    const rows = (
      await sql<{ 'QUERY PLAN': string }>`EXPLAIN EXECUTE ${sql.raw(name)}('[{"k":7}]')`.execute(database.db)
    ).rows;
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  };

  // The audit batch statement's generic plan is estimated near PostgreSQL's jit_above_cost: past it,
  // every execution compiled the plan (evaluations at a sixth of their throughput).
  it('runs its sessions without JIT compilation', async () => {
    const rows = (await sql<{ jit: string }>`SHOW jit`.execute(database.db)).rows;
    assert.deepEqual(rows, [{ jit: 'off' }]);
  });

  it('scans the index once the table has grown', async () => {
    assert.deepEqual((await database.executePrepared(lookup([7]).compile(database.db))).rows, [{ n: 0 }]);
    await sql`INSERT INTO plan_items SELECT g, g, repeat('x', 100) FROM generate_series(1, 50000) g`.execute(
      database.db,
    );
    // The plan made on the empty table is still the one in use.
    assert.match(await plan(), /Seq Scan/);

    if (database.kind === 'postgres') await new Promise((r) => setTimeout(r, 350));
    else assert.ok((await analyzeGrownTables(database.db)).includes('plan_items'));
    assert.deepEqual((await database.executePrepared(lookup([7, 8]).compile(database.db))).rows, [{ n: 2 }]);
    const now = await plan();
    assert.doesNotMatch(now, /Seq Scan/);
    assert.match(now, /plan_items_k_idx/);
  });
});
