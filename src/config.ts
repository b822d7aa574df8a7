import { isIP } from 'node:net';
import { Cron } from 'croner';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';

/** Environment variables the service reads; everything else is a per-client setting in the database. */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * The schema owner's connection, used only to apply migrations, when DATABASE_URL connects as
   * the restricted role (mica_app member: may not UPDATE, DELETE or TRUNCATE audit rows). Unset:
   * migrations run on DATABASE_URL.
   */
  DATABASE_MIGRATION_URL: Type.Optional(Type.String({ minLength: 1 })),
  REDIS_URL: Type.Optional(Type.String({ minLength: 1 })),
  /** Most entries of the result caches, in process or in Redis (shared): least recently used go first. */
  CACHE_MAX_ENTRIES: Type.Integer({ minimum: 1, default: 100_000 }),
  MICA_DATA_DIR: Type.String({ default: './data' }),
  MICA_ENVIRONMENT: Type.Union([Type.Literal('live'), Type.Literal('sandbox')], { default: 'live' }),
  MICA_OPERATOR_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  /** Largest accepted request body; the contract fixes 1 MiB. */
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  /** Group commit: most evaluations written in one transaction. */
  AUDIT_MAX_BATCH: Type.Integer({ minimum: 1, maximum: 5000, default: 512 }),
  /**
   * Group commit: batches in flight at once. On the embedded store they queue on its one session in
   * order, so the next batch is built while one commits; on PostgreSQL batches of one client take turns.
   */
  AUDIT_MAX_IN_FLIGHT: Type.Integer({ minimum: 1, maximum: 32, default: 2 }),
  /**
   * A second batch goes in flight only when this many evaluations wait: at moderate load they
   * wait for the batch in flight and go together, cheaper than another small statement.
   */
  AUDIT_EXTRA_FLUSH_AT: Type.Integer({ minimum: 1, maximum: 5000, default: 16 }),
  /** How long a key or client lookup is trusted before the database is asked again. */
  AUTH_CACHE_MS: Type.Integer({ minimum: 0, default: 1000 }),
  /** Limits of a client whose settings set none (CONTRACT: 100/min, bursts to 200/min, 10,000/day). */
  RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, default: 100 }),
  RATE_LIMIT_BURST_PER_MINUTE: Type.Integer({ minimum: 1, default: 200 }),
  RATE_LIMIT_PER_DAY: Type.Integer({ minimum: 1, default: 10_000 }),
  MICA_DEMO_SEED: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'true' }),
  /** Wallet-screening vendors (CONTRACT §7): a vendor is used when its URL is set. */
  VENDOR_A_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  VENDOR_A_KEY: Type.Optional(Type.String()),
  VENDOR_B_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  VENDOR_B_KEY: Type.Optional(Type.String()),
  VENDOR_C_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  VENDOR_C_KEY: Type.Optional(Type.String()),
  /** Per-call vendor timeout; a call that takes longer is aborted and counts as a failure. */
  VENDOR_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 2000 }),
  /** Circuit-breaker recovery time (the spec's 30 s; shorter only in tests). */
  BREAKER_RECOVERY_MS: Type.Integer({ minimum: 1, default: 30_000 }),
  /** How often, at most, the stored sanctions-list versions are checked for an import made elsewhere. */
  SANCTIONS_REFRESH_MS: Type.Integer({ minimum: 0, default: 5000 }),
  /**
   * AES-256-GCM key sealing webhook secrets at rest: 32 bytes as 64 hex digits or base64. Unset: a
   * key generated once, in MICA_DATA_DIR/secret.key (embedded) or the service_settings table (PostgreSQL).
   */
  MICA_SECRET_KEY: Type.Optional(Type.String({ pattern: '^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$' })),
  /** Webhook limits of the spec: all kinds together, and each vendor kind (CONTRACT: 1,000 and 500 per minute). */
  WEBHOOK_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, default: 1000 }),
  WEBHOOK_RATE_LIMIT_PER_KIND_PER_MINUTE: Type.Integer({ minimum: 1, default: 500 }),
  /** Deliveries of a kind not verified (failed signatures, and those in flight), per source (IPv6: per /64) and minute, before it is refused unheard. */
  WEBHOOK_UNVERIFIED_PER_MINUTE: Type.Integer({ minimum: 1, default: 100 }),
  /**
   * Which proxies in front of the service to believe about the client's address (X-Forwarded-For):
   * unset or 'false' none, 'true' all, a number of hops, or addresses and CIDR ranges, comma-separated.
   */
  TRUST_PROXY: Type.Optional(Type.String({ minLength: 1 })),
  /** When the server runs the STR sweep (cron pattern; 'off' to leave it to `mica jobs run str-sweep`). */
  STR_SWEEP_CRON: Type.String({ minLength: 1, default: '*/15 * * * *' }),
  /** Daily audit care: partitions ahead, retention, chain checkpoints ('off' disables it). */
  AUDIT_MAINTENANCE_CRON: Type.String({ minLength: 1, default: '17 2 * * *' }),
});

