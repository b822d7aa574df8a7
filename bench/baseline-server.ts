import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import Fastify from 'fastify';

/**
 * The bare baseline: plain Fastify, no auth, no validation schema, no database, no logging.
 * POST /api/mica/evaluate parses the JSON body and answers a response of the same shape and size
 * as the real service (8 rule results, ~2 KB), built from the body's fields.
 */

interface Body {
  client_id?: string;
  trigger_entity_id?: string;
  data?: Record<string, unknown>;
}

const RULES: Array<[string, string, string, string]> = [
  ['MICA-CDD-001', 'Identity Verification Required', 'critical', 'customer_verified'],
  ['MICA-CDD-002', 'Full CDD Threshold', 'high', 'full_cdd_complete'],
  ['MICA-CDD-003', 'Self-Hosted Wallet Attestation', 'high', 'self_hosted_wallet'],
  ['MICA-CDD-004', 'Address Validation', 'medium', 'address_validation_failed'],
  ['MICA-CDD-005', 'Multiple Identity Detection', 'high', 'multiple_identities_detected'],
  ['MICA-CDD-006', 'High-Risk Country EDD', 'high', 'customer_country_high_risk'],
  ['MICA-RPT-001', 'STR Generation', 'critical', 'suspicious_activity_detected'],
  ['MICA-RPT-004', 'Large Transaction Report', 'medium', 'amount_eur_gte_10000'],
];

const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ status: 'ok' }));

app.post('/api/mica/evaluate', async (req, reply) => {
  const body = (req.body ?? {}) as Body;
  const data = body.data ?? {};
  const amount = typeof data.amount_eur === 'number' ? data.amount_eur : 0;
  const results = RULES.map(([rule_id, rule_name, severity, condition]) => ({
    rule_id,
    rule_name,
    triggered: false,
    result: 'pass',
    conditions_met: { [condition]: Boolean(data[condition]), amount_eur_gte_1000: amount >= 1000 },
    actions_to_execute: [] as string[],
    severity,
  }));
  const response = {
    rules_evaluated: results.length,
    rules_triggered: 0,
    evaluation_id: randomUUID(),
    timestamp: new Date().toISOString(),
    results,
    highest_severity: null,
    actions_required: [] as string[],
    should_block: false,
    should_alert: false,
    should_create_case: false,
  };
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(response));
});

// The other benchmarks' baselines (bench/webhooks.ts, bench/export.ts): the same HTTP and JSON work
// as the real route, nothing else.

/** Webhook intake: parses the JSON body and answers an acknowledgement of the real one's shape. */
app.post('/api/webhooks/:kind', async (req, reply) => {
  const body = (req.body ?? {}) as { id?: string };
  const ack = {
    status: 'accepted',
    platform_alert_id: randomUUID(),
    case_id: randomUUID(),
    case_number: `CASE-2026-${String(body.id?.length ?? 0).padStart(6, '0')}`,
  };
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(ack));
});

/** CSV export: streams `rows` rows of the real export's width (~340 B) from memory, in chunks of 2,000. */
app.get('/api/mica/audit/evaluations', async (req, reply) => {
  const rows = Number((req.query as { rows?: string }).rows ?? 100_000);
  async function* chunks() {
    yield 'client_id,evaluation_id,rule_id,result\r\n';
    for (let i = 0; i < rows; i += 2000) {
      let chunk = '';
      for (let j = i; j < Math.min(rows, i + 2000); j++)
        chunk += `bench,${randomUUID()},MICA-CDD-00${j % 8},pass,transaction,transaction,tx-${j},2026-11-22T05:19:41.692Z,false,false,"[""customer_verified"",""amount_eur_gte_1000""]","{""customer_verified"":true,""amount_eur_gte_1000"":false}",[],critical,key:6b0c7d2e-1f3a-4b5c-8d9e-0a1b2c3d4e5f,cust-${j % 1000},2026.1\r\n`;
      yield chunk;
    }
  }
  return reply.type('text/csv; charset=utf-8').send(Readable.from(chunks()));
});

const shutdown = () => {
  void app.close().then(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

await app.listen({ port: Number(process.env.PORT ?? 8090), host: '127.0.0.1' });
process.stdout.write('baseline listening\n');
