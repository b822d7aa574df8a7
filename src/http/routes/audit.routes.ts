import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { ActionAuditService } from '../../services/action-audit.service.ts';
import type { AuditService } from '../../services/audit.service.ts';
import { principalOf } from '../plugins/auth.ts';
import { NestedError } from '../schemas/common.schema.ts';

/**
 * The answer of an audit endpoint: a page by default; with `format` a streamed export of every
 * match (`json`: an array of the same rows; `csv`: the same columns, a header line first).
 */
function auditAnswer(row: string) {
  const rows = Type.Array(Type.Object({}, { additionalProperties: true, description: row }));
  return {
    description: 'A page (no format), or with format=json|csv a streamed export of every match',
    content: {
      'application/json': {
        schema: Type.Union([
          Type.Object({ items: rows, next_cursor: Type.Union([Type.String(), Type.Null()]) }),
          rows,
        ]),
      },
      'text/csv': { schema: Type.String({ description: 'the rows as CSV, header line first' }) },
    },
  };
}

const auditErrors = {
  400: NestedError,
  401: NestedError,
  429: NestedError,
  500: NestedError,
  503: NestedError,
};

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

const ActionQuerySchema = Type.Object({
  ...AuditQuerySchema.properties,
  action_type: Type.Optional(
    Type.String({ maxLength: 64, description: 'e.g. create_case, block_transaction' }),
  ),
});

/** Sends a streamed export: the header chunk is pulled first, so a bad filter is a clean 400. */
async function sendExport(
  reply: FastifyReply,
  chunks: AsyncGenerator<string>,
  format: 'csv' | 'json',
  name: string,
) {
  const head = await chunks.next();
  const stamp = new Date().toISOString().replaceAll(':', '').slice(0, 15);
  reply
    .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}-${stamp}.${format}"`);
  async function* all() {
    if (!head.done) yield head.value;
    yield* chunks;
  }
  return reply.send(Readable.from(all()) as never);
}

/**
 * GET /api/mica/audit/evaluations (audit rows) and /api/mica/audit/actions (executed actions):
 * pages, or a streamed CSV/JSON export of every match.
 */
export const auditRoutes =
  (deps: { audit: AuditService; actions: ActionAuditService }): FastifyPluginAsyncTypebox =>
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
          response: {
            200: auditAnswer(
              'one row of mica_rule_evaluations: the columns of the spec (client_id, evaluation_id, rule_id, result, trigger_type, …) in the order of the CSV export',
            ),
            ...auditErrors,
          },
        },
      },
      async (req, reply) => {
        const { clientId } = principalOf(req);
        const { format, ...q } = req.query;
        if (!format) return reply.send((await deps.audit.list(clientId, q)) as never);
        return sendExport(reply, deps.audit.export(clientId, q, format), format, `audit-${clientId}`);
      },
    );

    app.get(
      '/api/mica/audit/actions',
      {
        config: { auth: 'client', errorFormat: 'nested' },
        schema: {
          tags: ['audit'],
          summary:
            'Executed actions (type, outcome, time, executor, evidence), newest first; format=csv|json streams every match',
          security: [{ bearer: [] }],
          querystring: ActionQuerySchema,
          response: {
            200: auditAnswer(
              'one executed action: type, outcome, time (UTC), executor, evidence, with its evaluation',
            ),
            ...auditErrors,
          },
        },
      },
      async (req, reply) => {
        const { clientId } = principalOf(req);
        const { format, ...q } = req.query;
        if (!format) return reply.send((await deps.actions.list(clientId, q)) as never);
        return sendExport(reply, deps.actions.export(clientId, q, format), format, `actions-${clientId}`);
      },
    );
  };
