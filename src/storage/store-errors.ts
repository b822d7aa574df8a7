/** How the errors of a lost store read: PostgreSQL (pg), the embedded engine, Redis (ioredis). */

const codeOf = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};
const messageOf = (err: unknown) => {
  const msg = (err as { message?: unknown } | null)?.message;
  return typeof msg === 'string' ? msg : '';
};

/**
 * A lost or refused connection (server restarting, network), not a fault of the request: SQLSTATE
 * classes 08 (connection exception) and 57P (operator intervention: shutdown, crash recovery),
 * socket errors, and the messages of pg and ioredis for a closed or silent connection.
 */
export function isStoreUnavailable(err: unknown): boolean {
  const code = codeOf(err);
  if (/^(08|57P)/.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(code))
    return true;
  return /Connection terminated|connection (?:is )?closed|Client has encountered a connection error|embedded database stopped|timeout exceeded when trying to connect|redis unavailable|Command timed out|max retries per request/i.test(
    messageOf(err),
  );
}

/** Redis away (lost, or not answering: see redis-health.ts): the shared cache, not the database. */
export function isCacheUnavailable(err: unknown): boolean {
  return /redis unavailable|Command timed out|max retries per request/i.test(messageOf(err));
}

/**
 * A connection refused or never made: no statement reached the store. Otherwise (a connection cut
 * while a statement was in flight) the store may have committed it without the acknowledgement
 * arriving: its outcome is unknown.
 */
export function neverReachedStore(err: unknown): boolean {
  if (['ECONNREFUSED', '57P03', '08001', '08004'].includes(codeOf(err))) return true;
  return /timeout exceeded when trying to connect|redis unavailable/i.test(messageOf(err));
}

/** A database host that cannot be reached or resolved yet (a container not up): worth waiting for at start. */
export function isDatabaseUnreachable(err: unknown): boolean {
  return (
    isStoreUnavailable(err) ||
    ['ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH'].includes(codeOf(err)) ||
    /timeout expired/i.test(messageOf(err))
  );
}

/** A deadlock or serialization failure: the transaction was rolled back and may simply run again. */
export function isTransientConflict(err: unknown): boolean {
  const code = codeOf(err);
  return code === '40001' || code === '40P01';
}

/**
 * Runs a transaction again (up to `attempts` times in all) when PostgreSQL rolled it back for a
 * deadlock or a serialization failure: the caller must not get a 500 for two transactions that
 * crossed (e.g. a case moved while its officer is removed). `run` must be safe to repeat: each
 * attempt is a new transaction that re-reads what it locks.
 */
export async function retryConflicts<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= attempts || !isTransientConflict(e)) throw e;
    }
  }
}
