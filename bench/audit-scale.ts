import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { Pool } from 'undici';
import { createAuditQueryRepo } from '../src/storage/audit-query.repo.ts';
import type { Database } from '../src/storage/schema.ts';
import {
  f,
  HIGH_LIMITS,
  int,
  logger,
  machineLines,
  measuredPaced,
  num,
  pacedNote,
  pcts,
  runMain,
  tempDir,
  verdict,
  writeBenchSection,
} from './harness.ts';
import { type PacedResult, percentiles } from './paced.ts';
import { transactionBody } from './payload.ts';
import {
  ADMIN_URL,
  benchDatabaseUrl,
  postgresReachable,
  postgresVersion,
  resetBenchDatabase,
} from './postgres.ts';
import { type Child, runNode, startServerNode, stop, waitHealthy, waitListening } from './processes.ts';

/**
 * The audit store at scale (issue #6): 10 million evaluations in `mica_scale`, generated on the
 * server (generate_series, month by month into the monthly partitions), then
 *  - the audit API filtered by customer and by transaction over one month (target ≤ 50 ms), with
 *    the plans of the same SQL (EXPLAIN ANALYZE);
 *  - paced evaluation latency on an empty store (`mica_scale_empty`) and on the loaded one
 *    (target: < 20 % change), alternating A/B/A/B so that other work on the machine hits both.
 * The loaded database is kept between runs (a reload takes minutes): SCALE_RELOAD=1 rebuilds it.
 */

const log = logger('audit-scale');
const ROWS = num('SCALE_ROWS', 10_000_000);
const MONTHS = num('SCALE_MONTHS', 12);
const CLIENTS = num('SCALE_CLIENTS', 20);
const CUSTOMERS = num('SCALE_CUSTOMERS', 20_000);
const RATE = num('BENCH_RATE', 500);
const DURATION = num('BENCH_DURATION', 15);
const ROUNDS = num('SCALE_ROUNDS', 2);
const QUERIES = num('SCALE_QUERIES', 300);
const SCALE_DB = 'mica_scale';
const EMPTY_DB = 'mica_scale_empty';
const BENCH_CLIENT = 'bench';

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const cli = async (url: string, ...args: string[]) =>
  JSON.parse(
    await runNode('mica', 'src/cli/main.ts', args, { DATABASE_URL: url, LOG_LEVEL: 'silent', REDIS_URL: '' }),
  );

/** A real server (`src/main.ts`) on `url`; nothing scheduled during the measurement. */
async function startServer(url: string): Promise<{ child: Child; origin: string }> {
  const child = startServerNode('server', {
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: url,
    REDIS_URL: '',
    MICA_DATA_DIR: tempDir('mica-scale-'),
    LOG_LEVEL: 'warn',
    MICA_DEMO_SEED: 'false',
    STR_SWEEP_CRON: 'off',
    AUDIT_MAINTENANCE_CRON: 'off',
  });
  const origin = `http://127.0.0.1:${await waitListening(child, 120_000)}`;
  await waitHealthy(child, origin, 120_000);
  return { child, origin };
}

/** Migrated schema, the bench client, and a fresh key. */
async function prepare(url: string, fresh: boolean): Promise<string> {
  if (fresh) {
    await cli(url, 'migrate');
    await cli(url, 'clients', 'create', BENCH_CLIENT, '--settings', JSON.stringify(HIGH_LIMITS));
  }
  return (await cli(url, 'keys', 'create', BENCH_CLIENT)).key as string;
}

const monthStart = (y: number, m: number) => new Date(Date.UTC(y, m, 1));

/** The loaded range: MONTHS months ending now, cut at calendar months (one partition each). */
function loadRanges(now: Date): Array<{ from: Date; to: Date; first: number; count: number }> {
  const start = new Date(now);
  start.setUTCMonth(start.getUTCMonth() - MONTHS);
  const span = now.getTime() - start.getTime();
  const out: Array<{ from: Date; to: Date; first: number; count: number }> = [];
  let first = 0;
  for (let d = monthStart(start.getUTCFullYear(), start.getUTCMonth()); d < now; ) {
    const next = monthStart(d.getUTCFullYear(), d.getUTCMonth() + 1);
    const from = d < start ? start : d;
    const to = next > now ? now : next;
    const last = Math.round((ROWS * (to.getTime() - start.getTime())) / span);
    out.push({ from, to, first, count: last - first });
    first = last;
    d = next;
  }
  return out;
}

