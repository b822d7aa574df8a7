import { sql } from 'kysely';
import { openDatabase } from '../src/storage/db.ts';

/**
 * Counts the audit rows of an embedded store after its server has stopped:
 * `node --import tsx bench/count-embedded.ts <MICA_DATA_DIR>` prints {"evaluations":n,"transactions":m}.
 * Run as its own process so that the bench's load generator never hosts the PGlite engine.
 */
const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: count-embedded.ts <MICA_DATA_DIR>');
const handle = await openDatabase({ dataDir });
try {
  const r = await sql<{ evaluations: number; transactions: number }>`
    SELECT (SELECT count(*) FROM evaluations)::int AS evaluations,
           (SELECT count(*) FROM customer_transactions)::int AS transactions`.execute(handle.db);
  process.stdout.write(`${JSON.stringify(r.rows[0])}\n`);
} finally {
  await handle.close();
}
