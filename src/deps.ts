import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { createMemoryCache } from './cache/memory.cache.ts';
import { createRedisCache } from './cache/redis.cache.ts';
import { type Config, redisPrefix } from './config.ts';
import { createCaseDeps } from './deps-cases.ts';
import { AppError } from './errors.ts';
import type { ReadinessCheck } from './http/routes/health.routes.ts';
import { createAuditMaintenance } from './jobs/audit-maintenance.ts';
import { createJobs } from './jobs/jobs.ts';
import { createMetrics } from './observability/metrics.ts';
import { createActionAuditService } from './services/action-audit.service.ts';
import { createAuditService } from './services/audit.service.ts';
import { createAuditChainService } from './services/audit-chain.service.ts';
import { createCacheStatsService } from './services/cache-stats.service.ts';
import { createCaspDirectoryService } from './services/casp-directory.service.ts';
import { createClientContextResolver } from './services/client-context.ts';
import {
  ClientSettingsError,
  DEFAULT_RETENTION_YEARS,
  splitClientSettings,
  validateClientSettings,
} from './services/client-settings.ts';
import { createClientsService } from './services/clients.service.ts';
import { type CommandDeps, runCommand } from './services/commands.ts';
import { createConsoleService } from './services/console.service.ts';
import { createEvaluationService } from './services/evaluation.service.ts';
import { createKeysService } from './services/keys.service.ts';
import { createRateLimitService } from './services/rate-limit.service.ts';
import { createSanctionsListsService } from './services/sanctions-lists.service.ts';
import { createScreeningService } from './services/screening.service.ts';
import { startStreamCommand } from './services/stream-commands.ts';
import { createTravelRuleService } from './services/travel-rule.service.ts';
import { createDbWindowStore, createMemoryWindowStore } from './services/window-store.ts';
import { createActionExecutionsRepo } from './storage/action-executions.repo.ts';
import { createAuditQueryRepo } from './storage/audit-query.repo.ts';
import { createAuditWriter } from './storage/audit-writer.ts';
import { createCaspDirectoryRepo } from './storage/casp-directory.repo.ts';
import { createClientsRepo } from './storage/clients.repo.ts';
import { createConsoleRepo } from './storage/console.repo.ts';
import { type DatabaseHandle, openDatabase } from './storage/db.ts';
import { createEvaluationsRepo } from './storage/evaluations.repo.ts';
import { createKeysRepo } from './storage/keys.repo.ts';
import { createOperatorAuditRepo } from './storage/operator-audit.repo.ts';
import { ensureMonthlyPartitions } from './storage/partitions.ts';
import { createSanctionsListsRepo } from './storage/sanctions-lists.repo.ts';
import { migrateSchema } from './storage/schema-owner.ts';
import { createVendors } from './vendors/index.ts';