interface LoadInfo {
  rows: number;
  loadS: number;
  from: string;
  to: string;
  partitions: number;
  databaseBytes: number;
  evaluationsBytes: number;
  windowRows: number;
}

/**
 * Generates the synthetic audit rows on the server. Row g (0 ≤ g < ROWS, in time order) belongs to
 * client g mod CLIENTS (client 0 is the bench client), so each client's chain_seq is g div CLIENTS
 * + 1, gap-free and in time order; customers are spread pseudo-randomly over CUSTOMERS per client;
 * 85 % are transactions (each with its window row in customer_transactions), 15 % periodic checks.
 * request/response are the texts of a real evaluation with the ids replaced, so rows have the real
 * size and shape. prev_hash/row_hash are random-looking bytes, NOT a valid hash chain: `audit verify`
 * reports a break at the first synthetic row (computing 10 M SHA-256 links in JS is what the
 * evaluation benchmark measures already; here only the table's size matters).
 */
async function load(url: string, template: { request: string; response: string; ruleIds: string[] }) {
  const started = Date.now();
  const clients = [
    BENCH_CLIENT,
    ...Array.from({ length: CLIENTS - 1 }, (_, i) => `scale-${String(i).padStart(3, '0')}`),
  ];
  const ranges = loadRanges(new Date());
  await withClient(url, async (c) => {
    await c.query(
      `INSERT INTO clients (client_id, name) SELECT c, c FROM unnest($1::text[]) AS c ON CONFLICT DO NOTHING`,
      [clients],
    );
    for (const r of ranges)
      await c.query('SELECT mica_create_audit_partition($1::date)', [r.from.toISOString().slice(0, 10)]);
  });
  // Two months at a time (two sessions). Foreign-key triggers are skipped while loading, as
  // pg_restore --disable-triggers does: every client_id is one of the clients inserted above.
  const pending = [...ranges];
  const loadMonth = async (c: pg.Client, r: (typeof ranges)[number]) => {
    const t0 = Date.now();
    await c.query(
      `INSERT INTO evaluations (evaluation_id, client_id, trigger_type, trigger_entity_type, trigger_entity_id,
           customer_id, evaluated_at, rule_set_version, high_risk_list_date, evaluator_id, rules_evaluated,
           rules_triggered, transaction_blocked, alert_generated, case_created, highest_severity, rule_ids,
           request, response, chain_seq, prev_hash, row_hash)
         SELECT s.id, ($1::text[])[1 + s.g % $2], s.kind,
                CASE WHEN s.kind = 'transaction' THEN 'transaction' ELSE 'customer' END,
                CASE WHEN s.kind = 'transaction' THEN 'tx-s-' || s.g END,
                s.cust, s.at, '1.0', NULL, 'api-key:bench', $9::int, (s.g % 3)::int,
                s.g % 200 = 0, s.g % 50 = 0, false, CASE WHEN s.g % 50 = 0 THEN 'high' END, $10::text[],
                replace(replace($7::text, '__TX__', 'tx-s-' || s.g), '__CUST__', s.cust)::json,
                replace(replace($8::text, '__ID__', s.id::text), '__TS__',
                        to_char(s.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::json,
                s.g / $2 + 1,
                decode(md5(s.g::text) || md5('p' || s.g), 'hex'), decode(md5((s.g + 1)::text) || md5('r' || s.g), 'hex')
           FROM (SELECT g, gen_random_uuid() AS id,
                        CASE WHEN g % 20 < 17 THEN 'transaction' ELSE 'periodic' END AS kind,
                        'cust-' || (((g / $2) * 7919 + g % $2) % $3) AS cust,
                        $4::timestamptz + ((g - $5)::float8 / $6) * ($11::timestamptz - $4::timestamptz) AS at
                   FROM generate_series($5::bigint, $5::bigint + $6 - 1) AS g) s`,
      [
        clients,
        CLIENTS,
        CUSTOMERS,
        r.from,
        r.first,
        r.count,
        template.request,
        template.response,
        template.ruleIds.length,
        template.ruleIds,
        r.to,
      ],
    );
    await c.query(
      `INSERT INTO customer_transactions (client_id, transaction_id, customer_id, amount_eur, evaluated_at, blocked)
         SELECT client_id, trigger_entity_id, customer_id, 20 + (hashtext(trigger_entity_id) & 65535) / 20.0,
                evaluated_at, transaction_blocked
           FROM evaluations
          WHERE evaluated_at >= $1 AND evaluated_at < $2 AND trigger_type = 'transaction'
            AND trigger_entity_id LIKE 'tx-s-%'
         ON CONFLICT DO NOTHING`,
      [r.from, r.to],
    );
    log(
      `loaded ${r.from.toISOString().slice(0, 7)}: ${int(r.count)} rows in ${f((Date.now() - t0) / 1000)} s`,
    );
  };
  const worker = () =>
    withClient(url, async (c) => {
      await c.query('SET session_replication_role = replica');
      for (let r = pending.shift(); r; r = pending.shift()) await loadMonth(c, r);
    });
  await Promise.all([worker(), worker()]);
  await withClient(url, async (c) => {
    // The chain heads continue after the synthetic rows, so new evaluations get the next numbers.
    await c.query(
      `INSERT INTO audit_chain_heads (client_id, seq, head)
       SELECT c, h.chain_seq, h.row_hash FROM unnest($1::text[]) AS c
        CROSS JOIN LATERAL (SELECT chain_seq, row_hash FROM evaluations
                             WHERE client_id = c ORDER BY chain_seq DESC LIMIT 1) h
       ON CONFLICT (client_id) DO UPDATE SET seq = excluded.seq, head = excluded.head`,
      [clients],
    );
    log('VACUUM ANALYZE (what autovacuum does after a load)');
    await c.query('VACUUM (ANALYZE) evaluations');
    await c.query('VACUUM (ANALYZE) customer_transactions');
    // The load and the vacuum leave gigabytes of dirty pages, which the next timed checkpoint
    // would write during the first measured round (once: p99 70 ms there, 5 ms in the next).
    log("CHECKPOINT (the load's dirty pages written before anything is measured)");
    await c.query('CHECKPOINT');
    await c.query(
      `CREATE TABLE IF NOT EXISTS bench_scale_meta (rows bigint, load_s double precision, range_from timestamptz,
         range_to timestamptz, clients int, customers int, loaded_at timestamptz DEFAULT now())`,
    );
    await c.query(
      'INSERT INTO bench_scale_meta (rows, load_s, range_from, range_to, clients, customers) VALUES ($1, $2, $3, $4, $5, $6)',
      [ROWS, (Date.now() - started) / 1000, ranges[0]!.from, ranges.at(-1)!.to, CLIENTS, CUSTOMERS],
    );
  });
}

