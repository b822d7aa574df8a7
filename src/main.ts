import { pino } from 'pino';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createDeps } from './deps.ts';
import { schedule } from './jobs/jobs.ts';
import { seedDemoClient } from './services/demo-seed.ts';
import { heldListsNotice } from './services/sanctions-lists.service.ts';
import { acquireStoreLock, publishServerInfo, removeServerInfo } from './storage/store-lock.ts';
import { waitForDatabase } from './storage/wait-for-database.ts';

/** Starts the service: config → deps → app → listen; closes gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'mica', env: config.MICA_ENVIRONMENT } });
  const lock = config.storage === 'pglite' ? acquireStoreLock(config.MICA_DATA_DIR) : undefined;
  if (config.DATABASE_URL)
    await waitForDatabase(config.DATABASE_MIGRATION_URL ?? config.DATABASE_URL, logger);
  const deps = await createDeps(config, { logger });
  const app = await buildApp(deps, { logger });
  // Sanctions lists are indexed before the first request, not during it.
  const notice = heldListsNotice((await deps.lists.current()).meta);
  logger[notice.level]({ lists: notice.lists }, notice.message);

  const address = await app.listen({ port: config.PORT, host: config.HOST });
  // Seeded only once listening: a start that fails to listen (a port already taken) must not use
  // up the one start on an empty store that creates the demo client and prints its key.
  const demo = config.MICA_DEMO_SEED ? await seedDemoClient(deps) : undefined;
  const local = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1');
  if (lock)
    publishServerInfo(config.MICA_DATA_DIR, { url: local, token: deps.operatorToken(), pid: process.pid });
  logger.info({ address, storage: config.storage, environment: config.MICA_ENVIRONMENT }, 'listening');
  // Every instance may run it: a case is claimed by one of them only (jobs/str-sweep.ts).
  const strSweep = schedule('str-sweep', config.STR_SWEEP_CRON, deps.jobs, logger);
  const auditMaintenance = schedule('audit-maintenance', config.AUDIT_MAINTENANCE_CRON, deps.jobs, logger);
  if (demo) {
    // Printed once, on the first start of an empty store: the key is never shown again.
    process.stdout.write(
      `\nDemo client "${demo.client_id}" created. Its ${demo.environment} API key (shown once, keep it):\n\n  ${demo.key}\n\n` +
        `Its id, for \`npm run mica -- keys rotate|revoke\`: ${demo.key_id}\n\n` +
        `Try:\n  curl -s ${local}/api/mica/evaluate -H 'Authorization: Bearer ${demo.key}' -H 'Content-Type: application/json' \\\n` +
        `    -d '{"client_id":"demo","trigger_type":"transaction","trigger_entity_id":"tx-1","data":{"customer_id":"c-1","customer_verified":true,"amount_eur":1500,"full_cdd_complete":false}}'\n\n`,
    );
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: draining requests and flushing the audit log');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    try {
      await strSweep.stop();
      await auditMaintenance.stop();
      await app.close();
      await deps.close();
    } finally {
      if (lock) {
        removeServerInfo(config.MICA_DATA_DIR);
        lock.release();
      }
      logger.info('stopped');
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
