import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ConsoleService } from '../../services/console.service.ts';
import { stringifyWithRaw } from '../../services/raw-json.ts';
import { principalOf } from '../plugins/auth.ts';
import { refuseInvalidQuery } from '../query-problems.ts';
import { listOf } from '../schemas/cases.schema.ts';
import { nestedErrorResponses } from '../schemas/common.schema.ts';
import {
  CasePageSchema,
  CaseQueueQuery,
  CaseQueueSchema,
  CountsSchema,
  EscalationSchema,
  EvaluationRecordSchema,
  RuleStatsQuery,
  RuleStatsSchema,
  TransitionQuerySchema,
  TransitionSchema,
  WhoAmISchema,
} from '../schemas/console.schema.ts';

const config = { auth: 'client', errorFormat: 'nested' } as const;
const security = [{ bearer: [] }];
const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** The read models the web console needs beyond the plain API; bearer key, nested errors, tenant-scoped. */
export const consoleApiRoutes =
  (deps: { console: ConsoleService }): FastifyPluginAsyncTypebox =>
  async (app) => {
    const svc = deps.console;

    app.get(
      '/api/console/whoami',
      {
        config,
        schema: {
          tags: ['console'],
          summary: 'The client, role, environment and officer of the key in use',
          security,
          response: { 200: WhoAmISchema, ...nestedErrorResponses },
        },
      },
      async (req) => svc.whoami(principalOf(req)),
    );

    app.get(
      '/api/console/counts',
      {
        config,
        schema: {
          tags: ['console'],
          summary: 'Open, overdue and due-today alerts and cases',
          security,
          response: { 200: CountsSchema, ...nestedErrorResponses },
        },
      },
      async (req) => svc.counts(principalOf(req)),
    );

    app.get(
      '/api/console/cases',
      {
        config,
        schema: {
          tags: ['console'],
          summary: 'The cases queue: cases soonest due first, each with its severity; filter by severity too',
          security,
          querystring: CaseQueueQuery,
          response: { 200: CaseQueueSchema, ...nestedErrorResponses },
        },
      },
      async (req) => svc.casesQueue(principalOf(req), req.query),
    );

    app.get(
      '/api/console/cases/:id',
      {
        config,
        schema: {
          tags: ['console'],
          summary:
            'A case page in one answer: the case, its first 100 alerts (payloads as delivered), their evaluations',
          security,
          params: IdParam,
          response: { 200: CasePageSchema, ...nestedErrorResponses },
        },
      },
      async (req, reply) => {
        const page = await svc.casePage(principalOf(req), req.params.id);
        // Alert payloads are the vendor's JSON text, written unparsed (as cases.routes does).
        reply.type('application/json; charset=utf-8').serializer(stringifyWithRaw);
        return page;
      },
    );

    app.get(
      '/api/console/alerts/:id/escalation',
      {
        config,
        schema: {
          tags: ['console'],
          summary: 'What escalating an alert can do: the case it is in, and the open cases it may join',
          security,
          params: IdParam,
          response: { 200: EscalationSchema, ...nestedErrorResponses },
        },
      },
      async (req) => svc.escalationTargets(principalOf(req), req.params.id),
    );

    app.get(
      '/api/console/evaluations/:evaluation_id',
      {
        config,
        schema: {
          tags: ['console'],
          summary: 'One stored evaluation with the request it answered',
          security,
          params: Type.Object({ evaluation_id: Type.String({ minLength: 1, maxLength: 64 }) }),
          response: { 200: EvaluationRecordSchema, ...nestedErrorResponses },
        },
      },
      async (req) => svc.evaluation(principalOf(req), req.params.evaluation_id),
    );

    app.get(
      '/api/mica/rules/stats',
      {
        config,
        schema: {
          tags: ['evaluation'],
          summary: 'Evaluations and triggers per rule and UTC day over the last days (default 30)',
          security,
          querystring: RuleStatsQuery,
          response: { 200: RuleStatsSchema, ...nestedErrorResponses },
        },
      },
      async (req) => svc.ruleStats(principalOf(req), req.query.days ?? 30),
    );

    app.get(
      '/api/mica/audit/transitions',
      {
        config,
        // Dates and schema problems reported together (refuseInvalidQuery).
        attachValidation: true,
        schema: {
          tags: ['audit'],
          summary:
            'Every case and alert transition (history entries), oldest first; format=csv|json streams all',
          security,
          querystring: TransitionQuerySchema,
          response: {
            200: {
              description:
                'A page (no format), or with format=json|csv a streamed export of every transition',
              content: {
                'application/json': {
                  schema: Type.Union([listOf(TransitionSchema), Type.Array(TransitionSchema)]),
                },
                'text/csv': {
                  schema: Type.String({ description: 'the transitions as CSV, header line first' }),
                },
              },
            },
            ...nestedErrorResponses,
          },
        },
      },
      async (req, reply) => {
        refuseInvalidQuery(req);
        const p = principalOf(req);
        const { format, ...q } = req.query;
        if (!format) return (await svc.transitions(p, q)) as never;
        const chunks = await svc.exportTransitions(p, q, format);
        const stamp = new Date().toISOString().replaceAll(':', '').slice(0, 15);
        reply
          .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
          .header(
            'content-disposition',
            `attachment; filename="transitions-${p.clientId}-${stamp}.${format}"`,
          );
        return reply.send(Readable.from(chunks) as never);
      },
    );
  };
