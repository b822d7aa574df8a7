import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AlertsCasesService } from '../../services/alerts-cases.service.ts';
import { stringifyWithRaw } from '../../services/raw-json.ts';
import { principalOf } from '../plugins/auth.ts';
import {
  AlertListQuery,
  AlertSchema,
  AlertTransitionBody,
  AssignBody,
  CaseListQuery,
  CaseSchema,
  CaseTransitionBody,
  listOf,
} from '../schemas/cases.schema.ts';
import { NestedError, nestedErrorResponses } from '../schemas/common.schema.ts';
import { actorOf } from './evaluate.routes.ts';

const config = { auth: 'client', errorFormat: 'nested' } as const;
const security = [{ bearer: [] }];
const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const withConflict = { ...nestedErrorResponses, 409: NestedError };

/**
 * An alert answer is written by stringifyWithRaw: its `payload` is the vendor's JSON text, spliced in
 * unparsed so that its numbers keep every digit (the schema's serializer would JSON.stringify a
 * parsed, rounded copy). Set once the answer is ready: a refusal goes the usual way.
 */
function rawAware<T>(reply: FastifyReply, value: T): T {
  // A reply serializer leaves the content type to the caller.
  reply.type('application/json; charset=utf-8').serializer(stringifyWithRaw);
  return value;
}

/** The alerts and cases API of CONTRACT §9: every query scoped by the caller's client (nested errors). */
export const casesRoutes =
  (deps: { alertsCases: AlertsCasesService }): FastifyPluginAsyncTypebox =>
  async (app) => {
    const svc = deps.alertsCases;

    app.get(
      '/api/alerts',
      {
        config,
        schema: {
          tags: ['alerts'],
          summary: 'Alerts, soonest due first',
          security,
          querystring: AlertListQuery,
          response: { 200: listOf(AlertSchema), ...nestedErrorResponses },
        },
      },
      async (req, reply) => rawAware(reply, await svc.listAlerts(principalOf(req), req.query)),
    );

    app.get(
      '/api/alerts/:id',
      {
        config,
        schema: {
          tags: ['alerts'],
          summary: 'One alert with its history',
          security,
          params: IdParam,
          response: { 200: AlertSchema, ...nestedErrorResponses },
        },
      },
      async (req, reply) => rawAware(reply, await svc.getAlert(principalOf(req), req.params.id)),
    );

    app.post(
      '/api/alerts/:id/transition',
      {
        config,
        schema: {
          tags: ['alerts'],
          summary:
            'Move an alert (open → acknowledged | escalated | closed; acknowledged → escalated | closed)',
          description: '`closed` needs a resolution; `escalated` opens a case, or joins `case_id`.',
          security,
          params: IdParam,
          body: AlertTransitionBody,
          response: { 200: AlertSchema, ...withConflict },
        },
      },
      async (req, reply) =>
        rawAware(reply, await svc.transitionAlert(principalOf(req), req.params.id, req.body, actorOf(req))),
    );

    app.get(
      '/api/cases',
      {
        config,
        schema: {
          tags: ['cases'],
          summary: 'Cases, soonest due first',
          security,
          querystring: CaseListQuery,
          response: { 200: listOf(CaseSchema), ...nestedErrorResponses },
        },
      },
      async (req) => svc.listCases(principalOf(req), req.query),
    );

    app.get(
      '/api/cases/:id',
      {
        config,
        schema: {
          tags: ['cases'],
          summary: 'One case, by id or case number, with its alerts, rules and history',
          security,
          params: IdParam,
          response: { 200: CaseSchema, ...nestedErrorResponses },
        },
      },
      async (req) => svc.getCase(principalOf(req), req.params.id),
    );

    app.post(
      '/api/cases/:id/transition',
      {
        config,
        schema: {
          tags: ['cases'],
          summary: 'Move a case (open → investigating | closed; investigating → pending_filing | closed; …)',
          description: '`closed` needs a resolution: str_filed, report_filed or no_action.',
          security,
          params: IdParam,
          body: CaseTransitionBody,
          response: { 200: CaseSchema, ...withConflict },
        },
      },
      async (req) => svc.transitionCase(principalOf(req), req.params.id, req.body, actorOf(req)),
    );

    app.post(
      '/api/cases/:id/assign',
      {
        config,
        schema: {
          tags: ['cases'],
          summary: "Assign a case to one of the client's compliance officers",
          security,
          params: IdParam,
          body: AssignBody,
          response: { 200: CaseSchema, ...withConflict },
        },
      },
      async (req) => svc.assignCase(principalOf(req), req.params.id, req.body.officer, actorOf(req)),
    );
  };
