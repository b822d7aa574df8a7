import { sql } from 'kysely';
import type { Db } from './db.ts';

/**
 * A table is analyzed again once it has doubled since its last analysis… Plans change with the
 * order of magnitude of a table, not with a fifth more rows, and each analysis holds the session for
 * milliseconds to a few tens of them and makes the statements on the table plan again: a table that grows from
 * empty to a million rows is analyzed some 20 times in all.
 */
const GROWTH = 1;
/**
 * …and grown by at least this many pages (8 KiB each), so small tables are not analyzed over and over.
 * A table is not analyzed at all before it has this many: plans over three pages do not depend on
 * statistics, and the first round after start-up used to analyze every one-page table there is
 * (clients, keys, officers, migrations…): nine transactions of 2-11 ms each, 45 ms of the one
 * session while requests waited (a paced travel-rule run).
 */
const MIN_PAGES = 4;

/**
 * The tables to analyze in one round: those that have grown enough since their last analysis (or
 * were never analyzed), the most grown first, all of them. Each is analyzed in a transaction of its
 * own, so the session goes to waiting statements between two tables anyway. Each analysis costs
 * its sample's reading and then the re-planning of every cached plan over its table at its next use
 * (4-16 ms per audit statement shape on this engine): one disturbance per round, not one per table
 * per round. When one large table per round was analyzed, the tables that a burst had doubled took
 * three rounds five seconds apart: after the bench's closed loop, the last of them landed in the
 * paced run that followed (24 requests of 10,000 over 8 ms, up to 24 ms, at 1,000/s).
 */
export function tablesToAnalyze(
  tables: ReadonlyArray<{ name: string; relpages: number; reltuples: number; pages: number }>,
): string[] {
  return tables
    .filter(
      (t) => t.pages >= MIN_PAGES && (t.reltuples < 0 || t.pages >= t.relpages * (1 + GROWTH) + MIN_PAGES),
    )
    .map((t) => ({ ...t, growth: t.reltuples < 0 ? Number.POSITIVE_INFINITY : t.pages / (t.relpages + 1) }))
    .sort((a, b) => b.growth - a.growth || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => t.name);
}

/** From this size (8 KiB pages; ~3,500 evaluations in an audit partition) a table is analyzed from the smaller sample. */
const LARGE_PAGES = 256;

/**
 * Rows sampled per column statistic, divided by 300 (PostgreSQL's default is 100: 30,000 rows,
 * 500 ms on a 100,000-row audit partition). The plans of this service need table sizes and rough
 * distributions, not fine histograms, and the analysis holds the one session for as long as it
 * reads its sample: a partition of 40,000 evaluations (2,900 pages) took 30 ms with 3,000 rows and
 * 10 ms with 900. The table's size is estimated from the pages sampled either way.
 */
export function statisticsTargetFor(pages: number): number {
  return pages >= LARGE_PAGES ? 3 : 10;
}

/**
 * The embedded engine has no autovacuum, so its tables would never get statistics: every plan would
 * rest on guesses, and a prepared statement planned while a table was empty would keep a sequential
 * scan of it as it grows (webhook intake fell from 3,600 to 2,700 deliveries/s that way). This does
 * what autovacuum's analyze does on PostgreSQL: tables that grew are analyzed, which also makes the
 * statements that use them plan again. Runs through the driver, so it waits its turn for the one
 * session and never lands inside a caller's transaction. Returns the tables analyzed.
 */
export async function analyzeGrownTables(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string; relpages: number; reltuples: number; pages: string | number }>`
    SELECT c.oid::regclass::text AS name, c.relpages, c.reltuples,
           pg_relation_size(c.oid) / current_setting('block_size')::integer AS pages
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind = 'r' AND n.nspname = current_schema()`.execute(db);
  const sized = rows.map((r) => ({ ...r, pages: Number(r.pages) }));
  const pagesOf = new Map(sized.map((t) => [t.name, t.pages]));
  const tables = tablesToAnalyze(sized);
  // One table per transaction: the session is lent to the statements waiting for it between two
  // tables, instead of being held for the whole round (a first round of some twenty small tables
  // in one ANALYZE held it for 70 ms).
  for (const table of tables)
    await db.transaction().execute(async (trx) => {
      const target = statisticsTargetFor(pagesOf.get(table)!);
      await sql`SET LOCAL default_statistics_target = ${sql.lit(target)}`.execute(trx);
      // The name comes from the catalogue as regclass text: already quoted where it needs to be.
      await sql`ANALYZE ${sql.raw(table)}`.execute(trx);
    });
  return tables;
}

/** Runs analyzeGrownTables every `intervalMs` until stopped; a failed round is retried next time. */
export function startEmbeddedAnalyze(
  db: Db,
  intervalMs: number,
  onError: (err: unknown) => void = () => {},
): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = analyzeGrownTables(db)
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