/** The composition root: builds every service from the config; the only place that wires things. */
export async function createDeps(
  config: Config,
  opts: { logger?: Logger; database?: DatabaseHandle; skipMigrations?: boolean } = {},
) {
  const database =
    opts.database ??
    (await openDatabase({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.MICA_DATA_DIR,
      onAnalyzeError: (err) =>
        opts.logger?.warn({ err }, 'analysis of grown tables failed; it is retried in the next round'),
    }));
  const { db } = database;
  const migrate = () => migrateSchema(database, config.DATABASE_MIGRATION_URL, opts.logger);
  if (!opts.skipMigrations) await migrate();

  const metrics = createMetrics();
  const redisCache = config.REDIS_URL
    ? createRedisCache(config.REDIS_URL, {
        maxEntries: config.CACHE_MAX_ENTRIES,
        namespace: `${redisPrefix(config.MICA_ENVIRONMENT)}cache:`,
      })
    : undefined;
  const cache = redisCache ?? createMemoryCache({ maxEntries: config.CACHE_MAX_ENTRIES });

  const clientsRepo = createClientsRepo(db);
  const operatorAudit = createOperatorAuditRepo(db);
  // The embedded store admits one process: that process is its only writer.
  const exclusive = database.kind === 'pglite';
  const evaluationsRepo = createEvaluationsRepo(database, {
    inOrder: exclusive,
    onRelink: () => metrics.auditRelinks.inc(),
  });

  const keysRepo = createKeysRepo(db);
  const clients = createClientsService({
    clients: clientsRepo,
    audit: operatorAudit,
    cacheMs: config.AUTH_CACHE_MS,
    validateSettings: (s) => {
      try {
        validateClientSettings(s);
      } catch (e) {
        throw new AppError(
          'INVALID_REQUEST',
          `invalid settings: ${(e as Error).message}`,
          e instanceof ClientSettingsError ? { errors: e.problems } : undefined,
        );
      }
    },
    activeOfficerKeys: (clientId, officer) => keysRepo.activeForOfficer(clientId, officer, new Date()),
  });
  const keys = createKeysService({
    keys: keysRepo,
    clients: clientsRepo,
    audit: operatorAudit,
    cacheMs: config.AUTH_CACHE_MS,
  });
  const defaultLimits = {
    per_minute: config.RATE_LIMIT_PER_MINUTE,
    burst_per_minute: Math.max(config.RATE_LIMIT_BURST_PER_MINUTE, config.RATE_LIMIT_PER_MINUTE),
    per_day: config.RATE_LIMIT_PER_DAY,
  };
  const clientContext = createClientContextResolver({ getClient: (id) => clients.get(id), defaultLimits });
  let lastFallbackLog = 0;
  const rateLimiter = createRateLimitService({
    redis: redisCache?.client,
    prefix: `${redisPrefix(config.MICA_ENVIRONMENT)}rl`,
    health: redisCache?.health,
    onFallback: (err) => {
      metrics.rateLimitFallbacks.inc();
      // One line per minute is enough to tell an operator the shared limiter is down.
      if (Date.now() - lastFallbackLog > 60_000) {
        lastFallbackLog = Date.now();
        opts.logger?.warn({ err }, 'rate limiter store failed; limiting in process');
      }
    },
  });

  const auditWriter = createAuditWriter({
    insertBatch: (records) => evaluationsRepo.insertBatch(records),
    maxBatch: config.AUDIT_MAX_BATCH,
    maxInFlight: config.AUDIT_MAX_IN_FLIGHT,
    minQueueForExtraFlush: config.AUDIT_EXTRA_FLUSH_AT,
    onFlush: (size, ms) => {
      metrics.auditBatchSize.observe(size);
      metrics.auditFlushSeconds.observe(ms / 1000);
    },
    onError: (err, size) => opts.logger?.error({ err, size }, 'audit batch failed; retrying one by one'),
  });
  const evaluation = createEvaluationService({
    clientContext,
    evaluations: evaluationsRepo,
    window: exclusive
      ? createMemoryWindowStore({ load: (since) => evaluationsRepo.windowTransactions(since) })
      : createDbWindowStore({
          windowSums: evaluationsRepo.windowSums,
          windowTransaction: evaluationsRepo.windowTransaction,
        }),
    audit: auditWriter,
    onEvaluated: (results) => {
      for (const r of results) metrics.countRuleResult(r.rule_id, r.result, r.triggered);
    },
  });

  const casps = createCaspDirectoryService({
    repo: createCaspDirectoryRepo(db),
    audit: operatorAudit,
    onError: (err) => opts.logger?.error({ err }, 'CASP directory reload failed; the loaded one stays'),
  });
  const cacheStats = createCacheStatsService({
    cache,
    onLookup: (ns, hit) => metrics.cacheLookups.inc({ cache: ns, outcome: hit ? 'hit' : 'miss' }),
  });
  const travelRule = createTravelRuleService({
    evaluation,
    directory: () => casps.directory(),
    clientContext,
    cache,
    stats: cacheStats,
    onCacheError: (err) => opts.logger?.warn({ err }, 'travel-rule cache unavailable; validating uncached'),
  });

  const lists = createSanctionsListsService({
    repo: createSanctionsListsRepo(db),
    audit: operatorAudit,
    refreshMs: config.SANCTIONS_REFRESH_MS,
    onError: (err) => opts.logger?.error({ err }, 'sanctions list reload failed; the held lists stay'),
  });
  const vendors = createVendors(config, {
    onError: (err) => opts.logger?.warn({ err }, 'circuit-breaker store unavailable'),
  });
  metrics.readBreakersFrom(() => vendors.breakers.status());
  const screening = createScreeningService({
    lists,
    vendors,
    evaluation,
    clientContext,
    cache,
    stats: cacheStats,
    onCacheError: (err) =>
      opts.logger?.warn({ err }, 'wallet-screening cache unavailable; screening uncached'),
    // The value a vendor sent that could not be read goes here only, never into the answer.
    onVendorFailure: (err) =>
      opts.logger?.warn(
        { vendor: err.vendor, breaker_state: err.state, reason: err.message, received: err.received },
        'vendor call failed',
      ),
  });

  const auditQuery = createAuditQueryRepo(db);
  const audit = createAuditService({ audit: auditQuery });
  const actionAudit = createActionAuditService({
    actions: createActionExecutionsRepo(db),
    chain: auditQuery,
  });
  const auditChain = createAuditChainService({ db, audit: operatorAudit });
  const retentionYearsOf = async (clientId: string) => {
    const row = await clients.get(clientId);
    return row ? splitClientSettings(row.settings).retentionYears : DEFAULT_RETENTION_YEARS;
  };
  // Rows of a month without its partition land in the default partition; the daily job tries again.
  await ensureMonthlyPartitions(db, new Date(), {
    onError: (partition, err) => opts.logger?.warn({ err, partition }, 'could not create an audit partition'),
  });
  const caseDeps = createCaseDeps({
    config,
    database,
    clientExists: async (id) => (await clients.get(id)) !== undefined,
    clientContext,
    operatorAudit,
    rateLimiter,
    evaluation,
    logger: opts.logger,
  });
  const consoleViews = createConsoleService({
    repo: createConsoleRepo(db),
    clients: clientsRepo,
    clientContext,
    alertsCases: caseDeps.alertsCases,
  });
  const jobs = createJobs({
    'str-sweep': caseDeps.strSweep,
    'audit-maintenance': createAuditMaintenance({ db, auditChain, retentionYearsOf }),
  });
  const commandDeps: CommandDeps = {
    migrate,
    clients,
    keys,
    casps,
    lists,
    webhooks: caseDeps.webhookRegistrations,
    jobs,
    auditChain,
    operatorAudit,
    environment: config.MICA_ENVIRONMENT,
  };
  // The operator token of this process: configured, or made at start for the CLI to find.
  const operatorToken = config.MICA_OPERATOR_TOKEN ?? randomBytes(24).toString('base64url');

  return {
    config,
    database,
    db,
    cache,
    metrics,
    clients,
    keys,
    clientContext,
    rateLimiter,
    audit,
    actionAudit,
    auditChain,
    retentionYearsOf,
    streams: (name: string, args: unknown) => startStreamCommand({ audit, actions: actionAudit }, name, args),
    limitsFor: async (clientId: string) => (await clientContext(clientId))?.rateLimits ?? defaultLimits,
    evaluation,
    auditWriter,
    operatorAudit,
    casps,
    cacheStats,
    travelRule,
    lists,
    vendors,
    screening,
    ...caseDeps,
    consoleViews,
    jobs,
    operatorToken: () => operatorToken,
    commands: (name: string, args: unknown, actor: string) => runCommand(commandDeps, name, args, actor),
    readinessChecks: {
      database: async () => {
        await sql`select 1`.execute(db);
      },
      // Optional: without Redis, rate limits and caching work in process (readiness: degraded).
      cache: { check: () => cache.ping(), optional: true },
    } as Record<string, ReadinessCheck>,
    /** Flushes pending audit batches, then closes the store. */
    async close() {
      await auditWriter.close();
      await vendors.close();
      await database.close();
      await cache.close();
    },
  };
}
export type Deps = Awaited<ReturnType<typeof createDeps>>;
