import type { Redis } from 'ioredis';

/** How long after a failed probe the next PING is sent while Redis does not answer. */
const PROBE_INTERVAL_MS = 1000;

export interface RedisHealth {
  /** Throws at once when a command now would fail or wait for its timeout. */
  check(): void;
  /** Told of a failed command: a timeout holds the connection away until a PING is answered. */
  failed(err: unknown): void;
  /** A command's promise, its failure told to failed(). */
  watch<T>(command: Promise<T>): Promise<T>;
}

const isTimeout = (err: unknown) => err instanceof Error && /Command timed out/.test(err.message);

/**
 * Whether a Redis connection is worth a command. ioredis knows a lost connection (its status), but
 * not a Redis that stopped answering on an open one (frozen, or a partition that drops packets):
 * there every command waits its whole commandTimeout, several per request for the whole outage.
 * So after one such timeout the connection is held away: commands fail at once and their callers
 * fall back in process without waiting, while one PING at a time tells when Redis answers again.
 *
 * `lost`: the connection statuses in which a command would fail or queue behind reconnection.
 */
export function createRedisHealth(client: Redis, lost: (status: string) => boolean): RedisHealth {
  let away = false;

  function probe(): void {
    const timer = setTimeout(() => {
      client.ping().then(
        () => {
          away = false;
        },
        () => probe(),
      );
    }, PROBE_INTERVAL_MS);
    timer.unref();
  }

  const health: RedisHealth = {
    check() {
      if (lost(client.status)) throw new Error(`redis unavailable (${client.status})`);
      if (away) throw new Error('redis unavailable (not answering)');
    },
    failed(err) {
      if (away || !isTimeout(err)) return;
      away = true;
      probe();
    },
    watch(command) {
      return command.catch((err: unknown) => {
        health.failed(err);
        throw err;
      });
    },
  };
  return health;
}
