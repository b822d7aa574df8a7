import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { openDatabase } from '../src/storage/db.ts';

/**
 * Counts the audit rows of an embedded store after its server has stopped:
 * `node --import tsx bench/count-embedded.ts <MICA_DATA_DIR> [ids.json]` prints
 * {"evaluations":n,"transactions":m,"idsFound":k}, k being how many of the evaluation ids listed in
 * ids.json are stored. Run as its own process so that the bench's load generator never hosts PGlite.
 */
const [dataDir, idsFile] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: count-embedded.ts <MICA_DATA_DIR> [ids.json]');
const ids: string[] = idsFile ? JSON.parse(readFileSync(idsFile, 'utf8')) : [];
const handle = await openDatabase({ dataDir });
try {
  const r = await sql<{ evaluations: number; transactions: number; idsFound: number }>`
    SELECT (SELECT count(*) FROM evaluations)::int AS evaluations,
           (SELECT count(*) FROM customer_transactions)::int AS transactions,
           (SELECT count(*) FROM evaluations WHERE evaluation_id = ANY(${ids}::uuid[]))::int AS "idsFound"`.execute(
    handle.db,
  );
  process.stdout.write(`${JSON.stringify(r.rows[0])}\n`);
} finally {
  await handle.close();
}
