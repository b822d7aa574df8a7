import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

/**
 * A readiness check: a function (the service cannot serve without it), or an optional one whose
 * loss only degrades the service (the shared cache: rate limits and caching then work in process).
 */
export type ReadinessCheck = (() => Promise<void>) | { check: () => Promise<void>; optional: true };

/**
 * Liveness and readiness, without authentication. /readyz answers 503 `not_ready` when a required
 * check fails, and 200 `degraded` when only optional ones do: taking every instance out of the load
 * balancer because Redis is away would turn a slower service into no service.
 */
export const healthRoutes =
  (deps: { checks: Record<string, ReadinessCheck> }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/healthz',
      { schema: { tags: ['health'], response: { 200: Type.Object({ status: Type.String() }) } } },
      async () => ({
        status: 'ok',
      }),
    );
    const Readiness = Type.Object({
      status: Type.Union([Type.Literal('ready'), Type.Literal('degraded'), Type.Literal('not_ready')]),
      checks: Type.Record(Type.String(), Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]), {
        description: 'each dependency: the database, the shared cache when one is configured',
      }),
    });
    const readyz = {
      tags: ['health'],
      summary:
        'Ready to serve: 200 ready (or degraded: an optional dependency such as Redis is away), 503 not_ready',
      response: { 200: Readiness, 503: Readiness },
    };
    app.get('/readyz', { schema: readyz }, async (_req, reply) => {
      const results: Record<string, 'ok' | 'unavailable'> = {};
      let ready = true;
      let degraded = false;
      await Promise.all(
        Object.entries(deps.checks).map(async ([name, entry]) => {
          const check = typeof entry === 'function' ? entry : entry.check;
          let timer: NodeJS.Timeout | undefined;
          try {
            await Promise.race([
              check(),
              new Promise((_, rej) => {
                timer = setTimeout(() => rej(new Error('timeout')), 2000);
              }),
            ]);
            results[name] = 'ok';
          } catch {
            results[name] = 'unavailable';
            if (typeof entry === 'function') ready = false;
            else degraded = true;
          } finally {
            clearTimeout(timer);
          }
        }),
      );
      const status = !ready ? 'not_ready' : degraded ? 'degraded' : 'ready';
      return reply.code(ready ? 200 : 503).send({ status, checks: results });
    });
  };
