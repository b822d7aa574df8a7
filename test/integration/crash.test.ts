import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/storage/db.ts';
import { freshDatabase, TEST_DATABASE_URL } from '../helpers/harness.ts';
import { type ServerProcess, startServerProcess, tempDataDir } from '../helpers/server-process.ts';

/**
 * Kill -9 during a load of evaluations: every evaluation whose answer reached the caller must have
 * all of its audit rows. (What was in flight and never answered may or may not be there.)
 */
describe('crash safety', () => {
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.stop('SIGKILL');
  });

  it('SIGKILL under load loses no answered evaluation', async () => {
    const dataDir = tempDataDir();
    if (TEST_DATABASE_URL) await (await freshDatabase()).close();
    server = await startServerProcess({
      MICA_DATA_DIR: dataDir,
      MICA_DEMO_SEED: 'true',
      ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {}),
    });
    const key = await server.demoKey();
    assert.ok(key, `demo key printed: ${server.stdout()}`);

    const answered: Array<{ id: string; rules: number }> = [];
    let stop = false;
    let seq = 0;
    const worker = async () => {
      while (!stop) {
        const n = seq++;
        try {
          const res = await fetch(`${server!.url}/api/mica/evaluate`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              client_id: 'demo',
              trigger_type: 'transaction',
              trigger_entity_id: `crash-${n}`,
              data: {
                customer_id: `c-${n % 50}`,
                customer_verified: n % 3 > 0,
                amount_eur: (n * 37) % 15000,
              },
            }),
          });
          if (res.status === 200) {
            const b = (await res.json()) as { evaluation_id: string; rules_evaluated: number };
            answered.push({ id: b.evaluation_id, rules: b.rules_evaluated });
          }
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    // Kill once a good number of evaluations were answered, while requests are still in flight.
    while (answered.length < 300) await new Promise((r) => setTimeout(r, 20));
    await server.stop('SIGKILL');
    stop = true;
    await Promise.all(workers);
    server = undefined;

    const handle = await openDatabase({ databaseUrl: TEST_DATABASE_URL, dataDir });
    try {
      const ids = answered.map((a) => a.id);
      const rows = await sql<{ evaluation_id: string; n: number }>`
        SELECT evaluation_id::text AS evaluation_id, count(*)::int AS n
          FROM mica_rule_evaluations WHERE evaluation_id::text = ANY(${ids}) GROUP BY evaluation_id`.execute(
        handle.db,
      );
      const found = new Map(rows.rows.map((r) => [r.evaluation_id, r.n]));
      const missing = answered.filter((a) => found.get(a.id) !== a.rules);
      assert.equal(
        missing.length,
        0,
        `${missing.length} of ${answered.length} answered evaluations lack audit rows`,
      );
      assert.ok(answered.length >= 300);
    } finally {
      await handle.close();
    }
  });
});
