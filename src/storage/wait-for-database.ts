import pg from 'pg';

/** Connection failures a database coming back will cure; anything else (a bad password, no such database) is not waited on. */
function isUnreachable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (
    /^(08|57P)/.test(code) ||
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code)
  )
    return true;
  const msg = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|timeout expired|connection (?:is )?closed/i.test(msg);
}

/**
 * Waits until PostgreSQL accepts a connection, so that an instance started during an outage
 * comes up when the database does (as a running one recovers by itself) instead of exiting.
 */
export async function waitForDatabase(
  connectionString: string,
  log: { warn: (o: object, msg: string) => void; info: (o: object, msg: string) => void },
  opts: { retryMs?: number } = {},
): Promise<void> {
  const retryMs = opts.retryMs ?? 2000;
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      if (attempt > 1) log.info({ attempts: attempt }, 'database reachable: starting');
      return;
    } catch (e) {
      if (!isUnreachable(e)) throw e;
      // Said at the first failure, then about once a minute.
      if (attempt === 1 || (attempt * retryMs) % 60_000 < retryMs)
        log.warn(
          { attempts: attempt, error: (e as Error).message },
          'database unreachable at start: waiting for it',
        );
    } finally {
      await client.end().catch(() => {});
    }
    await new Promise((r) => setTimeout(r, retryMs));
  }
}