export type Config = Readonly<
  Omit<Static<typeof EnvSchema>, 'MICA_DEMO_SEED'> & {
    MICA_DEMO_SEED: boolean;
    storage: 'postgres' | 'pglite';
  }
>;

export class ConfigError extends Error {}

/**
 * Where this environment's keys live in Redis: the sandbox under a prefix of its own, so a sandbox
 * started on the live service's Redis neither spends the live rate limits, nor reads live's cached
 * screenings, nor opens live's vendor breakers (CONTRACT §1: the sandbox has its own storage).
 * Live keeps `mica:`, where its keys have always been.
 */
export function redisPrefix(environment: Config['MICA_ENVIRONMENT']): string {
  return environment === 'sandbox' ? 'mica:sandbox:' : 'mica:';
}

/** The proxy-addr names Fastify accepts beside addresses and ranges. */
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isTrustProxy(v: string): boolean {
  if (v === 'true' || v === 'false' || /^\d{1,2}$/.test(v)) return true;
  return v.split(',').every((part) => {
    const p = part.trim();
    if (PROXY_NAMES.has(p)) return true;
    const [address, bits, ...rest] = p.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || rest.length > 0) return false;
    if (bits === undefined) return true;
    return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
  });
}

/** Parses the environment once; the frozen result is passed down, never read globally. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const v = env[key];
    if (v !== undefined && v !== '') raw[key] = v;
  }
  const withDefaults = Value.Default(EnvSchema, Value.Convert(EnvSchema, raw));
  if (!Value.Check(EnvSchema, withDefaults)) {
    const errs = [...Value.Errors(EnvSchema, withDefaults)].map(
      (e) => `${e.instancePath.replace(/^\//, '') || 'env'}: ${e.message}`,
    );
    throw new ConfigError(`invalid environment: ${errs.join('; ')}`);
  }
  const parsed = withDefaults as Static<typeof EnvSchema>;
  if (parsed.TRUST_PROXY !== undefined && !isTrustProxy(parsed.TRUST_PROXY))
    throw new ConfigError(
      `invalid environment: TRUST_PROXY: expected true, false, a number of hops, or addresses and CIDR ranges (comma-separated): ${JSON.stringify(parsed.TRUST_PROXY)}`,
    );
  // A pattern croner refuses is refused here, before a start creates anything (the demo client and
  // its key, printed once, were created and then the start failed on the schedule).
  for (const key of ['STR_SWEEP_CRON', 'AUDIT_MAINTENANCE_CRON'] as const) {
    const pattern = parsed[key];
    if (pattern === 'off') continue;
    try {
      new Cron(pattern, { paused: true }).stop();
    } catch (e) {
      throw new ConfigError(
        `invalid environment: ${key}: ${(e as Error).message} (a cron pattern such as '*/15 * * * *', or 'off'): ${JSON.stringify(pattern)}`,
      );
    }
  }
  return Object.freeze({
    ...parsed,
    MICA_DEMO_SEED: parsed.MICA_DEMO_SEED === 'true',
    storage: parsed.DATABASE_URL ? 'postgres' : 'pglite',
  });
}