/** What is loaded already (the meta row of the last load), with sizes. */
async function loaded(url: string): Promise<LoadInfo | undefined> {
  return withClient(url, async (c) => {
    const meta = await c
      .query(
        `SELECT rows, load_s, range_from, range_to FROM bench_scale_meta WHERE to_regclass('bench_scale_meta') IS NOT NULL
        ORDER BY loaded_at DESC LIMIT 1`,
      )
      .catch(() => ({ rows: [] as Array<Record<string, unknown>> }));
    const m = meta.rows[0];
    if (!m || Number(m.rows) !== ROWS) return undefined;
    const sizes = await c.query(
      `SELECT pg_database_size(current_database()) AS db,
              (SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits WHERE inhparent = 'evaluations'::regclass) AS ev,
              (SELECT count(*) FROM pg_inherits WHERE inhparent = 'evaluations'::regclass) AS parts,
              (SELECT reltuples FROM pg_class WHERE relname = 'customer_transactions') AS window_rows`,
    );
    const s = sizes.rows[0]!;
    return {
      rows: Number(m.rows),
      loadS: Number(m.load_s),
      from: new Date(m.range_from as string).toISOString(),
      to: new Date(m.range_to as string).toISOString(),
      partitions: Number(s.parts),
      databaseBytes: Number(s.db),
      evaluationsBytes: Number(s.ev),
      windowRows: Number(s.window_rows),
    };
  });
}

/** The previous calendar month: a full month inside the loaded range. */
function lastFullMonth(now = new Date()) {
  return {
    from: monthStart(now.getUTCFullYear(), now.getUTCMonth() - 1),
    to: monthStart(now.getUTCFullYear(), now.getUTCMonth()),
  };
}

/** Transaction ids of the bench client (g ≡ 0 mod CLIENTS) inside the month. */
function benchTransactions(month: { from: Date; to: Date }, n: number): string[] {
  const ranges = loadRanges(new Date());
  const r = ranges.find((x) => x.from.getTime() === month.from.getTime())!;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    let g = r.first + Math.floor(Math.random() * (r.count - 40 * CLIENTS));
    g += (CLIENTS - (g % CLIENTS)) % CLIENTS;
    while (g % 20 >= 17) g += CLIENTS; // the transaction rows (g mod 20 < 17)
    ids.push(`tx-s-${g}`);
  }
  return ids;
}

