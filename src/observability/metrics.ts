import { Counter, Gauge, Histogram, Registry } from 'prom-client';

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
  const ruleResults = new Counter({
    name: 'mica_rule_evaluations_total',
    help: 'Evaluated rules by rule id, result and whether they triggered',
    labelNames: ['rule_id', 'result', 'triggered'] as const,
    registers: [registry],
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
  const breakerState = new Gauge({
    name: 'mica_vendor_breaker_state',
    help: 'Circuit-breaker state per vendor (0 closed, 1 half-open, 2 open)',
    labelNames: ['vendor'] as const,
    registers: [registry],
  });
  // Every evaluation counts each of its rules: the labelled children are looked up once, not
  // hashed from a label object eight times per request.
  const ruleChildren = new Map<string, { inc(): void }>();
  function countRuleResult(ruleId: string, result: string, triggered: boolean): void {
    const key = `${ruleId}\u0000${result}\u0000${triggered}`;
    let child = ruleChildren.get(key);
    if (!child) {
      child = ruleResults.labels(ruleId, result, String(triggered));
      ruleChildren.set(key, child);
    }
    child.inc();
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
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
