import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { embeddedDialect, PGliteWorkerClient } from './pglite-driver.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Concurrent transactions the engine can run usefully (PGlite has one connection). */
  maxConcurrency: number;
  close(): Promise<void>;
}

// BIGINT counts and NUMERIC sums come back as strings from pg; our values fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/** Opens PostgreSQL when a URL is given, else the embedded PGlite store under dataDir. */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir?: string;
  poolSize?: number;
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
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', maxConcurrency: opts.poolSize ?? 10, close: () => db.destroy() };
  }
  const dir = opts.dataDir === 'memory://' ? 'memory://' : resolve(opts.dataDir ?? './data', 'pgdata');
  if (dir !== 'memory://') mkdirSync(dir, { recursive: true });
  // The embedded engine runs on its own thread, so SQL uses the second core while this one serves
  // HTTP; its driver lends the single session to one caller (query or transaction) at a time.
  const client = new PGliteWorkerClient(dir === 'memory://' ? undefined : dir);
  await client.ready();
  const db = new Kysely<Database>({ dialect: embeddedDialect(client) });
  // Kysely tears down only a driver it has used, so the engine's thread is stopped here as well.
  return {
    db,
    kind: 'pglite',
    maxConcurrency: 1,
    close: async () => {
      await db.destroy();
      await client.close();
    },
  };
}