/** Sequential GETs of the audit API (one connection, as an operator's tool pages); client-side ms. */
async function auditQueries(origin: string, key: string, paths: string[]) {
  const pool = new Pool(origin, { connections: 1 });
  const ms: number[] = [];
  let rows = 0;
  let non200 = 0;
  try {
    for (const path of paths.slice(0, 20))
      await (
        await pool.request({ path, method: 'GET', headers: { authorization: `Bearer ${key}` } })
      ).body.dump();
    for (const path of paths) {
      const t0 = performance.now();
      const res = await pool.request({ path, method: 'GET', headers: { authorization: `Bearer ${key}` } });
      const body = (await res.body.json()) as { items?: unknown[] };
      ms.push(performance.now() - t0);
      if (res.statusCode !== 200) non200++;
      rows += body.items?.length ?? 0;
    }
  } finally {
    await pool.close();
  }
  return { latency: percentiles(ms), n: paths.length, rows, non200 };
}

/**
 * The audit repository alone (in this process, one pooled connection): the database's share of
 * an API answer, without HTTP, auth and JSON rendering.
 */
async function repoQueries(
  url: string,
  filters: Array<Parameters<ReturnType<typeof createAuditQueryRepo>['page']>[0]>,
) {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const repo = createAuditQueryRepo(db);
  const ms: number[] = [];
  try {
    for (const filter of filters.slice(0, 20)) await repo.page(filter, undefined, 100);
    for (const filter of filters) {
      const t0 = performance.now();
      await repo.page(filter, undefined, 100);
      ms.push(performance.now() - t0);
    }
  } finally {
    await db.destroy();
  }
  return percentiles(ms);
}

