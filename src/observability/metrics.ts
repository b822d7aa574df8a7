import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** A count kept outside prom-client, and how much of it the counter has been given. */
interface Tally {
  n: number;
  reported: number;
}

/** The service's Prometheus metrics, in a registry of its own (no global default registry). */
export function createMetrics() {
  const registry = new Registry();
  const httpRequests = new Counter({
    name: 'mica_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'mica_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // Every evaluation counts each of its rules: the counts are kept here, in plain numbers, and
  // handed to the counter when metrics are read. Through prom-client each count built and hashed a
  // label string (eight per evaluation, ~3 KB of garbage per request at 500 evaluations/s).
  const ruleCounts = new Map<string, Map<string, [Tally, Tally]>>();
  const ruleResults = new Counter({
    name: 'mica_rule_evaluations_total',
    help: 'Evaluated rules by rule id, result and whether they triggered',
    labelNames: ['rule_id', 'result', 'triggered'] as const,
    registers: [registry],
    collect() {
      for (const [rule_id, byResult] of ruleCounts)
        for (const [result, tallies] of byResult)
          tallies.forEach((t, triggered) => {
            if (t.n === t.reported) return;
            this.inc({ rule_id, result, triggered: String(triggered === 1) }, t.n - t.reported);
            t.reported = t.n;
          });
    },
  });
  const auditBatchSize = new Histogram({
    name: 'mica_audit_batch_size',
    help: 'Evaluations committed per group-commit transaction',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    registers: [registry],
  });
  const auditFlushSeconds = new Histogram({
    name: 'mica_audit_flush_seconds',
    help: 'Time to commit one audit batch',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [registry],
  });
  const auditRelinks = new Counter({
    name: 'mica_audit_relinks_total',
    help: 'Audit batches linked again because their chain heads moved (a failed predecessor or another instance)',
    registers: [registry],
  });
  const rateLimitRejections = new Counter({
    name: 'mica_rate_limit_rejections_total',
    help: 'Requests refused with 429, by scope',
    labelNames: ['scope'] as const,
    registers: [registry],
  });
  const rateLimitFallbacks = new Counter({
    name: 'mica_rate_limit_fallback_total',
    help: 'Rate-limit decisions taken in-process because the shared store failed',
    registers: [registry],
  });
  const cacheLookups = new Counter({
    name: 'mica_cache_lookups_total',
    help: 'Cache lookups by cache and outcome',
    labelNames: ['cache', 'outcome'] as const,
    registers: [registry],
  });
  // Read from the breakers at each scrape (shared ones from Redis), not kept up to date here.
  let breakerSource: (() => Promise<Record<string, { state: string }>>) | undefined;
  const STATE_VALUE: Record<string, number> = { CLOSED: 0, HALF_OPEN: 1, OPEN: 2 };
  const breakerState = new Gauge({
    name: 'mica_vendor_breaker_state',
    help: 'Circuit-breaker state per vendor (0 closed, 1 half-open, 2 open)',
    labelNames: ['vendor'] as const,
    registers: [registry],
    async collect() {
      if (!breakerSource) return;
      try {
        for (const [vendor, b] of Object.entries(await breakerSource()))
          this.set({ vendor }, STATE_VALUE[b.state] ?? 0);
      } catch {
        // The breakers' store is unreadable: the last values stand rather than failing the scrape.
      }
    },
  });
  // Series that exist from the start at 0, so that a dashboard's rate() reads zero, not "no data".
  for (const scope of ['minute', 'day', 'webhook:unverified']) rateLimitRejections.inc({ scope }, 0);
  for (const cache of ['wallet_screening', 'travel_rule'])
    for (const outcome of ['hit', 'miss']) cacheLookups.inc({ cache, outcome }, 0);
  function countRuleResult(ruleId: string, result: string, triggered: boolean): void {
    let byResult = ruleCounts.get(ruleId);
    if (!byResult) {
      byResult = new Map();
      ruleCounts.set(ruleId, byResult);
    }
    let tallies = byResult.get(result);
    if (!tallies) {
      tallies = [
        { n: 0, reported: 0 },
        { n: 0, reported: 0 },
      ];
      byResult.set(result, tallies);
    }
    tallies[triggered ? 1 : 0].n++;
  }
  return {
    registry,
    countRuleResult,
    httpRequests,
    httpDuration,
    ruleResults,
    auditBatchSize,
    auditFlushSeconds,
    auditRelinks,
    rateLimitRejections,
    rateLimitFallbacks,
    cacheLookups,
    breakerState,
    /** Where mica_vendor_breaker_state is read from at each scrape (the vendors' breakers). */
    readBreakersFrom(source: () => Promise<Record<string, { state: string }>>): void {
      breakerSource = source;
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
