import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { openDatabase } from '../src/storage/db.ts';

/**
 * Runs queries on an embedded store after its server has stopped (integrity checks of the
 * screening, travel-rule, webhook and export benchmarks):
 * `node --import tsx bench/query-embedded.ts <MICA_DATA_DIR> <queries.json>`, queries.json being
 * `[{"text": "SELECT … $1 …", "params": [...]}, …]`; prints a JSON array with the rows of each.
 * Its own process, so that the load generator never hosts PGlite.
 */
const [dataDir, queriesFile] = process.argv.slice(2);
if (!dataDir || !queriesFile) throw new Error('usage: query-embedded.ts <MICA_DATA_DIR> <queries.json>');
const queries = JSON.parse(readFileSync(queriesFile, 'utf8')) as Array<{ text: string; params?: unknown[] }>;
const handle = await openDatabase({ dataDir });
try {
  const out: unknown[][] = [];
  for (const q of queries) {
    // `$n` placeholders become bound parameters, in order.
    const parts = q.text.split(/\$\d+/);
    const order = [...q.text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]) - 1);
    const params = q.params ?? [];
    const query = sql.join(
      parts.map((p, i) => (i < order.length ? sql`${sql.raw(p)}${params[order[i]!]}` : sql.raw(p))),
      sql``,
    );
    out.push((await sql<Record<string, unknown>>`${query}`.execute(handle.db)).rows);
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  await handle.close();
}