/** EXPLAIN (ANALYZE, BUFFERS) of the exact SQL the audit repository sends for a filter. */
async function explain(url: string, filter: Parameters<ReturnType<typeof createAuditQueryRepo>['page']>[0]) {
  let captured: { sql: string; parameters: readonly unknown[] } | undefined;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (e) => {
      captured = { sql: e.query.sql, parameters: e.query.parameters };
    },
  });
  try {
    await createAuditQueryRepo(db).page(filter, undefined, 100);
    const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${captured!.sql}`, [
      ...captured!.parameters,
    ]);
    return plan.rows.map((r) => r['QUERY PLAN'] as string);
  } finally {
    await db.destroy();
  }
}

interface EvalRun {
  store: 'empty' | 'loaded';
  round: number;
  paced: PacedResult;
}

async function pacedEvaluations(origin: string, key: string, pid: number): Promise<PacedResult> {
  const { paced } = await measuredPaced(
    pid,
    true,
    {
      origin,
      path: '/api/mica/evaluate',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: () => transactionBody(BENCH_CLIENT),
      rate: RATE,
      durationS: DURATION,
      connections: 64,
    },
    3,
  );
  return paced;
}

async function main(): Promise<number> {
  if (!(await postgresReachable())) {
    log(`PostgreSQL not reachable at ${ADMIN_URL}: nothing to measure`);
    return 1;
  }
  const loadStart = (await import('./cpu.ts')).loadAverage();
  const scaleUrl = benchDatabaseUrl(ADMIN_URL, SCALE_DB);
  const runs: EvalRun[] = [];

  // 1. The empty store, and a real evaluation whose texts become the synthetic rows' template.
  const emptyUrl = await resetBenchDatabase(ADMIN_URL, EMPTY_DB);
  const emptyKey = await prepare(emptyUrl, true);
  let template: { request: string; response: string; ruleIds: string[] } | undefined;
  {
    const s = await startServer(emptyUrl);
    const body = JSON.parse(transactionBody(BENCH_CLIENT));
    body.trigger_entity_id = '__TX__';
    body.data.customer_id = '__CUST__';
    const res = await fetch(`${s.origin}/api/mica/evaluate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${emptyKey}` },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`probe evaluation answered ${res.status}: ${text}`);
    const parsed = JSON.parse(text) as {
      evaluation_id: string;
      timestamp: string;
      results: Array<{ rule_id: string }>;
    };
    template = {
      request: JSON.stringify(body),
      response: text.replaceAll(parsed.evaluation_id, '__ID__').replaceAll(parsed.timestamp, '__TS__'),
      ruleIds: parsed.results.map((r) => r.rule_id),
    };
    await stop(s.child);
  }

  // 2. The loaded store (kept between runs unless SCALE_RELOAD=1).
  let info = process.env.SCALE_RELOAD ? undefined : await loaded(scaleUrl).catch(() => undefined);
  if (!info) {
    log(
      `loading ${int(ROWS)} rows into ${SCALE_DB} (${CLIENTS} clients, ${CUSTOMERS} customers each, ${MONTHS} months)`,
    );
    const url = await resetBenchDatabase(ADMIN_URL, SCALE_DB);
    await prepare(url, true);
    await load(url, template);
    info = (await loaded(url))!;
  } else log(`reusing ${int(info.rows)} rows loaded in ${SCALE_DB}`);
  const scaleKey = await prepare(scaleUrl, false);

  // 3. Evaluation latency, empty and loaded in turn; the audit API on the loaded store.
  let queries:
    | {
        customer: Awaited<ReturnType<typeof auditQueries>>;
        transaction: Awaited<ReturnType<typeof auditQueries>>;
      }
    | undefined;
  const month = lastFullMonth();
  const range = `from=${month.from.toISOString()}&to=${month.to.toISOString()}`;
  for (let round = 1; round <= ROUNDS; round++) {
    for (const store of ['empty', 'loaded'] as const) {
      const s = await startServer(store === 'empty' ? emptyUrl : scaleUrl);
      log(`round ${round}: paced evaluations on the ${store} store`);
      runs.push({
        store,
        round,
        paced: await pacedEvaluations(s.origin, store === 'empty' ? emptyKey : scaleKey, s.child.pid),
      });
      if (store === 'loaded' && round === 1) {
        log('audit API queries by customer and by transaction over one month');
        const customers = Array.from(
          { length: QUERIES },
          () => `cust-${Math.floor(Math.random() * CUSTOMERS)}`,
        );
        queries = {
          customer: await auditQueries(
            s.origin,
            scaleKey,
            customers.map((c) => `/api/mica/audit/evaluations?customer_id=${c}&${range}`),
          ),
          transaction: await auditQueries(
            s.origin,
            scaleKey,
            benchTransactions(month, QUERIES).map(
              (t) => `/api/mica/audit/evaluations?transaction_id=${t}&${range}`,
            ),
          ),
        };
      }
      await stop(s.child);
    }
  }
  const repo = {
    customer: await repoQueries(
      scaleUrl,
      Array.from({ length: QUERIES }, () => ({
        client_id: BENCH_CLIENT,
        customer_id: `cust-${Math.floor(Math.random() * CUSTOMERS)}`,
        from: month.from,
        to: month.to,
      })),
    ),
    transaction: await repoQueries(
      scaleUrl,
      benchTransactions(month, QUERIES).map((t) => ({
        client_id: BENCH_CLIENT,
        transaction_id: t,
        from: month.from,
        to: month.to,
      })),
    ),
  };
  const plans = {
    customer: await explain(scaleUrl, {
      client_id: BENCH_CLIENT,
      customer_id: 'cust-4242',
      from: month.from,
      to: month.to,
    }),
    transaction: await explain(scaleUrl, {
      client_id: BENCH_CLIENT,
      transaction_id: benchTransactions(month, 1)[0],
      from: month.from,
      to: month.to,
    }),
  };

  // 4. The report.
  const pg = await postgresVersion(scaleUrl);
  const byStore = (store: 'empty' | 'loaded', pick: (p: PacedResult) => number) => {
    const xs = runs.filter((r) => r.store === store).map((r) => pick(r.paced));
    return xs.reduce((a, b) => a + b, 0) / xs.length;
  };
  const change = (pick: (p: PacedResult) => number) =>
    (byStore('loaded', pick) / byStore('empty', pick) - 1) * 100;
  const p50Change = change((p) => p.latency.p50);
  const p99Change = change((p) => p.latency.p99);
  const q = queries!;
  const lines = [
    '## Audit store at scale (10 million rows)',
    '',
    `\`npm run bench:audit-scale\` (bench/audit-scale.ts; method in bench/README.md). Targets: a filtered audit query by customer or transaction over one month ≤ 50 ms; evaluation latency with the rows loaded within 20 % of an empty store.`,
    '',
    ...machineLines(loadStart, pg),
    '',
    '### The loaded store',
    '',
    '| | |',
    '|---|---|',
    `| Rows | ${int(info.rows)} evaluations (${CLIENTS} clients, ${int(CUSTOMERS)} customers each; 85 % transactions, 15 % periodic), ${info.from.slice(0, 10)} → ${info.to.slice(0, 10)}, ${info.partitions} partitions incl. default; ${int(Math.round(info.windowRows))} window rows (customer_transactions) |`,
    `| Load time | ${f(info.loadS, 0)} s (${int(Math.round(info.rows / info.loadS))} rows/s): INSERT … SELECT FROM generate_series on the server, one statement per month, indexes in place, then VACUUM ANALYZE |`,
    `| Disk | database ${f(info.databaseBytes / 2 ** 30, 2)} GiB, of which evaluations with indexes and TOAST ${f(info.evaluationsBytes / 2 ** 30, 2)} GiB (${f(info.evaluationsBytes / info.rows, 0)} bytes per row) |`,
    '| Hash chain | synthetic prev_hash/row_hash: not a valid chain (verify reports a break at the first row); rows made by the server during the run are linked normally |',
    '',
    '### Audit API, one month, loaded store',
    '',
    `Method: ${q.customer.n} sequential \`GET /api/mica/audit/evaluations?customer_id=…&from=…&to=…\` (random customers of the bench client, the previous calendar month, default page of 100 rule rows), then ${q.transaction.n} with \`transaction_id=…\` (random transactions of that month); one keep-alive connection, 20 unmeasured first; client-side time from request to the last byte of the JSON body, ms.`,
    '',
    '| Filter | p50 / p90 / p99 / p99.9 / max ms | rule rows per answer (mean) | non-200 | ≤ 50 ms (p99) |',
    '|---|---|---|---|---|',
    `| customer | ${pcts(q.customer.latency)} | ${f(q.customer.rows / q.customer.n)} | ${q.customer.non200} | ${verdict(q.customer.latency.p99 <= 50)} |`,
    `| transaction | ${pcts(q.transaction.latency)} | ${f(q.transaction.rows / q.transaction.n)} | ${q.transaction.non200} | ${verdict(q.transaction.latency.p99 <= 50)} |`,
    '',
    `The database's share: the same filters (${QUERIES} new random ones each) through the audit repository alone, in the bench process on one connection, after the servers stopped (no HTTP, auth or rendering), ms:`,
    '',
    '| Filter | p50 / p90 / p99 / p99.9 / max ms |',
    '|---|---|',
    `| customer | ${pcts(repo.customer)} |`,
    `| transaction | ${pcts(repo.transaction)} |`,
    '',
    '### Evaluation latency, empty vs loaded',
    '',
    `Method: bench/paced.ts, open loop at ${RATE} req/s for ${DURATION} s after a 3 s warm-up, 64 connections, transaction evaluations of bench/payload.ts (1,000 customers, each evaluation reads the rolling window and writes its audit and window rows); a fresh server process per run, no Redis; runs alternate empty, loaded, ${ROUNDS} rounds. The empty store is \`${EMPTY_DB}\` (reset at the start), the loaded one \`${SCALE_DB}\`. Latency: dispatch → last byte, ms.`,
    '',
    '| Round | Store | p50 / p90 / p99 / p99.9 / max ms | Requests |',
    '|---|---|---|---|',
    ...runs.map((r) => `| ${r.round} | ${r.store} | ${pcts(r.paced.latency)} | ${pacedNote(r.paced)} |`),
    '',
    `Change loaded vs empty (mean of the rounds): p50 ${p50Change >= 0 ? '+' : ''}${f(p50Change)} %, p99 ${p99Change >= 0 ? '+' : ''}${f(p99Change)} % — target < 20 %: ${verdict(Math.abs(p50Change) < 20)} (p50)${Math.abs(p99Change) < 20 ? ', MET at p99 too' : ', p99 is the noisier figure on a shared machine'}.`,
    '',
    '### Plans (EXPLAIN (ANALYZE, BUFFERS) of the SQL the audit repository sends)',
    '',
    'By customer, one month:',
    '',
    '```text',
    ...plans.customer,
    '```',
    '',
    'By transaction, one month:',
    '',
    '```text',
    ...plans.transaction,
    '```',
  ];
  const file = writeBenchSection('audit-scale', lines);
  log(`written to ${file}`);
  const failed =
    runs.some((r) => r.paced.non2xx + r.paced.errors > 0) || q.customer.non200 + q.transaction.non200 > 0;
  return failed ? 1 : 0;
}

runMain('audit-scale', main);
