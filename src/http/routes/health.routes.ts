import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

/** Liveness and readiness, without authentication. */
export const healthRoutes =
  (deps: { checks: Record<string, () => Promise<void>> }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/healthz',
      { schema: { tags: ['health'], response: { 200: Type.Object({ status: Type.String() }) } } },
      async () => ({
        status: 'ok',
      }),
    );
    app.get('/readyz', { schema: { tags: ['health'] } }, async (_req, reply) => {
      const results: Record<string, string> = {};
      let ready = true;
      await Promise.all(
        Object.entries(deps.checks).map(async ([name, check]) => {
          try {
            await Promise.race([
              check(),
              new Promise((_, rej) => setTimeout(() => rej(new Error('timeout')), 2000)),
            ]);
            results[name] = 'ok';
          } catch {
            results[name] = 'unavailable';
            ready = false;
          }
        }),
      );
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks: results });
    });
  };
