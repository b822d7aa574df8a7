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
