import pg from 'pg';
import { isDatabaseUnreachable } from './store-errors.ts';

/**
 * Waits until PostgreSQL accepts a connection, so that an instance started during an outage
 * comes up when the database does (as a running one recovers by itself) instead of exiting.
 * Anything but an unreachable database (a refused login, no such database) ends the wait at once.
 */
export async function waitForDatabase(
  connectionString: string,
  log: { warn: (o: object, msg: string) => void; info: (o: object, msg: string) => void },
  opts: { retryMs?: number } = {},
): Promise<void> {
  const retryMs = opts.retryMs ?? 2000;
  let warnedAt = Number.NEGATIVE_INFINITY;
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
    // A connection that ends after connect emits 'error': unhandled, it would end the process.
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      if (attempt > 1) log.info({ attempts: attempt }, 'database reachable: starting');
      return;
    } catch (e) {
      if (!isDatabaseUnreachable(e)) throw e;
      // Said at the first failure, then about once a minute.
      if (Date.now() - warnedAt >= 60_000) {
        warnedAt = Date.now();
        log.warn(
          { attempts: attempt, error: (e as Error).message },
          'database unreachable at start: waiting for it',
        );
      }
    } finally {
      await client.end().catch(() => {});
    }
    await new Promise((r) => setTimeout(r, retryMs));
  }
}
