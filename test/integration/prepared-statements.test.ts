import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CompiledQuery, sql } from 'kysely';
import type { DatabaseHandle } from '../../src/storage/db.ts';
import { freshDatabase } from '../helpers/harness.ts';

/**
 * The hot statements run as named prepared statements on both engines (on the embedded one through
 * the worker's own Parse/Bind/Execute, see pglite-worker.mjs): results, types and errors must be
 * those of an ordinary query, a failed run must leave the statement usable, and a statement must
 * wait for a transaction that holds the session.
 */
describe('prepared statements', () => {
  let database: DatabaseHandle;
  before(async () => {
    database = await freshDatabase();
    await sql`CREATE TABLE prep_items (id integer PRIMARY KEY, label text NOT NULL, at timestamptz)`.execute(
      database.db,
    );
  });
  after(() => database.close());

  const compile = (q: { compile(db: DatabaseHandle['db']): CompiledQuery }) => q.compile(database.db);

  it('runs one text many times with new parameters, with the types of a query', async () => {
    const insert = (id: number, label: string) =>
      database.executePrepared(
        compile(sql`INSERT INTO prep_items (id, label, at) VALUES (${id}, ${label}, now())`),
      );
    for (let i = 1; i <= 20; i++) await insert(i, `item ${i}`);
    const select = (min: number) =>
      database.executePrepared<{ id: number; label: string; at: Date; n: number }>(
        compile(
          sql`SELECT id, label, at, count(*) OVER ()::integer AS n FROM prep_items WHERE id >= ${min} ORDER BY id`,
        ),
      );
    const a = await select(15);
    assert.deepEqual(
      a.rows.map((r) => r.id),
      [15, 16, 17, 18, 19, 20],
    );
    assert.equal(a.rows[0]!.label, 'item 15');
    assert.ok(a.rows[0]!.at instanceof Date);
    assert.equal(a.rows[0]!.n, 6);
    const b = await select(20);
    assert.deepEqual(
      b.rows.map((r) => r.id),
      [20],
    );
    const none = await select(21);
    assert.deepEqual(none.rows, []);
  });

  it('passes JSON, arrays and nulls through as parameters', async () => {
    const res = await database.executePrepared<{ n: number; second: string | null; nothing: string | null }>(
      compile(sql`
        SELECT (SELECT count(*)::integer FROM json_array_elements(${JSON.stringify([1, 2, 3])}::json)) AS n,
               (${['x', 'y']}::text[])[2] AS second,
               ${null}::text AS nothing`),
    );
    assert.deepEqual(res.rows, [{ n: 3, second: 'y', nothing: null }]);
  });

  it('returns a large result whole', async () => {
    const res = await database.executePrepared<{ g: number }>(
      compile(sql`SELECT g FROM generate_series(1, ${150_000}::integer) g`),
    );
    assert.equal(res.rows.length, 150_000);
    assert.equal(res.rows[149_999]!.g, 150_000);
  });

  it('passes text of any script byte for byte, long or short', async () => {
    const texts = [
      'Zoë Ñúñez',
      '日本語の名前',
      'rocket 🚀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
      '',
      'ä'.repeat(50_000),
      '💶'.repeat(40_000),
    ];
    for (const text of texts) {
      const res = await database.executePrepared<{ same: string; chars: number; bytes: number; doc: string }>(
        compile(sql`SELECT ${text}::text AS same, char_length(${text}::text) AS chars,
                           octet_length(${text}::text) AS bytes, (${JSON.stringify({ text })}::json)->>'text' AS doc`),
      );
      const row = res.rows[0]!;
      assert.equal(row.same, text);
      assert.equal(row.doc, text);
      assert.equal(Number(row.chars), [...text].length);
      assert.equal(Number(row.bytes), Buffer.byteLength(text));
    }
  });

  it('fails a run with its SQLSTATE and runs the same statement again afterwards', async () => {
    const divide = (by: number) =>
      database.executePrepared<{ q: number }>(compile(sql`SELECT (10 / ${by}::integer)::integer AS q`));
    await assert.rejects(divide(0), (e: { code?: string }) => e.code === '22012');
    assert.deepEqual((await divide(5)).rows, [{ q: 2 }]);
    // A unique violation inside the statement rolls the statement back, as a query's would.
    await assert.rejects(
      database.executePrepared(compile(sql`INSERT INTO prep_items (id, label) VALUES (${1}, ${'again'})`)),
      (e: { code?: string }) => e.code === '23505',
    );
    const kept = await database.executePrepared<{ label: string }>(
      compile(sql`SELECT label FROM prep_items WHERE id = ${1}`),
    );
    assert.deepEqual(kept.rows, [{ label: 'item 1' }]);
  });

  it('refuses a statement that does not parse, every time, without blocking others', async () => {
    const broken = compile(sql`SELEC nothing FROM ${sql.raw('prep_items')} WHERE id = ${1}`);
    for (let i = 0; i < 2; i++)
      await assert.rejects(database.executePrepared(broken), (e: { code?: string }) => e.code === '42601');
    const missing = compile(sql`SELECT * FROM prep_no_such_table WHERE id = ${1}`);
    await assert.rejects(database.executePrepared(missing), (e: { code?: string }) => e.code === '42P01');
    // Once the table exists, the same text prepares and runs.
    await sql`CREATE TABLE prep_no_such_table (id integer)`.execute(database.db);
    assert.deepEqual((await database.executePrepared(missing)).rows, []);
  });

  it('keeps out of a transaction in progress: waits for it embedded, does not see it on PostgreSQL', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let inserted!: () => void;
    const insertedNow = new Promise<void>((r) => {
      inserted = r;
    });
    const trx = database.db.transaction().execute(async (tx) => {
      await sql`INSERT INTO prep_items (id, label) VALUES (100, 'in transaction')`.execute(tx);
      inserted();
      await held;
    });
    await insertedNow;
    const count = database.executePrepared<{ n: number }>(
      compile(sql`SELECT count(*)::integer AS n FROM prep_items WHERE id >= ${100}`),
    );
    if (database.kind === 'pglite') {
      // One session: the statement runs after the transaction, never inside it.
      setTimeout(release, 50);
      await trx;
      assert.deepEqual((await count).rows, [{ n: 1 }]);
    } else {
      // Another session: the uncommitted row is not visible.
      assert.deepEqual((await count).rows, [{ n: 0 }]);
      release();
      await trx;
    }
  });

  // The embedded engine runs its messages in order, so prepared statements are sent at once rather
  // than one answer at a time; only a transaction in progress holds them back.
  const embeddedOnly = { skip: process.env.DATABASE_URL ? 'the embedded engine only' : false };

  it('runs statements sent together in the order they were sent', embeddedOnly, async () => {
    await sql`CREATE TABLE prep_order (n bigserial PRIMARY KEY, label integer NOT NULL)`.execute(database.db);
    const insert = (label: number) =>
      database.executePrepared(compile(sql`INSERT INTO prep_order (label) VALUES (${label})`));
    await Promise.all(Array.from({ length: 50 }, (_, i) => insert(i)));
    const rows = await sql<{ label: number }>`SELECT label FROM prep_order ORDER BY n`.execute(database.db);
    assert.deepEqual(
      rows.rows.map((r) => r.label),
      Array.from({ length: 50 }, (_, i) => i),
    );
  });

  it(
    'keeps statements sent before, during and after a rolled-back transaction out of it',
    embeddedOnly,
    async () => {
      const insert = (id: number) =>
        database.executePrepared(compile(sql`INSERT INTO prep_items (id, label) VALUES (${id}, 'outside')`));
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      const before = insert(200);
      const trx = database.db
        .transaction()
        .execute(async (tx) => {
          await sql`INSERT INTO prep_items (id, label) VALUES (201, 'inside')`.execute(tx);
          await held;
          throw new Error('roll back');
        })
        .catch((e: Error) => e.message);
      const during = insert(202);
      setTimeout(release, 30);
      assert.equal(await trx, 'roll back');
      await Promise.all([before, during, insert(203)]);
      const rows = await sql<{ id: number }>`SELECT id FROM prep_items WHERE id >= 200 ORDER BY id`.execute(
        database.db,
      );
      assert.deepEqual(
        rows.rows.map((r) => r.id),
        [200, 202, 203],
      );
    },
  );
});
