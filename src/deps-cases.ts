import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createStrSweep } from './jobs/str-sweep.ts';
import { createAlertsCasesService } from './services/alerts-cases.service.ts';
import type { ClientContext, EvaluationService } from './services/evaluation.service.ts';
import type { RateLimitService } from './services/rate-limit.service.ts';
import { lazySecretBox } from './services/secret-box.ts';
import { createWebhookIntakeService } from './services/webhook-intake.service.ts';
import { createWebhookRegistrationsService } from './services/webhook-registrations.service.ts';
import { createAlertsCasesRepo } from './storage/alerts-cases.repo.ts';
import type { DatabaseHandle } from './storage/db.ts';
import type { OperatorAuditRepo } from './storage/operator-audit.repo.ts';
import { createStrSweepRepo } from './storage/str-sweep.repo.ts';
import { createWebhookIntakeRepo } from './storage/webhook-intake.repo.ts';
import { createWebhookRegistrationsRepo } from './storage/webhook-registrations.repo.ts';

/** Wires webhook registrations and intake, the alerts and cases API, and the STR sweep (part of deps.ts). */
export function createCaseDeps(d: {
  config: Config;
  database: Pick<DatabaseHandle, 'db' | 'executePrepared'>;
  clientExists: (clientId: string) => Promise<boolean>;
  clientContext: (clientId: string) => Promise<ClientContext | undefined>;
  operatorAudit: Pick<OperatorAuditRepo, 'record'>;
  rateLimiter: RateLimitService;
  evaluation: Pick<EvaluationService, 'evaluate'>;
  logger?: Logger;
}) {
  const { config } = d;
  const { db } = d.database;
  const webhookRegistrations = createWebhookRegistrationsService({
    repo: createWebhookRegistrationsRepo(db),
    clientExists: d.clientExists,
    audit: d.operatorAudit,
    secretBox: lazySecretBox({
      configuredKey: config.MICA_SECRET_KEY,
      storage: config.storage,
      dataDir: config.MICA_DATA_DIR,
      db,
    }),
    cacheMs: config.AUTH_CACHE_MS,
    onUnreadableSecret: (err, registration) =>
      d.logger?.error(
        { err, registration },
        'webhook secret cannot be opened with the current MICA_SECRET_KEY',
      ),
  });
  const webhookIntake = createWebhookIntakeService({
    registrations: webhookRegistrations,
    repo: createWebhookIntakeRepo(d.database),
    clientContext: d.clientContext,
    limiter: d.rateLimiter,
    limits: {
      perMinute: config.WEBHOOK_RATE_LIMIT_PER_MINUTE,
      perKindPerMinute: config.WEBHOOK_RATE_LIMIT_PER_KIND_PER_MINUTE,
      unverifiedPerMinute: config.WEBHOOK_UNVERIFIED_PER_MINUTE,
    },
    // Creation deliveries are group-committed, one statement a batch; a second batch goes in
    // flight only when deliveries queue up (on the embedded store it waits on the one session).
    maxInFlight: 2,
    minQueueForExtraFlush: config.AUDIT_EXTRA_FLUSH_AT,
  });
  const alertsCases = createAlertsCasesService({
    repo: createAlertsCasesRepo(db),
    clientContext: d.clientContext,
  });
  const strSweep = createStrSweep({
    repo: createStrSweepRepo(db),
    clientContext: d.clientContext,
    evaluation: d.evaluation,
    environment: config.MICA_ENVIRONMENT,
    onError: (err, caseId) => d.logger?.error({ err, case_id: caseId }, 'STR sweep: evaluation failed'),
  });
  return { webhookRegistrations, webhookIntake, alertsCases, strSweep };
}
