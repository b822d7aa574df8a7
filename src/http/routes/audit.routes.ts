import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { ACTION_COLUMNS, ActionAuditService } from '../../services/action-audit.service.ts';
import { type AUDIT_COLUMNS, type AuditService, CHAIN_SEQ_HEADER } from '../../services/audit.service.ts';
import { principalOf } from '../plugins/auth.ts';
import { refuseInvalidQuery } from '../query-problems.ts';
import { STRICT_QUERY } from '../schemas/cases.schema.ts';
import { NestedError } from '../schemas/common.schema.ts';

/**
 * The answer of an audit endpoint: a page by default; with `format` a streamed export of every
 * match (`json`: an array of the same rows; `csv`: the same columns, a header line first).
 */
function auditAnswer(row: string, columns: Record<string, string>) {
  // Each column named and described; typed in its description only, so that the serializer of the
  // page (fast-json-stringify) writes every value exactly as read, as the JSON export does.
  const properties = Object.fromEntries(
    Object.entries(columns).map(([name, description]) => [name, Type.Unknown({ description })]),
  );
  const rows = Type.Array(
    Type.Object(properties, { additionalProperties: true, required: Object.keys(columns), description: row }),
  );
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

/** The audit row's columns (AUDIT_COLUMNS, in that order), as the OpenAPI document describes them. */
const AUDIT_COLUMN_DOCS: Record<(typeof AUDIT_COLUMNS)[number], string> = {
  client_id: 'string',
  evaluation_id: 'string (UUID): one evaluation, one row per rule it evaluated',
  rule_id: 'string, e.g. MICA-CDD-002',
  result: 'string: pass, fail, block or alert',
  trigger_type: 'string: transaction, wallet_screen, travel_rule, periodic or manual',
  trigger_entity_type: 'string or null',
  trigger_entity_id: 'string or null',
  evaluated_at: 'string: ISO 8601 UTC',
  transaction_blocked: 'boolean: the evaluation blocked',
  alert_generated: 'boolean: the evaluation opened an alert',
  conditions_evaluated: 'array of strings: the rule conditions',
  conditions_met: 'object: condition → the value used (boolean)',
  actions_executed: 'array of strings: the actions of the rule when it triggered, else empty',
  severity: "string: the rule's severity (low, medium, high, critical)",
  evaluator_id: 'string: who asked, key:<key id> (an officer or X-Actor name beside it) or system:<job>',
  customer_id: 'string or null',
  rule_set_version: "string: the client's rule-set version used",
  high_risk_list_date: 'string (YYYY-MM-DD) or null: the high-risk country list used',
};

/** The executed action's columns (ACTION_COLUMNS, in that order). */
const ACTION_COLUMN_DOCS: Record<(typeof ACTION_COLUMNS)[number], string> = {
  client_id: 'string',
  evaluation_id: 'string (UUID)',
  rule_id: 'string: the triggered rule that lists the action',
  action_type: 'string, e.g. create_case, block_transaction',
  outcome: 'string: success or failure',
  executed_at: 'string: ISO 8601 UTC',
  executor_id: 'string: the evaluator',
  evidence:
    'object: the case as opened (case_id, case_number, reason, rule_ids, created_at, assigned_to), the alert opened (alert_id, severity), or where the action was returned',
  trigger_type: 'string',
  trigger_entity_id: 'string or null',
  customer_id: 'string or null',
};

const auditErrors = {
  400: NestedError,
  401: NestedError,
  429: NestedError,
  500: NestedError,
  503: NestedError,
};

export const AuditQuerySchema = Type.Object(
  {
    // Every filter, when given, holds something: `customer_id=` from an empty variable would
    // otherwise filter nothing and hand over every customer's rows.
    from: Type.Optional(
      Type.String({ minLength: 1, description: 'ISO 8601 date or date-time (a date is its UTC midnight)' }),
    ),
    to: Type.Optional(Type.String({ minLength: 1, description: 'exclusive upper bound' })),
    rule_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    transaction_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    evaluation_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "one evaluation's rows" }),
    ),
    after_seq: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          'only evaluations at chain positions after this one: pass the X-Audit-Chain-Seq of the previous answer to get exactly what was committed since',
      }),
    ),
    through_seq: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          'only evaluations at chain positions up to this one (at most the chain head); by default the head when the answer, or its first page, is read',
      }),
    ),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  STRICT_QUERY,
);

const ActionQuerySchema = Type.Object(
  {
    ...AuditQuerySchema.properties,
    action_type: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'e.g. create_case, block_transaction' }),
    ),
  },
  STRICT_QUERY,
);

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
        // Dates and schema problems reported together (refuseInvalidQuery).
        attachValidation: true,
        schema: {
          tags: ['audit'],
          summary: 'Audit rows of mica_rule_evaluations, newest first; format=csv|json streams every match',
          security: [{ bearer: [] }],
          querystring: AuditQuerySchema,
          response: {
            200: auditAnswer(
              'one row of mica_rule_evaluations: the columns of the spec, then the ones recorded besides, in the order of the CSV export',
              AUDIT_COLUMN_DOCS,
            ),
            ...auditErrors,
          },
        },
      },
      async (req, reply) => {
        refuseInvalidQuery(req);
        const { clientId } = principalOf(req);
        const { format, ...q } = req.query;
        const filter = await deps.audit.filter(clientId, q, !format);
        reply.header(CHAIN_SEQ_HEADER, String(filter.through_seq));
        if (!format) return reply.send((await deps.audit.list(filter, q)) as never);
        return sendExport(reply, deps.audit.export(filter, format), format, `audit-${clientId}`);
      },
    );

    app.get(
      '/api/mica/audit/actions',
      {
        config: { auth: 'client', errorFormat: 'nested' },
        // Dates and schema problems reported together (refuseInvalidQuery).
        attachValidation: true,
        schema: {
          tags: ['audit'],
          summary:
            'Executed actions (type, outcome, time, executor, evidence), newest first; format=csv|json streams every match',
          security: [{ bearer: [] }],
          querystring: ActionQuerySchema,
          response: {
            200: auditAnswer(
              'one executed action: type, outcome, time (UTC), executor, evidence, with its evaluation',
              ACTION_COLUMN_DOCS,
            ),
            ...auditErrors,
          },
        },
      },
      async (req, reply) => {
        refuseInvalidQuery(req);
        const { clientId } = principalOf(req);
        const { format, ...q } = req.query;
        const filter = await deps.actions.filter(clientId, q, !format);
        reply.header(CHAIN_SEQ_HEADER, String(filter.through_seq));
        if (!format) return reply.send((await deps.actions.list(filter, q)) as never);
        return sendExport(reply, deps.actions.export(filter, format), format, `actions-${clientId}`);
      },
    );
  };
