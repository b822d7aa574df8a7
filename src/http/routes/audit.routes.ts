import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AuditService } from '../../services/audit.service.ts';
import { principalOf } from '../plugins/auth.ts';
import { NestedError } from '../schemas/common.schema.ts';

export const AuditQuerySchema = Type.Object({
  from: Type.Optional(
    Type.String({ description: 'ISO 8601 date or date-time (a date is its UTC midnight)' }),
  ),
  to: Type.Optional(Type.String({ description: 'exclusive upper bound' })),
  rule_id: Type.Optional(Type.String({ maxLength: 64 })),
  customer_id: Type.Optional(Type.String({ maxLength: 256 })),
  transaction_id: Type.Optional(Type.String({ maxLength: 256 })),
  evaluation_id: Type.Optional(Type.String({ maxLength: 64, description: "one evaluation's rows" })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});

/** GET /api/mica/audit/evaluations: pages of audit rows, or a streamed CSV/JSON export. */
export const auditRoutes =
  (deps: { audit: AuditService }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/api/mica/audit/evaluations',
      {
        config: { auth: 'client', errorFormat: 'nested' },
        schema: {
          tags: ['audit'],
          summary: 'Audit rows of mica_rule_evaluations, newest first; format=csv|json streams every match',
          security: [{ bearer: [] }],
          querystring: AuditQuerySchema,
          response: { 400: NestedError, 401: NestedError, 429: NestedError },
        },
      },
      async (req, reply) => {
        const { clientId } = principalOf(req);
        const { format, ...q } = req.query;
        if (!format) return reply.send((await deps.audit.list(clientId, q)) as never);
        const chunks = deps.audit.export(clientId, q, format);
        // Pull the header chunk first so a bad filter is still a clean 400, not a broken stream.
        const head = await chunks.next();
        const stamp = new Date().toISOString().replaceAll(':', '').slice(0, 15);
        reply
          .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
          .header('content-disposition', `attachment; filename="audit-${clientId}-${stamp}.${format}"`);
        async function* all() {
          if (!head.done) yield head.value;
          yield* chunks;
        }
        return reply.send(Readable.from(all()) as never);
      },
    );
  };
