import { resolve } from 'node:path';
import { type CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { sha256Hex } from '../domain/sha256.ts';
import { startEmbeddedAnalyze } from './embedded-analyze.ts';
import { embeddedDialect, PGliteWorkerClient } from './pglite-driver.ts';
import { ensurePrivateDir } from './private-dir.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Concurrent transactions the engine can run usefully (PGlite has one connection). */
  maxConcurrency: number;
  /**
   * Runs a hot statement as a named prepared statement where the engine keeps plans per session
   * (PostgreSQL): planning a batch statement with a dozen expressions cost more than executing a
   * small batch. The name is derived from the text, so each distinct text is its own statement.
   */
  executePrepared<R>(query: CompiledQuery): Promise<{ rows: R[] }>;
  close(): Promise<void>;
}

// BIGINT counts and NUMERIC sums come back as strings from pg; our values fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/**
 * Names of prepared statements, derived from their text, so each distinct text is its own statement.
 * The map only saves hashing a text again (cleared past 1,000 entries); sessions keep every
 * statement they prepared, which is fine because the hot texts are a handful.
 */
function statementNames(): (text: string) => string {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (!name) {
      if (names.size >= 1000) names.clear();
      name = statementName(text);
      names.set(text, name);
    }
    return name;
  };
}

/** The name under which executePrepared prepares a statement text. */
export function statementName(text: string): string {
  return `mica_${sha256Hex(text).slice(0, 24)}`;
}

/** How long a session keeps the plans of its prepared statements (PostgreSQL; see executePrepared). */
const PLAN_LIFETIME_MS = 10_000;

/** Opens PostgreSQL when a URL is given, else the embedded PGlite store under dataDir. */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir?: string;
  poolSize?: number;
  /** Embedded store: how often grown tables are analyzed (see embedded-analyze.ts). */
  analyzeIntervalMs?: number;
  /** Embedded store: told of an analysis round that failed (it is retried at the next round). */
  onAnalyzeError?: (err: unknown) => void;
  /** PostgreSQL: how long a session keeps the plans of its prepared statements (see executePrepared). */
  planLifetimeMs?: number;
}): Promise<DatabaseHandle> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      // A server that is gone must fail a request (503) rather than hold it: bounded connect time,
      // and TCP keepalive so a silently dropped connection is noticed.
      connectionTimeoutMillis: 5000,
      keepAlive: true,
    });
    // A client that loses its server must not crash the process: the pool listens to idle ones
    // only, and a checked-out client emits 'error' too (its query is failed separately).
    pool.on('error', () => {});
    pool.on('connect', (client) => {
      client.on('error', () => {});
      // Prepared batch statements (executePrepared) keep one generic plan per session: with the
      // default, a plan whose parameters are JSON documents was planned again for every batch.
      // No JIT: it compiles a plan whose estimated cost passes jit_above_cost (100,000) at every
      // execution, tens of milliseconds for the audit batch statement (a dozen CTEs). Its generic
      // plan is estimated at ~64,000 on a store without statistics and crosses the line as tables
      // grow: evaluations then cost PostgreSQL 3 ms of CPU each instead of 0.3 (bench/RESULTS.md).
      // Every statement here is short; none runs long enough to repay a compilation.
      client.query('SET plan_cache_mode = force_generic_plan; SET jit = off').catch(() => {});
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const nameOf = statementNames();
    const plannedAt = new WeakMap<pg.PoolClient, number>();
    const planLifetimeMs = opts.planLifetimeMs ?? PLAN_LIFETIME_MS;
    return {
      db,
      kind: 'postgres',
      maxConcurrency: opts.poolSize ?? 10,
      executePrepared: async <R>(q: CompiledQuery) => {
        const client = await pool.connect();
        let failed: Error | undefined;
        try {
          // A generic plan is kept until something invalidates it: one made while a table was
          // small (a fresh database) kept scanning it whole as it grew, until autovacuum's next
          // analysis, whenever that came (webhook intake p99 at 500/s: 5 ms in one run, 23-34 ms
          // in others). Plans are made again after a while, at the table sizes of the moment.
          const planned = plannedAt.get(client);
          if (planned === undefined || Date.now() - planned > planLifetimeMs) {
            if (planned !== undefined) await client.query('DISCARD PLANS');
            plannedAt.set(client, Date.now());
          }
          const res = await client.query({
            name: nameOf(q.sql),
            text: q.sql,
            values: q.parameters as unknown[],
          });
          return { rows: res.rows as R[] };
        } catch (e) {
          failed = e as Error;
          throw e;
        } finally {
          // As pool.query does: a session that failed a statement is not lent again (it may be broken).
          client.release(failed);
        }
      },
      close: () => db.destroy(),
    };
  }
  const dir = opts.dataDir === 'memory://' ? 'memory://' : resolve(opts.dataDir ?? './data', 'pgdata');
  if (dir !== 'memory://') {
    ensurePrivateDir(resolve(dir, '..'));
    ensurePrivateDir(dir, { close: true });
  }
  // The embedded engine runs on its own thread, so SQL uses the second core while this one serves
  // HTTP. Its driver lends the single session to one Kysely caller (query or transaction) at a
  // time; prepared statements (executePrepared) are sent at once and wait only for a transaction.
  const client = new PGliteWorkerClient(dir === 'memory://' ? undefined : dir);
  await client.ready();
  const { dialect, runPipelined } = embeddedDialect(client);
  const db = new Kysely<Database>({ dialect });
  const nameOf = statementNames();
  // Statistics, as autovacuum would keep them (the embedded engine has none).
  const analyze = startEmbeddedAnalyze(db, opts.analyzeIntervalMs ?? 5000, opts.onAnalyzeError);
  // Kysely tears down only a driver it has used, so the engine's thread is stopped here as well.
  return {
    db,
    kind: 'pglite',
    maxConcurrency: 1,
    // Sent to the engine at once, behind whatever it is running, but never inside a transaction.
    executePrepared: async <R>(q: CompiledQuery) => ({
      rows: (await runPipelined(q.sql, q.parameters, nameOf(q.sql))).rows as R[],
    }),
    close: async () => {
      await analyze.stop();
      await db.destroy();
      await client.close();
    },
  };
}
