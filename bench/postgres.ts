import pg from 'pg';

/** The PostgreSQL server the bench may use, and the dedicated database it creates there. */
export const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const BENCH_DB = 'mica_bench';

export function benchDatabaseUrl(adminUrl = ADMIN_URL, database = BENCH_DB): string {
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** True when the server answers at `adminUrl`. */
export async function postgresReachable(adminUrl = ADMIN_URL): Promise<boolean> {
  try {
    await withClient(adminUrl, (c) => c.query('SELECT 1'));
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates the database (default `mica_bench`) if missing, then drops and recreates its public
 * schema; returns its URL.
 */
export async function resetBenchDatabase(adminUrl = ADMIN_URL, database = BENCH_DB): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`bad database name ${database}`);
  await withClient(adminUrl, async (c) => {
    const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await c.query(`CREATE DATABASE ${database}`);
  });
  const url = benchDatabaseUrl(adminUrl, database);
  await withClient(url, async (c) => {
    await c.query('DROP SCHEMA IF EXISTS public CASCADE');
    await c.query('CREATE SCHEMA public');
  });
  return url;
}

/** Rows in the audit tables of the bench database, and how many of `ids` are among the evaluations. */
export async function countStored(url: string, ids: string[]): Promise<StoredCounts> {
  return withClient(url, async (c) => {
    const r = await c.query<StoredCounts>(
      `SELECT (SELECT count(*) FROM evaluations)::int AS evaluations,
              (SELECT count(*) FROM customer_transactions)::int AS transactions,
              (SELECT count(*) FROM evaluations WHERE evaluation_id = ANY($1::uuid[]))::int AS "idsFound"`,
      [ids],
    );
    return r.rows[0]!;
  });
}

export interface StoredCounts {
  evaluations: number;
  transactions: number;
  idsFound: number;
}

/** Runs one query on `url` and returns its rows (integrity checks of the other benchmarks). */
export async function queryRows<T extends Record<string, unknown>>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  return withClient(url, async (c) => (await c.query<T>(text, params)).rows);
}

/** Server version string, for the results. */
export async function postgresVersion(url: string): Promise<string> {
  return withClient(url, async (c) => (await c.query<{ v: string }>('SHOW server_version')).rows[0]!.v);
}

/** Average number of `mica_bench` sessions in each state/wait event/statement, over the samples. */
export interface WaitProfile {
  samples: number;
  /** e.g. { 'Lock:transactionid — INSERT INTO case_counters': 1.2 } (sessions on average) */
  sessions: Record<string, number>;
}

/**
 * Samples pg_stat_activity of the bench database every `everyMs` until stopped: where the server's
 * sessions spend their time (running, waiting on a lock, on the WAL flush, idle in a transaction).
 */
export function sampleWaits(url: string, everyMs = 200): { stop: () => Promise<WaitProfile> } {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const r = await client.query<{ w: string }>(
        `SELECT CASE WHEN state = 'active' THEN coalesce(wait_event_type || ':' || wait_event, 'running')
                     ELSE state END || ' — ' ||
                left(btrim(regexp_replace(query, '\\s+', ' ', 'g')), 32) AS w
           FROM pg_stat_activity
          WHERE datname = $1 AND pid <> pg_backend_pid() AND state <> 'idle'`,
        [BENCH_DB],
      );
      samples++;
      for (const row of r.rows) counts.set(row.w, (counts.get(row.w) ?? 0) + 1);
      await new Promise((res) => setTimeout(res, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop.catch(() => undefined);
      await client.end().catch(() => undefined);
      const sessions: Record<string, number> = {};
      for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) sessions[k] = samples ? v / samples : 0;
      return { samples, sessions };
    },
  };
}
