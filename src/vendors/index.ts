import { Agent } from 'undici';
import { type Config, redisPrefix } from '../config.ts';
import type { Chain, RiskPart, VendorName } from '../domain/screening/index.ts';
import { sha256Hex } from '../domain/sha256.ts';
import { type BreakerState, createBreakers, createMemoryBreakerStore } from './breaker.ts';
import { withLocalFallback } from './breaker-fallback.ts';
import { createRedisBreakerStore } from './breaker-redis.ts';
import { VendorCallError } from './http.ts';
import type { VendorClient, VendorSettings } from './vendor.ts';
import { createVendorAClient } from './vendor-a/client.ts';
import { createVendorBClient } from './vendor-b/client.ts';
import { createVendorCClient } from './vendor-c/client.ts';

export { BreakerOpenError } from './breaker.ts';
export type { VendorClient } from './vendor.ts';

export const VENDOR_NAMES: readonly VendorName[] = ['vendor_a', 'vendor_b', 'vendor_c'];

/** Spec: a breaker opens after 5 consecutive failures. */
export const FAILURE_THRESHOLD = 5;

/**
 * A vendor gave no usable answer; `state` is its breaker's state after counting that. The message
 * may be shown to the caller; `received` (what could not be read) is for the server log only.
 */
export class VendorFailedError extends Error {
  constructor(
    readonly vendor: VendorName,
    readonly state: BreakerState,
    reason: string,
    readonly received?: string,
  ) {
    super(reason);
  }
}

/** How one vendor's call of a screening ended. */
export type VendorOutcome =
  | { vendor: VendorName; ok: true; risk: RiskPart }
  | { vendor: VendorName; ok: false; error: VendorFailedError };

type VendorConfig = Pick<
  Config,
  | 'VENDOR_A_URL'
  | 'VENDOR_A_KEY'
  | 'VENDOR_B_URL'
  | 'VENDOR_B_KEY'
  | 'VENDOR_C_URL'
  | 'VENDOR_C_KEY'
  | 'VENDOR_TIMEOUT_MS'
  | 'BREAKER_RECOVERY_MS'
  | 'REDIS_URL'
  | 'MICA_ENVIRONMENT'
>;

/**
 * The configured vendors (URL set = used), each behind its breaker. With Redis the breakers are
 * shared by every instance calling the same vendor URL; otherwise each instance has its own.
 */
export function createVendors(
  config: VendorConfig,
  opts: { now?: () => number; onError?: (err: unknown) => void } = {},
) {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 256 });
  const configured: Record<VendorName, [string | undefined, string | undefined]> = {
    vendor_a: [config.VENDOR_A_URL, config.VENDOR_A_KEY],
    vendor_b: [config.VENDOR_B_URL, config.VENDOR_B_KEY],
    vendor_c: [config.VENDOR_C_URL, config.VENDOR_C_KEY],
  };
  const factories = {
    vendor_a: createVendorAClient,
    vendor_b: createVendorBClient,
    vendor_c: createVendorCClient,
  };
  const clients: VendorClient[] = [];
  for (const name of VENDOR_NAMES) {
    const [url, key] = configured[name];
    if (!url) continue;
    const settings: VendorSettings = { url, key: key ?? '', timeoutMs: config.VENDOR_TIMEOUT_MS, dispatcher };
    clients.push(factories[name](settings));
  }
  const shared = Boolean(config.REDIS_URL) && clients.length > 0;
  const store = shared
    ? withLocalFallback(createRedisBreakerStore(config.REDIS_URL!), opts.onError)
    : createMemoryBreakerStore();
  // One breaker guards one endpoint: instances calling the same URL share it, other URLs do not.
  // Worked out once: a screening admits all three breakers and settles each, six hashes otherwise.
  const breakerKeys = new Map(
    VENDOR_NAMES.map((name) => [
      name,
      `${redisPrefix(config.MICA_ENVIRONMENT)}breaker:${name}:${sha256Hex(configured[name][0] ?? '').slice(0, 16)}`,
    ]),
  );
  const keyOf = (name: VendorName) => breakerKeys.get(name)!;
  const breakers = createBreakers({
    names: VENDOR_NAMES,
    keyOf,
    store,
    options: { failureThreshold: FAILURE_THRESHOLD, recoveryMs: config.BREAKER_RECOVERY_MS },
    now: opts.now,
    onError: opts.onError,
  });

  /** Calls one admitted vendor and settles its breaker with the outcome. */
  async function callOne(
    client: VendorClient,
    permit: { name: VendorName; trial: boolean },
    address: string,
    chain: Chain,
  ) {
    try {
      const part = await client.screen(address, chain);
      await breakers.settle(permit, 'success');
      return part;
    } catch (err) {
      const outcome = err instanceof VendorCallError ? err.outcome : 'failure';
      await breakers.settle(permit, outcome);
      const state = (await breakers.status().catch(() => undefined))?.[client.name].state ?? 'CLOSED';
      const received = err instanceof VendorCallError ? err.received : undefined;
      throw new VendorFailedError(client.name, state, (err as Error).message, received);
    }
  }

  /**
   * Every configured vendor's call, in parallel, each settled with its breaker once; throws
   * BreakerOpenError (no vendor called) when a breaker refuses. Each call is bounded by
   * VENDOR_TIMEOUT_MS, so this is too.
   */
  async function screenEach(address: string, chain: Chain): Promise<VendorOutcome[]> {
    const permits = await breakers.admit(clients.map((c) => c.name));
    const settled = await Promise.allSettled(clients.map((c, i) => callOne(c, permits[i]!, address, chain)));
    return settled.map((s, i): VendorOutcome => {
      const vendor = clients[i]!.name;
      if (s.status === 'fulfilled') return { vendor, ok: true, risk: s.value };
      const error =
        s.reason instanceof VendorFailedError
          ? s.reason
          : new VendorFailedError(vendor, 'CLOSED', String((s.reason as Error)?.message ?? s.reason));
      return { vendor, ok: false, error };
    });
  }

  return {
    /** Names of the vendors in use. */
    names: clients.map((c) => c.name),
    breakers,
    screenEach,
    async close() {
      await store.close();
      await dispatcher.close();
    },
  };
}
export type Vendors = ReturnType<typeof createVendors>;
