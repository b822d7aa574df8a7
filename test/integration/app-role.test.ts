import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { type Db, openDatabase } from '../../src/storage/db.ts';
import { migrateToLatest } from '../../src/storage/migrations/index.ts';
import { ensureMonthlyPartitions, listPartitions } from '../../src/storage/partitions.ts';
import { migrateSchema } from '../../src/storage/schema-owner.ts';
import { governanceRecord } from '../helpers/audit-records.ts';
import {
  clientWithKey,
  freshDatabase,
  startTestApp,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  type TestApp,
} from '../helpers/harness.ts';

/** A login role of the test runs, member of the restricted group role that migration 006 creates. */
const LOGIN_ROLE = 'mica_app_test';

const years = (n: number) => new Date(Date.now() - n * 365.25 * 86_400_000);

/** The SQLSTATE of a failed statement (42501: insufficient privilege). */
async function sqlState(q: Promise<unknown>): Promise<string> {
  try {
    await q;
  } catch (e) {
    return String((e as { code?: unknown }).code ?? (e as Error).message);
  }
  return 'succeeded';
}

/**
 * On both engines: the functions that let the application maintain the audit store refuse to
 * remove anything retention may not remove yet, whoever calls them.
 */
describe('audit maintenance functions (both engines)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('refuse a retention cutoff or a partition younger than 5 years, and a partition with rows', async () => {
    await t.deps.clients.create('acme', { actor: 't' });
    await ensureMonthlyPartitions(t.deps.db, years(7), { monthsBack: 0, monthsAhead: 0 });
    await ensureMonthlyPartitions(t.deps.db, years(4.5), { monthsBack: 0, monthsAhead: 0 });
    await t.deps.auditWriter.write(governanceRecord('acme', new Date()));
    for (const cutoff of [
      sql`now()`,
      sql`now() - interval '300 days'`,
      sql`now() - interval '4 years 11 months'`,
    ])
      await assert.rejects(
        sql`SELECT mica_retention_delete('acme', ${cutoff})`.execute(t.deps.db),
        /shortest retention period \(5 years\)/,
      );
    const partitions = await listPartitions(t.deps.db);
    for (const young of [
      partitions.find((p) => p.to > new Date())!,
      partitions.find((p) => p.to > years(5))!,
    ]) {
      await assert.rejects(
        sql`SELECT mica_drop_audit_partition(${young.name})`.execute(t.deps.db),
        /shortest retention period/,
        young.name,
      );
    }
    await assert.rejects(sql`SELECT mica_drop_audit_partition('clients')`.execute(t.deps.db), /not an/);
    const old = (await listPartitions(t.deps.db))[0]!;
    await t.deps.auditWriter.write(governanceRecord('acme', new Date(old.to.getTime() - 86_400_000)));
    await assert.rejects(
      sql`SELECT mica_drop_audit_partition(${old.name})`.execute(t.deps.db),
      /still holds rows/,
    );
    const n = await sql<{ n: number }>`SELECT count(*)::int AS n FROM evaluations`.execute(t.deps.db);
    assert.equal(Number(n.rows[0]!.n), 2, 'nothing was removed');
  });
});

/**
 * PostgreSQL only: the server runs as a member of mica_app, migrations as the owner. The role may
 * not UPDATE, DELETE or TRUNCATE audit rows (permission denied, whatever the triggers say), and the
 * service works normally as that role: evaluations, cases, the audit API, the daily maintenance.
 */
