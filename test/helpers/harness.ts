import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createDeps, type Deps } from '../../src/deps.ts';
import { openDatabase } from '../../src/storage/db.ts';

/** Which real components this run uses: embedded by default; PostgreSQL/Redis when their URLs are set. */
export const TEST_DATABASE_URL = process.env.DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.REDIS_URL || undefined;

/** A fresh, empty store: an in-memory PGlite, or a PostgreSQL schema emptied for this test file. */
export async function freshDatabase() {
  if (!TEST_DATABASE_URL) return openDatabase({ dataDir: 'memory://' });
  const handle = await openDatabase({ databaseUrl: TEST_DATABASE_URL, poolSize: 5 });
  await sql`DROP SCHEMA IF EXISTS public CASCADE`.execute(handle.db);
  await sql`CREATE SCHEMA public`.execute(handle.db);
  return handle;
}

export interface TestApp {
  app: FastifyInstance;
  deps: Deps;
  config: Config;
  close(): Promise<void>;
}

/** Builds the real app over a fresh store, in-process (requests through app.inject). */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const config = loadConfig({
    MICA_DEMO_SEED: 'false',
    LOG_LEVEL: 'silent',
    AUTH_CACHE_MS: '0',
    // Tests send many requests per client; the limits themselves are tested with their own settings.
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_BURST_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_DAY: '100000000',
    ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {}),
    ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
    ...env,
  });
  const deps = await createDeps(config, { database: await freshDatabase() });
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  return {
    app,
    deps,
    config,
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

/** Creates a client and returns an API key for it. */
export async function clientWithKey(
  t: TestApp,
  clientId: string,
  opts: { role?: 'standard' | 'admin'; sandbox?: boolean; settings?: Record<string, unknown> } = {},
) {
  if (!(await t.deps.clients.get(clientId)))
    await t.deps.clients.create(clientId, { actor: 'test', settings: opts.settings });
  const k = await t.deps.keys.create(clientId, { role: opts.role, sandbox: opts.sandbox, actor: 'test' });
  return { clientId, key: k.key, keyId: k.key_id, auth: { authorization: `Bearer ${k.key}` } };
}
