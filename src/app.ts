import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Deps } from './deps.ts';
import { AppError } from './errors.ts';
import { withNamedSchemas } from './http/openapi-components.ts';
import { withHeadersAndIds } from './http/openapi-document.ts';
import { registerAuth } from './http/plugins/auth.ts';
import {
  clientErrorHandler,
  frameworkErrorHandler,
  registerErrorHandler,
} from './http/plugins/error-handler.ts';
import { registerJsonBody } from './http/plugins/json-body.ts';
import { registerNotFound } from './http/plugins/not-found.ts';
import { clientLimit, registerClientRateLimit } from './http/plugins/rate-limit.ts';
import { adminRoutes } from './http/routes/admin.routes.ts';
import { adminStreamRoutes } from './http/routes/admin-streams.routes.ts';
import { auditRoutes } from './http/routes/audit.routes.ts';
import { cacheRoutes } from './http/routes/cache.routes.ts';
import { casesRoutes } from './http/routes/cases.routes.ts';
import { consoleApiRoutes } from './http/routes/console.routes.ts';
import { consoleStaticRoutes } from './http/routes/console-static.routes.ts';
import { evaluateRoutes } from './http/routes/evaluate.routes.ts';
import { healthRoutes } from './http/routes/health.routes.ts';
import { rulesRoutes } from './http/routes/rules.routes.ts';
import { screeningRoutes } from './http/routes/screening.routes.ts';
import { travelRuleRoutes } from './http/routes/travel-rule.routes.ts';
import { webhookRoutes } from './http/routes/webhooks.routes.ts';
import { FlatError, NestedError } from './http/schemas/common.schema.ts';
import { validatorCompiler } from './http/validation.ts';

/**
 * A request that arrives on an open connection while the server drains: refused, to be retried
 * against another instance (or this one once it is back), and the connection closed.
 */
function shuttingDown(): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    'The service is shutting down; retry shortly',
    { retry_after: 5 },
    { 'retry-after': '5', connection: 'close' },
  );
}

/** TRUST_PROXY as Fastify takes it (see config.ts). */
export function trustProxyOption(
  v: string | undefined,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) {
    // The nearest `hops` proxies (hop 0 is the connection's peer).
    const hops = Number(v);
    return (_address, hop) => hop < hops;
  }
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Builds the HTTP app from its dependencies; no I/O happens here. */
export async function buildApp(deps: Deps, opts: { logger?: Logger | false } = {}): Promise<FastifyInstance> {
  // Set once the not-found handler is registered, for the requests Fastify refuses before routing.
  let unmatched: Parameters<typeof frameworkErrorHandler>[3];
  const app = Fastify({
    loggerInstance: (opts.logger || undefined) as FastifyBaseLogger | undefined,
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    trustProxy: trustProxyOption(deps.config.TRUST_PROXY),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : crypto.randomUUID();
    },
    // One line per request is written by the onResponse hook below, with the route and timing.
    logController: new LogController({ disableRequestLogging: true }),
    // Requests arriving while the server closes get the service's own 503 (shuttingDown below),
    // in the route's error format: Fastify's built-in one has a body of its own and no Retry-After.
    return503OnClosing: false,
    frameworkErrors: (error, req, reply) => frameworkErrorHandler(error, req, reply, unmatched),
    // A request must arrive whole within this time (a stalled upload holds a socket and memory);
    // generous for the operator API's imports of up to 128 MiB.
    requestTimeout: 120_000,
    clientErrorHandler,
    ajv: { customOptions: { coerceTypes: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async () => {
    if (closing) throw shuttingDown();
  });
  app.setValidatorCompiler(validatorCompiler);
  app.addSchema(NestedError);
  app.addSchema(FlatError);
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    // API answers are a client's compliance data (evaluations, cases, exports): no browser or
    // intermediary cache keeps a copy (a shared computer, a proxy), unless a route said otherwise.
    if (req.url.startsWith('/api/') && !reply.hasHeader('cache-control'))
      reply.header('cache-control', 'no-store');
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    deps.metrics.httpRequests.inc({ method: req.method, route, status: String(reply.statusCode) });
    deps.metrics.httpDuration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    req.log.info(
      {
        method: req.method,
        url: req.routeOptions.url ?? req.url,
        status: reply.statusCode,
        ms: reply.elapsedTime,
      },
      'request',
    );
  });

  registerJsonBody(app);
  registerErrorHandler(app);
  registerAuth(app, {
    keys: deps.keys,
    environment: deps.config.MICA_ENVIRONMENT,
    operatorToken: deps.operatorToken,
  });

  const limits = {
    limiter: deps.rateLimiter,
    limitsFor: deps.limitsFor,
    onRejected: (scope: string) => deps.metrics.rateLimitRejections.inc({ scope }),
  };
  registerClientRateLimit(app, limits);
  unmatched = registerNotFound(app, {
    authenticate: (token) => deps.keys.authenticate(token, deps.config.MICA_ENVIRONMENT),
    limit: clientLimit(limits),
  });

  await app.register(swagger, {
    openapi: {
      // 3.1: the request schemas use JSON Schema's if/then (per trigger type), which 3.0 lacks.
      openapi: '3.1.0',
      info: {
        title: 'MiCA compliance service',
        version: '1.0',
        description: [
          'Rule evaluation, wallet screening, travel-rule validation and webhook intake.',
          '',
          'Every answer to an authenticated request carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`',
          'and `X-RateLimit-Reset` (Unix seconds); a 401 carries none (no client to count against), and',
          "a webhook answer carries its source's or vendor's. A 429 adds `Retry-After` (seconds). A 503 (storage",
          'unavailable, or a vendor circuit breaker open) carries `Retry-After` and `details.retry_after`.',
          'Errors are nested (`{error:{code,message,details}}`) on evaluation, audit, alert, case and',
          'console endpoints, flat (`{error,type,details,statusCode}`) on screening, travel-rule,',
          'circuit-breaker and cache endpoints.',
          '',
          'A documented path called with a method it does not serve answers 405 `METHOD_NOT_ALLOWED`',
          'with `Allow` (see `components.responses.MethodNotAllowed`); an unknown path answers 404.',
        ].join('\n'),
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    // Shared schemas (app.addSchema) are named by their $id, not def-0, def-1….
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transformObject: (doc) =>
      withNamedSchemas(withHeadersAndIds('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject)),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (no key: bind to an internal port in production)',
        produces: ['text/plain'],
      },
    },
    async (_req, reply) =>
      reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );

  await app.register(healthRoutes({ checks: deps.readinessChecks }));
  await app.register(evaluateRoutes({ evaluation: deps.evaluation }));
  await app.register(rulesRoutes({ clientContext: deps.clientContext }));
  await app.register(auditRoutes({ audit: deps.audit, actions: deps.actionAudit }));
  await app.register(adminStreamRoutes({ streams: deps.streams }));
  await app.register(travelRuleRoutes({ travelRule: deps.travelRule }));
  await app.register(screeningRoutes({ screening: deps.screening, breakers: deps.vendors.breakers }));
  await app.register(cacheRoutes({ cacheStats: deps.cacheStats }));
  await app.register(adminRoutes({ commands: deps.commands }));
  await app.register(
    webhookRoutes({
      intake: deps.webhookIntake,
      onRejected: (scope) => deps.metrics.rateLimitRejections.inc({ scope }),
    }),
  );
  await app.register(casesRoutes({ alertsCases: deps.alertsCases }));
  await app.register(consoleApiRoutes({ console: deps.consoleViews }));
  await app.register(consoleStaticRoutes());
  return app;
}