describe('the restricted application role (PostgreSQL)', { skip: !TEST_DATABASE_URL }, () => {
  let t: TestApp;
  let appDb: Db;
  before(async () => {
    const owner = await freshDatabase();
    try {
      await migrateToLatest(owner.db);
      // Roles are cluster-wide and other runs may create this one at the same moment.
      await sql
        .raw(`DO $$ BEGIN
                CREATE ROLE ${LOGIN_ROLE} LOGIN IN ROLE mica_app;
              EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`)
        .execute(owner.db);
      await sql
        .raw(`DO $$ BEGIN
                IF NOT pg_has_role('${LOGIN_ROLE}', 'mica_app', 'MEMBER') THEN GRANT mica_app TO ${LOGIN_ROLE}; END IF;
              EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`)
        .execute(owner.db);
    } finally {
      await owner.close();
    }
    const appUrl = new URL(TEST_DATABASE_URL!);
    appUrl.username = LOGIN_ROLE;
    appUrl.password = '';
    const config = loadConfig({
      MICA_DEMO_SEED: 'false',
      LOG_LEVEL: 'silent',
      AUTH_CACHE_MS: '0',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_BURST_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_DAY: '100000000',
      DATABASE_URL: appUrl.toString(),
      DATABASE_MIGRATION_URL: TEST_DATABASE_URL!,
      ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
    });
    const database = await openDatabase({ databaseUrl: config.DATABASE_URL, poolSize: 5 });
    const deps = await createDeps(config, { database });
    const app = await buildApp(deps, { logger: false });
    await app.ready();
    appDb = deps.db;
    t = {
      app,
      deps,
      config,
      close: async () => {
        await app.close();
        await deps.close();
      },
    };
  });
  after(() => t?.close());

  it('connects as a member of mica_app, and the schema is current without the owner', async () => {
    const who = await sql<{ u: string; member: boolean; super: boolean }>`
      SELECT current_user AS u, pg_has_role(current_user, 'mica_app', 'MEMBER') AS member,
             (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS super`.execute(appDb);
    assert.deepEqual(who.rows[0], { u: LOGIN_ROLE, member: true, super: false });
    // With nothing pending, the role can check the schema version itself (no DATABASE_MIGRATION_URL).
    assert.deepEqual(await migrateToLatest(appDb), []);
  });

  it('warns at start when the role could change any audit table, not only the evaluations', async () => {
    const warnings: string[] = [];
    const logger = { warn: (_o: unknown, msg?: string) => warnings.push(String(msg)) };
    await migrateSchema(t.deps.database, undefined, logger as never);
    assert.deepEqual(warnings, [], 'the restricted role is not warned about');
    const owner = await openDatabase({ databaseUrl: TEST_DATABASE_URL!, poolSize: 1 });
    try {
      // This database only (grants are per database): one audit table more than the README grants.
      await sql.raw(`GRANT DELETE ON audit_retention_marks TO ${LOGIN_ROLE}`).execute(owner.db);
      await migrateSchema(t.deps.database, undefined, logger as never);
      assert.equal(warnings.length, 1, 'a DELETE on the retention marks is warned about');
    } finally {
      await sql.raw(`REVOKE DELETE ON audit_retention_marks FROM ${LOGIN_ROLE}`).execute(owner.db);
      await owner.close();
    }
  });

  it('serves evaluations, cases, the audit API and verification as that role', async () => {
    const c = await clientWithKey(t, 'acme');
    await t.deps.clients.addOfficer('acme', 'olga', 'test');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/mica/evaluate',
        headers: c.auth,
        payload: {
          client_id: 'acme',
          trigger_type: 'transaction',
          trigger_entity_id: `tx-${i}`,
          data: {
            customer_id: `c${i % 2}`,
            customer_verified: true,
            amount_eur: 12_000,
            full_cdd_complete: true,
          },
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      ids.push(res.json().evaluation_id);
    }
    const one = await t.app.inject({
      method: 'GET',
      url: `/api/mica/evaluations/${ids[0]}`,
      headers: c.auth,
    });
    assert.equal(one.statusCode, 200, one.body);
    const audit = await t.app.inject({
      method: 'GET',
      url: '/api/mica/audit/evaluations?customer_id=c0&limit=100',
      headers: c.auth,
    });
    assert.equal(audit.statusCode, 200, audit.body);
    assert.ok(audit.json().items.length > 0);
    const csv = await t.app.inject({
      method: 'GET',
      url: '/api/mica/audit/evaluations?transaction_id=tx-1&format=csv',
      headers: c.auth,
    });
    assert.equal(csv.statusCode, 200, csv.body);
    assert.ok(csv.body.split('\n').length > 2);
    const cases = await t.app.inject({ method: 'GET', url: '/api/cases?limit=100', headers: c.auth });
    assert.equal(cases.statusCode, 200, cases.body);
    const first = cases.json().items[0];
    assert.ok(first, 'the evaluations opened cases');
    const moved = await t.app.inject({
      method: 'POST',
      url: `/api/cases/${first.id}/transition`,
      headers: c.auth,
      payload: { to: 'investigating' },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    // Keys and settings are updated in place (not audit rows).
    await t.deps.keys.rotate(c.keyId, 'test');
    await t.deps.clients.setSettings('acme', { retention_years: 7 }, 'test');
    const v = await t.deps.auditChain.verify('acme');
    assert.equal(v.ok, true, JSON.stringify(v));
    assert.equal(v.rows_verified, 6);
  });

  it('runs the daily maintenance: partitions, retention that drops an old partition, checkpoints', async () => {
    await t.deps.clients.create('long', { actor: 't', settings: { retention_years: 7 } });
    await t.deps.clients.create('normal', { actor: 't' });
    await ensureMonthlyPartitions(t.deps.db, years(8), { monthsBack: 0, monthsAhead: 0 });
    for (const at of [years(8), years(6), new Date()]) {
      await t.deps.auditWriter.write(governanceRecord('long', at));
      await t.deps.auditWriter.write(governanceRecord('normal', at));
    }
    const oldPartition = (await listPartitions(t.deps.db)).find((p) => p.to <= years(7.5))!;
    assert.ok(oldPartition);
    const report = (await t.deps.jobs.run('audit-maintenance')) as {
      retention: { removed: Array<{ client_id: string; rows: number }>; dropped_partitions: string[] };
      checkpoints: number;
    };
    assert.deepEqual(report.retention.removed.map((r) => [r.client_id, r.rows]).sort(), [
      ['long', 1],
      ['normal', 2],
    ]);
    assert.ok(report.retention.dropped_partitions.includes(oldPartition.name));
    assert.ok(report.checkpoints >= 3);
    for (const c of ['long', 'normal', 'acme']) {
      const v = await t.deps.auditChain.verify(c);
      assert.equal(v.ok, true, `${c}: ${JSON.stringify(v)}`);
    }
  });

  it('is refused UPDATE, DELETE and TRUNCATE on every audit table (permission denied)', async () => {
    const part = (await listPartitions(appDb)).at(-1)!.name;
    const tables = [
      'evaluations',
      'evaluations_default',
      part,
      'audit_checkpoints',
      'audit_retention_marks',
      'operator_audit',
    ];
    for (const table of tables) {
      const id = sql.id(table);
      assert.equal(
        await sqlState(sql`UPDATE ${id} SET client_id = client_id`.execute(appDb)),
        '42501',
        table,
      );
      assert.equal(await sqlState(sql`DELETE FROM ${id}`.execute(appDb)), '42501', table);
      assert.equal(await sqlState(sql`TRUNCATE ${id}`.execute(appDb)), '42501', table);
    }
    assert.equal(await sqlState(sql`DELETE FROM audit_chain_heads`.execute(appDb)), '42501');
    assert.equal(await sqlState(sql`TRUNCATE audit_chain_heads`.execute(appDb)), '42501');
    // The retention switch of the triggers gives the role nothing: it never had the privilege.
    const viaSwitch = await appDb.transaction().execute(async (trx) => {
      await sql`SELECT set_config('mica.maintenance', 'retention', true)`.execute(trx);
      return sqlState(sql`DELETE FROM evaluations`.execute(trx));
    });
    assert.equal(viaSwitch, '42501');
    // Nor can it switch the triggers off, change the tables, or disable triggers for its session.
    assert.equal(await sqlState(sql`ALTER TABLE evaluations DISABLE TRIGGER ALL`.execute(appDb)), '42501');
    assert.equal(await sqlState(sql`SET session_replication_role = replica`.execute(appDb)), '42501');
    assert.equal(await sqlState(sql`DROP TABLE evaluations_default`.execute(appDb)), '42501');
    assert.equal(await sqlState(sql`CREATE TABLE sneaky (x int)`.execute(appDb)), '42501');
    assert.equal(await sqlState(sql`SELECT mica_grant_app_role()`.execute(appDb)), '42501');
    // It still reads and appends.
    const n = await sql<{ n: number }>`SELECT count(*)::int AS n FROM evaluations`.execute(appDb);
    assert.ok(Number(n.rows[0]!.n) > 0);
  });
});
